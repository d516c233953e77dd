#!/bin/sh
# models/validation/bridge.sh [BIN] - podplan predict against NVIDIA's
# published Megatron-Bridge pre-training throughput of the dense Llama 3
# models (8B, 70B, 3.1 405B; containers 25.09 and 25.11; DGX-H100, DGX-B200,
# DGX-GB200; NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md
# @ 0a25f911). Each row of models/validation/bridge-published.csv names a
# scenario under models/validation/bridge/ that states the published
# configuration (and, in _source / _assumed, the row and recipe it was read
# from and what podplan assumed or cannot follow); its measured step
# (measured_s = GBS x seq / (tokens/s/GPU x GPUs)) stays as it is. This
# rewrites predicted_s (`podplan predict SCENARIO --json` step_time_s),
# error_pct (predicted / measured - 1, in percent) and predicted_memory_gib
# (memory.per_gpu_bytes in GiB), and prints the table as
# `podplan validate --replay` reads the file.
#
# predicted_at_commit: the commit at which this exact predicted value was
# first written (kept from the CSV while the value is unchanged; otherwise
# the current HEAD, "+dirty" when sim/, the catalogs or the scenarios have
# uncommitted changes), as models/validation/moe.sh does.
set -e
bin=${1:-bin/podplan}
out=models/validation/bridge-published.csv
tmp=$(mktemp -d /tmp/pp-bridge-val.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- sim 'models/*.json' models/validation/bridge 2>/dev/null)" ]; then
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
    r["predicted_memory_gib"] = "%.1f" % (d["memory"]["per_gpu_bytes"] / 2**30)
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, lineterminator="\r\n")  # as csv.writer writes it
    w.writeheader()
    for r in rows:
        w.writerow(r)
PY
"$bin" validate --replay "$out"
