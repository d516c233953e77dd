#!/bin/sh
# models/validation/repredict.sh CSV SCENARIO_DIR [BIN] - the predictions of a
# published-runs CSV (models/validation/moe-published.csv,
# bridge-published.csv, mcore-published.csv), one row per scenario it names:
# rewrites predicted_s (`podplan predict SCENARIO --json` step_time_s),
# error_pct (predicted / measured - 1, in percent) and, where the CSV has the
# column, predicted_memory_gib (memory.per_gpu_bytes in GiB); the measured
# columns stay as they are. Prints the table as `podplan validate --replay`
# reads it.
#
# predicted_at_commit: the commit at which this exact predicted value was
# first written (kept from the CSV while the value is unchanged; otherwise
# the current HEAD, "+dirty" when sim/, the catalogs or SCENARIO_DIR have
# uncommitted changes), so a reader sees that a prediction predates the
# measured value beside it.
set -e
out=${1:?usage: repredict.sh CSV SCENARIO_DIR [BIN]}
dir=${2:?usage: repredict.sh CSV SCENARIO_DIR [BIN]}
bin=${3:-bin/podplan}
tmp=$(mktemp -d /tmp/pp-repredict.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- sim 'models/*.json' "$dir" 2>/dev/null)" ]; then
	head="$head+dirty"
fi
python3 - "$out" <<'PY' | while read -r scen; do "$bin" predict "$scen" --json > "$tmp/$(basename "$scen")"; done
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    print(r["scenario"])
PY
python3 - "$out" "$tmp" "$head" <<'PY'
import csv, json, os, sys
out, tmp, head = sys.argv[1:4]
f = open(out, newline="")
rd = csv.DictReader(f)
cols = rd.fieldnames
rows = list(rd)
f.close()
for r in rows:
    d = json.load(open(os.path.join(tmp, os.path.basename(r["scenario"]))))
    pred = "%.6f" % d["step_time_s"]
    if pred != r["predicted_s"]:
        r["predicted_at_commit"] = head
    r["predicted_s"] = pred
    r["error_pct"] = "%.2f" % (100 * (float(pred) / float(r["measured_s"]) - 1))
    if "predicted_memory_gib" in cols:
        r["predicted_memory_gib"] = "%.1f" % (d["memory"]["per_gpu_bytes"] / 2**30)
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, lineterminator="\r\n")  # as csv.writer writes it
    w.writeheader()
    for r in rows:
        w.writerow(r)
PY
"$bin" validate --replay "$out"
