#!/bin/sh
# tests/snapshot.sh BIN OUT - what every command prints for every scenario
# under scenarios/ and tests/data (predict text/--json/--ops, check, cost
# text/--json/--csv at seed 7, search --json/--csv/--exhaustive, size, trace,
# report files, validate, validate --replay, podplan-calibrate replay
# --dry-run, serve text/--json for the serving scenarios, the bad inputs'
# messages), with what varies from run to run
# (the output folder, timings, as "key": N or cJSON's "key":<tab>N)
# normalised. A refactoring that must not change behaviour is checked by
# two snapshots and one diff:
#   git stash; make; sh tests/snapshot.sh bin/podplan /tmp/before
#   git stash pop; make; sh tests/snapshot.sh bin/podplan /tmp/after
#   diff -r /tmp/before /tmp/after
bin=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
export SOURCE_DATE_EPOCH=1700000000
export PODPLAN_DB="$out/.db/store.db"; mkdir -p "$out/.db"
for f in scenarios/*.json scenarios/replay/*.json scenarios/replay8/*.json tests/data/*.json; do
  n=$(echo "$f" | tr '/' '_')
  "$bin" predict "$f" --json > "$out/$n.predict.json" 2>&1; echo "rc=$?" >> "$out/$n.predict.json"
  "$bin" predict "$f" > "$out/$n.predict.txt" 2>&1; echo "rc=$?" >> "$out/$n.predict.txt"
  "$bin" predict "$f" --ops > "$out/$n.ops.txt" 2>&1; echo "rc=$?" >> "$out/$n.ops.txt"
  "$bin" check "$f" > "$out/$n.check.txt" 2>&1; echo "rc=$?" >> "$out/$n.check.txt"
  "$bin" cost "$f" --json --seed 7 --draws 2000 > "$out/$n.cost.json" 2>&1; echo "rc=$?" >> "$out/$n.cost.json"
  "$bin" cost "$f" --seed 7 --draws 2000 > "$out/$n.cost.txt" 2>&1; echo "rc=$?" >> "$out/$n.cost.txt"
  "$bin" cost "$f" --csv --seed 7 --draws 2000 > "$out/$n.cost.csv" 2>&1; echo "rc=$?" >> "$out/$n.cost.csv"
  "$bin" search "$f" --json > "$out/$n.search.json" 2>/dev/null; echo "rc=$?" >> "$out/$n.search.json"
  "$bin" search "$f" --csv > "$out/$n.search.csv" 2>/dev/null; echo "rc=$?" >> "$out/$n.search.csv"
  "$bin" report "$f" -o "$out/$n.report" --seed 7 --draws 2000 > "$out/$n.report.txt" 2>&1; echo "rc=$?" >> "$out/$n.report.txt"
done
for f in tests/bad/*.json; do
  n=$(echo "$f" | tr '/' '_')
  "$bin" predict "$f" > "$out/$n.predict.txt" 2>&1; echo "rc=$?" >> "$out/$n.predict.txt"
done
# whole-table commands
"$bin" validate models/validation/validation-public.csv > "$out/validate.txt" 2>&1; echo "rc=$?" >> "$out/validate.txt"
"$bin" validate models/validation/validation-public.csv --csv > "$out/validate.csv" 2>&1; echo "rc=$?" >> "$out/validate.csv"
for f in scenarios/*.json tests/data/ddp-70b.json; do
  n=$(echo "$f" | tr '/' '_')
  "$bin" size "$f" --json > "$out/$n.size.json" 2>/dev/null; echo "rc=$?" >> "$out/$n.size.json"
  "$bin" size "$f" --deadline 30 > "$out/$n.size.txt" 2>/dev/null; echo "rc=$?" >> "$out/$n.size.txt"
  "$bin" trace "$f" -o "$out/$n.trace.json" > /dev/null 2>&1; echo "rc=$?" >> "$out/$n.trace.rc"
  "$bin" search "$f" --exhaustive --top 3 > "$out/$n.search-exh.txt" 2>/dev/null; echo "rc=$?" >> "$out/$n.search-exh.txt"
done
for f in scenarios/serve/*.json models/validation/serving/*.json; do
  [ -f "$f" ] || continue
  n=$(echo "$f" | tr '/' '_')
  "$bin" serve "$f" --json > "$out/$n.serve.json" 2>&1; echo "rc=$?" >> "$out/$n.serve.json"
  "$bin" serve "$f" > "$out/$n.serve.txt" 2>&1; echo "rc=$?" >> "$out/$n.serve.txt"
done
cal="$(dirname "$bin")/podplan-calibrate"
for r in scenarios/replay/*.json scenarios/replay8/*.json; do
  n=$(echo "$r" | tr '/' '_')
  [ -x "$cal" ] && "$cal" replay "$r" --dry-run > "$out/$n.dryrun.txt" 2>&1
done
ls models/calibrations/*.csv 2>/dev/null | while read -r c; do
  n=$(basename "$c")
  "$bin" validate --replay "$c" > "$out/replay_$n.txt" 2>&1; echo "rc=$?" >> "$out/replay_$n.txt"
done
# normalise what varies run to run: the output folder, timings
rm -rf "$out/.db"
find "$out" -type f | while read -r f; do
  sed -i -e "s#$out#OUT#g" -e 's/"elapsed_s":[[:space:]]*[0-9.e+-]*/"elapsed_s": T/' \
    -e 's/"candidates_per_s":[[:space:]]*[0-9.e+-]*/"candidates_per_s": T/' \
    -e 's/"mc_elapsed_s":[[:space:]]*[0-9.e+-]*/"mc_elapsed_s": T/' \
    -e 's/"serve_elapsed_s":[[:space:]]*[0-9.e+-]*/"serve_elapsed_s": T/' -e '/^took /d' -e '/^Computed in /d' "$f"
done
