#!/bin/sh
# models/validation/serving.sh [BIN] - podplan serve against published serving
# measurements. Each row is a scenario under models/validation/serving/ that
# states the published configuration; the predicted figure comes from
# `podplan serve SCENARIO --json`, the measured one from
# models/validation/serving-measured.csv (config, metric, measured, source,
# notes). Writes models/validation/serving-published.csv (config, predicted,
# measured, error_pct, metric, source, scenario, predicted_at_commit, notes)
# and prints it with the mean |error| per group.
#
# predicted_at_commit: the commit at which this exact predicted value was
# first written to the CSV (kept from the previous CSV while the value is
# unchanged; otherwise the current HEAD, "+dirty" when sim/ or models/ have
# uncommitted changes), so a reader sees that a prediction predates the
# measured value beside it.
set -e
bin=${1:-bin/podplan}
dir=models/validation
out=$dir/serving-published.csv
tmp=$(mktemp -d /tmp/pp-serving-val.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# what a prediction depends on: the simulator, the catalogs, the scenarios
if [ -n "$(git status --porcelain -- sim 'models/*.json' models/validation/serving 2>/dev/null)" ]; then
	head="$head+dirty"
fi
# group|config|scenario|metric (a key of podplan serve --json; memory.* in GiB;
# knee_concurrency: over the scenarios SCENARIO matches, each with a
# workload.max_concurrency, the lowest concurrency whose mean TTFT is more
# than 5x the lowest concurrency's: where queueing for KV or batch slots
# starts)
cat > "$tmp/rows" <<'EOF'
mlperf-offline|mlperf41-llama2-70b-h100x8-offline|mlperf41-llama2-70b-h100x8-offline|output_throughput
mlperf-offline|mlperf41-llama2-70b-h200x8-offline|mlperf41-llama2-70b-h200x8-offline|output_throughput
mlperf-offline|mlperf51-llama2-70b-b200x8-offline|mlperf51-llama2-70b-b200x8-offline|output_throughput
mlperf-offline|mlperf51-llama2-70b-gb200x4-offline|mlperf51-llama2-70b-gb200x4-offline|output_throughput
mlperf-offline|mlperf51-llama2-70b-rtxpro6000x8-offline|mlperf51-llama2-70b-rtxpro6000x8-offline|output_throughput
mlperf-server|mlperf41-llama2-70b-h100x8-server|mlperf41-llama2-70b-h100x8-server|output_throughput
mlperf-server|mlperf41-llama2-70b-h100x8-server|mlperf41-llama2-70b-h100x8-server|median_ttft_ms
mlperf-server|mlperf41-llama2-70b-h100x8-server|mlperf41-llama2-70b-h100x8-server|p99_ttft_ms
mlperf-server|mlperf41-llama2-70b-h100x8-server|mlperf41-llama2-70b-h100x8-server|median_tpot_ms
mlperf-server|mlperf41-llama2-70b-h100x8-server|mlperf41-llama2-70b-h100x8-server|p99_tpot_ms
mlperf-server|mlperf41-llama2-70b-h200x8-server|mlperf41-llama2-70b-h200x8-server|output_throughput
mlperf-server|mlperf41-llama2-70b-h200x8-server|mlperf41-llama2-70b-h200x8-server|median_ttft_ms
mlperf-server|mlperf41-llama2-70b-h200x8-server|mlperf41-llama2-70b-h200x8-server|p99_ttft_ms
mlperf-server|mlperf41-llama2-70b-h200x8-server|mlperf41-llama2-70b-h200x8-server|median_tpot_ms
mlperf-server|mlperf41-llama2-70b-h200x8-server|mlperf41-llama2-70b-h200x8-server|p99_tpot_ms
amd-mlperf-offline|mlperf41-llama2-70b-mi300x1-offline|mlperf41-llama2-70b-mi300x1-offline|output_throughput
amd-mlperf-offline|mlperf41-llama2-70b-mi300x8-offline|mlperf41-llama2-70b-mi300x8-offline|output_throughput
amd-mlperf-offline|mlperf41-llama2-70b-mi300x8-turin-offline|mlperf41-llama2-70b-mi300x8-turin-offline|output_throughput
amd-mlperf-offline|mlperf51-llama2-70b-mi300x8-offline|mlperf51-llama2-70b-mi300x8-offline|output_throughput
amd-mlperf-offline|mlperf51-llama2-70b-mi325x8-offline|mlperf51-llama2-70b-mi325x8-offline|output_throughput
amd-mlperf-offline|mlperf51-llama2-70b-mi355x8-offline|mlperf51-llama2-70b-mi355x8-offline|output_throughput
amd-mlperf-server|mlperf41-llama2-70b-mi300x1-server|mlperf41-llama2-70b-mi300x1-server|output_throughput
amd-mlperf-server|mlperf41-llama2-70b-mi300x1-server|mlperf41-llama2-70b-mi300x1-server|median_ttft_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x1-server|mlperf41-llama2-70b-mi300x1-server|p99_ttft_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x1-server|mlperf41-llama2-70b-mi300x1-server|median_tpot_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x1-server|mlperf41-llama2-70b-mi300x1-server|p99_tpot_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-server|mlperf41-llama2-70b-mi300x8-server|output_throughput
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-server|mlperf41-llama2-70b-mi300x8-server|median_ttft_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-server|mlperf41-llama2-70b-mi300x8-server|p99_ttft_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-server|mlperf41-llama2-70b-mi300x8-server|median_tpot_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-server|mlperf41-llama2-70b-mi300x8-server|p99_tpot_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-turin-server|mlperf41-llama2-70b-mi300x8-turin-server|output_throughput
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-turin-server|mlperf41-llama2-70b-mi300x8-turin-server|median_ttft_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-turin-server|mlperf41-llama2-70b-mi300x8-turin-server|p99_ttft_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-turin-server|mlperf41-llama2-70b-mi300x8-turin-server|median_tpot_ms
amd-mlperf-server|mlperf41-llama2-70b-mi300x8-turin-server|mlperf41-llama2-70b-mi300x8-turin-server|p99_tpot_ms
trtllm-offline|trtllm-llama-3.1-8b-h200-tp1-128-128|trtllm-perf-llama-3.1-8b-h200-tp1-128-128|output_throughput
trtllm-offline|trtllm-llama-3.1-8b-h200-tp1-1000-1000|trtllm-perf-llama-3.1-8b-h200-tp1-1000-1000|output_throughput
trtllm-offline|trtllm-llama-3.1-8b-h200-tp1-2048-128|trtllm-perf-llama-3.1-8b-h200-tp1-2048-128|output_throughput
trtllm-offline|trtllm-llama-3.1-8b-h100-tp1-1000-1000|trtllm-perf-llama-3.1-8b-h100-tp1-1000-1000|output_throughput
trtllm-offline|trtllm-llama-3.3-70b-h200-tp1-1000-1000|trtllm-perf-llama-3.3-70b-h200-tp1-1000-1000|output_throughput
trtllm-offline|trtllm-llama-3.3-70b-h200-tp1-128-2048|trtllm-perf-llama-3.3-70b-h200-tp1-128-2048|output_throughput
trtllm-offline|trtllm-llama-3.3-70b-h100-tp2-1000-1000|trtllm-perf-llama-3.3-70b-h100-tp2-1000-1000|output_throughput
trtllm-offline|trtllm-llama-3.1-405b-h200-tp8-1000-1000|trtllm-perf-llama-3.1-405b-h200-tp8-1000-1000|output_throughput
kv-capacity|vllm-kv-llama3-8b-h100-util0.9|vllm-kv-llama3-8b-h100-util0.9|memory.kv_cache_bytes
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c1|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c1|output_throughput
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c1|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c1|mean_ttft_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c1|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c1|mean_tpot_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c5|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c5|output_throughput
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c5|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c5|mean_ttft_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c5|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c5|mean_tpot_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c25|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c25|output_throughput
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c25|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c25|mean_ttft_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c25|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c25|mean_tpot_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c50|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c50|output_throughput
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c50|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c50|mean_ttft_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c50|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c50|mean_tpot_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c100|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c100|output_throughput
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c100|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c100|mean_ttft_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c100|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c100|mean_tpot_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c150|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c150|output_throughput
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c150|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c150|mean_ttft_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c150|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c150|mean_tpot_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c200|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c200|output_throughput
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c200|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c200|mean_ttft_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c200|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c200|mean_tpot_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c250|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c250|output_throughput
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c250|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c250|mean_ttft_ms
nim-concurrency|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c250|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c250|mean_tpot_ms
knee|nim18-llama-3.3-70b-h100x2-tp2-5000-500|nim18-llama-3.3-70b-h100x2-tp2-5000-500-c*|knee_concurrency
EOF
for sc in $(cut -d'|' -f3 "$tmp/rows" | grep -v '\*' | sort -u); do
	# a scenario podplan now refuses keeps its previous prediction (said below)
	if ! "$bin" serve "$dir/serving/$sc.json" --json > "$tmp/$sc.json" 2> "$tmp/$sc.err"; then
		rm -f "$tmp/$sc.json"
		echo "not re-predicted: $sc: $(cat "$tmp/$sc.err")"
	fi
done
python3 - "$tmp" "$out" "$dir/serving-measured.csv" "$head" <<'EOF'
import csv, json, os, sys
tmp, out, measured_path, head = sys.argv[1:5]
measured = {}
if os.path.exists(measured_path):
    for r in csv.DictReader(open(measured_path, newline="")):
        measured[(r["config"], r["metric"])] = r
previous = {}
if os.path.exists(out):
    for r in csv.DictReader(open(out, newline="")):
        previous[(r["config"], r["metric"])] = r
rows = []
import glob, fnmatch
def knee(pattern):
    pts = []
    for f in glob.glob(os.path.join(tmp, pattern + ".json")):
        d = json.load(open(f))
        scen = json.load(open(os.path.join("models/validation/serving", os.path.basename(f))))
        pts.append((scen["workload"]["max_concurrency"], d["mean_ttft_ms"]))
    pts.sort()
    for c, t in pts:
        if t > 5 * pts[0][1]:
            return c
    return float("inf")
for line in open(os.path.join(tmp, "rows")):
    group, config, scen, metric = line.strip().split("|")
    if metric == "knee_concurrency":
        v = knee(scen)
    elif not os.path.exists(os.path.join(tmp, scen + ".json")):
        v = None  # refused by this podplan: the previous CSV's prediction stays
    else:
        d = json.load(open(os.path.join(tmp, scen + ".json")))
        v = d
        for k in metric.split("."):
            v = v[k]
    unit_metric = metric
    if metric.endswith("_bytes"):
        if v is not None:
            v = v / 2**30
        unit_metric = metric[:-6] + "_gib"
    m = measured.get((config, unit_metric), {})
    old = previous.get((config, unit_metric), {})
    if v is None:
        pred = old.get("predicted", "")
    else:
        pred = "%.4g" % v if v < 1e4 else "%.0f" % v
    at = old.get("predicted_at_commit") if old.get("predicted") == pred else None
    meas = m.get("measured", "")
    err = "%+.1f" % (100 * (float(pred) / float(meas) - 1)) if meas and pred else ""
    rows.append(dict(group=group, config=config, predicted=pred, measured=meas, error_pct=err,
                     metric=unit_metric, source=m.get("source", ""),
                     scenario="models/validation/serving/%s.json" % scen.replace("*", "{1,5,...}"),
                     predicted_at_commit=at or head, notes=m.get("notes", "")))
cols = ["config", "predicted", "measured", "error_pct", "metric", "source", "scenario",
        "predicted_at_commit", "notes"]
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore", lineterminator="\r\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
print("%-42s %-20s %12s %12s %8s  %s" % ("config", "metric", "predicted", "measured", "error", "at"))
groups = {}
for r in rows:
    print("%-42s %-20s %12s %12s %8s  %s" % (r["config"], r["metric"], r["predicted"],
          r["measured"] or "-", (r["error_pct"] + "%") if r["error_pct"] else "-", r["predicted_at_commit"]))
    if r["error_pct"]:
        key = r["group"] if r["metric"].endswith(("throughput", "_gib", "_concurrency")) else r["group"] + " latency"
        groups.setdefault(key, []).append(abs(float(r["error_pct"])))
for g, e in groups.items():
    print("%-28s %2d rows: mean |error| %5.1f%%, max %5.1f%%" % (g, len(e), sum(e) / len(e), max(e)))
# issue 16's acceptance groups: offline tokens/s; latency and throughput at a
# stated concurrency or rate (MLPerf Server and the concurrency sweeps)
acc = {"offline output tokens/s": [], "at stated concurrency or rate": []}
for r in rows:
    if not r["error_pct"]:
        continue
    e = abs(float(r["error_pct"]))
    if r["group"] in ("mlperf-offline", "trtllm-offline"):
        acc["offline output tokens/s"].append(e)
    elif r["group"] in ("mlperf-server", "nim-concurrency"):
        acc["at stated concurrency or rate"].append(e)
# issue 36's acceptance group: MLPerf rows on AMD Instinct (throughput, the
# submitters' stated configurations)
acc["AMD Instinct MLPerf tokens/s"] = [abs(float(r["error_pct"])) for r in rows if r["error_pct"]
                                       and r["group"].startswith("amd-mlperf")
                                       and r["metric"] == "output_throughput"]
for g, e in acc.items():
    if e:
        print("%-28s %2d rows: mean |error| %5.1f%%" % (g, len(e), sum(e) / len(e)))
print("wrote %s" % out)
EOF
