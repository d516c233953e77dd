#!/bin/sh
# models/validation/moe.sh [BIN] - podplan predict against published MoE
# training runs. Each row of models/validation/moe-published.csv names a
# scenario under models/validation/moe/ that states the published
# configuration (and, in _source / _assumed, the recipe it was read from and
# what podplan assumed where the recipe is silent or podplan cannot follow
# it); its measured step (measured_s, from the published tokens/s/GPU or
# step time: see each row's source and notes) stays as it is. This rewrites
# predicted_s (`podplan predict SCENARIO --json` step_time_s) and error_pct
# (predicted / measured - 1, in percent) and prints the table as
# `podplan validate --replay` reads the file.
#
# predicted_at_commit: the commit at which this exact predicted value was
# first written (kept from the CSV while the value is unchanged; otherwise
# the current HEAD, "+dirty" when sim/, the catalogs or the scenarios have
# uncommitted changes), so a reader sees that a prediction predates the
# measured value beside it.
set -e
bin=${1:-bin/podplan}
out=models/validation/moe-published.csv
tmp=$(mktemp -d /tmp/pp-moe-val.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- sim 'models/*.json' models/validation/moe 2>/dev/null)" ]; then
	head="$head+dirty"
fi
python3 - "$out" "$tmp" <<'PY' | while read -r scen; do "$bin" predict "$scen" --json > "$tmp/$(basename "$scen")"; done
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
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, lineterminator="\r\n")  # as csv.writer writes it
    w.writeheader()
    for r in rows:
        w.writerow(r)
PY
"$bin" validate --replay "$out"
