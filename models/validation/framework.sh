#!/bin/sh
# models/validation/framework.sh - the framework validation set of issue 14:
# podplan's predictions of training steps that PyTorch and Hugging Face
# transformers run on one H200 (models/validation/framework/: the scenarios,
# one per configuration, and the device scripts), and the measurements
# beside them, in models/calibrations/framework-h200.csv.
#
#   sh models/validation/framework.sh [predict] [BIN]     predictions, before the run
#   sh models/validation/framework.sh merge TRAIN.csv [SERVE.csv [BIN]]  the device run's
#                                                         CSVs into the measured columns
#
# predict: `podplan predict --json` of every scenario; the columns
#   config,framework,model,seq,micro_batch,recompute,predicted_s,measured_s,
#   predicted_bytes,measured_bytes,predicted_at_commit,status,
#   measured_allocated_bytes,tokens_per_s_measured,wrapper,profile,scenario,notes
# (predicted_bytes: podplan's per-GPU memory; measured_bytes: the caching
# allocator's peak reservation, torch.cuda.max_memory_reserved). Measured
# cells already in the file are kept. predicted_at_commit: the commit at
# which this exact predicted value was first written (kept while the value
# is unchanged; otherwise HEAD, "+dirty" when sim/, the catalogs or the
# scenarios have uncommitted changes), so a reader sees that a prediction
# predates the measurement beside it.
# merge: fills measured_s (the median step), measured_bytes,
#   measured_allocated_bytes, tokens_per_s_measured, status and notes from
#   train_bench.py's CSV, by config; predictions stay as they are.
# Both print the table as `podplan validate --replay` reads the file.
#
# The serving check likewise, into models/calibrations/framework-serve-h200.csv:
# `podplan serve --json` of every scenario under framework/serve/ (median
# TTFT and TPOT, seconds) beside serve_bench.py's measurements:
#   config,model,batch,input_len,output_len,predicted_ttft_s,measured_ttft_s,
#   predicted_tpot_s,measured_tpot_s,predicted_at_commit,status,
#   measured_itl_median_s,scenario,notes
set -e
mode=predict
case "${1:-}" in
predict) shift ;;
merge)
	mode=merge; shift; train=${1:?usage: framework.sh merge TRAIN.csv [SERVE.csv [BIN]]}; shift
	case "${1:-}" in *.csv) serve=$1; shift ;; esac ;;
esac
bin=${1:-bin/podplan}
dir=models/validation/framework
out=models/calibrations/framework-h200.csv
sout=models/calibrations/framework-serve-h200.csv
tmp=$(mktemp -d /tmp/pp-framework-val.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- sim 'models/*.json' "$dir" 2>/dev/null)" ]; then
	head="$head+dirty"
fi
if [ "$mode" = predict ]; then
	for f in "$dir"/scenarios/*.json; do
		n=$(basename "$f" .json)
		"$bin" predict "$f" --json > "$tmp/$n.json"
	done
	for f in "$dir"/serve/*.json; do
		n=$(basename "$f" .json)
		"$bin" serve "$f" --json > "$tmp/$n.json"
	done
fi
python3 - "$mode" "$tmp" "$out" "$dir" "$head" "${train:-}" "$sout" "${serve:-}" <<'EOF'
import csv, glob, json, os, sys
mode, tmp, out, dir, head, train, sout, serve = sys.argv[1:9]
cols = ["config", "framework", "model", "seq", "micro_batch", "recompute", "predicted_s",
        "measured_s", "predicted_bytes", "measured_bytes", "predicted_at_commit", "status",
        "measured_allocated_bytes", "tokens_per_s_measured", "wrapper", "profile", "scenario",
        "notes"]
measured = ("measured_s", "measured_bytes", "measured_allocated_bytes", "tokens_per_s_measured",
            "status", "notes")
previous = {}
if os.path.exists(out):
    for r in csv.DictReader(open(out, newline="")):
        previous[r["config"]] = r
rows = []
if mode == "predict":
    for path in sorted(glob.glob(os.path.join(dir, "scenarios", "*.json"))):
        s = json.load(open(path))
        n = s["name"]
        p = json.load(open(os.path.join(tmp, os.path.basename(path))))
        pred_s = "%.6f" % p["step_time_s"]
        pred_b = "%.0f" % p["memory"]["per_gpu_bytes"]
        old = previous.get(n, {})
        same = old.get("predicted_s") == pred_s and old.get("predicted_bytes") == pred_b
        r = dict(config=n, framework=s["_run"]["framework"], model=s["_run"]["model"],
                 seq=s["model"]["seq_length"], micro_batch=s["training"]["micro_batch_size"],
                 recompute=s["training"]["recompute"], predicted_s=pred_s, predicted_bytes=pred_b,
                 predicted_at_commit=old.get("predicted_at_commit") if same else head,
                 wrapper=s["_run"]["wrapper"], profile=p.get("calibration_profile") or "catalog",
                 scenario=path)
        for k in measured:
            r[k] = old.get(k, "")
        rows.append(r)
else:
    got = {r["config"]: r for r in csv.DictReader(open(train, newline=""))}
    for n, r in previous.items():
        m = got.get(n)
        if m is None:
            rows.append(r)
            continue
        ok = m.get("status") == "ok"
        r.update(measured_s=m.get("step_s_median", "") if ok else "",
                 measured_bytes=m.get("max_memory_reserved", "") if ok else "",
                 measured_allocated_bytes=m.get("max_memory_allocated", "") if ok else "",
                 tokens_per_s_measured=("%.0f" % float(m["tokens_per_s"])) if ok and m.get("tokens_per_s") else "",
                 status=m.get("status", ""),
                 notes=("; ".join(x for x in (m.get("notes", ""), "torch %s, transformers %s, %s" % (
                     m.get("torch", ""), m.get("transformers", ""), m.get("gpu", ""))) if x)))
        rows.append(r)
    missing = sorted(set(got) - set(previous))
    if missing:
        print("framework.sh merge: not in %s (run predict first): %s" % (out, ", ".join(missing)),
              file=sys.stderr)
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore", lineterminator="\r\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
print("wrote %s (%d rows)" % (out, len(rows)), file=sys.stderr)

# the serving check
scols = ["config", "model", "batch", "input_len", "output_len", "predicted_ttft_s",
         "measured_ttft_s", "predicted_tpot_s", "measured_tpot_s", "predicted_at_commit", "status",
         "measured_itl_median_s", "scenario", "notes"]
smeasured = ("measured_ttft_s", "measured_tpot_s", "measured_itl_median_s", "status", "notes")
sprev = {}
if os.path.exists(sout):
    for r in csv.DictReader(open(sout, newline="")):
        sprev[r["config"]] = r
srows = []
if mode == "predict":
    for path in sorted(glob.glob(os.path.join(dir, "serve", "*.json"))):
        s = json.load(open(path))
        run = s["_run"]
        n = "%s-b%d-in%d-out%d" % (run["model"], run["batch"], run["input_len"], run["output_len"])
        p = json.load(open(os.path.join(tmp, os.path.basename(path))))
        ttft, tpot = "%.6f" % (p["median_ttft_ms"] / 1e3), "%.6f" % (p["median_tpot_ms"] / 1e3)
        old = sprev.get(n, {})
        same = old.get("predicted_ttft_s") == ttft and old.get("predicted_tpot_s") == tpot
        r = dict(config=n, model=run["model"], batch=run["batch"], input_len=run["input_len"],
                 output_len=run["output_len"], predicted_ttft_s=ttft, predicted_tpot_s=tpot,
                 predicted_at_commit=old.get("predicted_at_commit") if same else head, scenario=path)
        for k in smeasured:
            r[k] = old.get(k, "")
        srows.append(r)
else:
    got = {r["config"]: r for r in csv.DictReader(open(serve, newline=""))} if serve else {}
    for n, r in sprev.items():
        m = got.get(n)
        if m is not None:
            ok = m.get("status") == "ok"
            r.update(measured_ttft_s=m.get("ttft_s", "") if ok else "",
                     measured_tpot_s=m.get("tpot_s", "") if ok else "",
                     measured_itl_median_s=m.get("itl_median_s", "") if ok else "",
                     status=m.get("status", ""),
                     notes=("; ".join(x for x in (m.get("notes", ""), "torch %s, transformers %s, %s, %s" % (
                         m.get("torch", ""), m.get("transformers", ""), m.get("gpu", ""),
                         m.get("compile", ""))) if x)))
        srows.append(r)
with open(sout, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=scols, extrasaction="ignore", lineterminator="\r\n")
    w.writeheader()
    for r in srows:
        w.writerow(r)
print("wrote %s (%d rows)" % (sout, len(srows)), file=sys.stderr)
print("%-30s %10s %10s %10s %10s" % ("serving check", "TTFT pred", "measured", "TPOT pred",
                                      "measured"))
for r in srows:
    print("%-30s %10s %10s %10s %10s" % (r["config"], r["predicted_ttft_s"],
                                          r["measured_ttft_s"] or "-", r["predicted_tpot_s"],
                                          r["measured_tpot_s"] or "-"))
EOF
"$bin" validate --replay "$out"
