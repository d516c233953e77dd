#!/bin/bash
# calibrate/device_campaign.sh - issues 14 and 16 on one H200, in one device call
# of under 9 minutes (BUDGET_S, default 480 s for everything; each part has its
# own timeout, so one failure or hang loses only itself):
#   1. podplan-calibrate: the carried bin/ if it starts, else built here from
#      the source with lib/include and lib/*.so (calibrate/device_pack.sh
#      fills lib/ on the build machine)
#   2. decode-shaped GEMMs (M = 1..512 per TP shard of llama3-8b, llama3-70b)
#      and sustained bf16 + fp8 GEMMs (12 s back to back each, NVML clocks,
#      power and throttle reasons every 100 ms) -> calib.db, calib.txt; then
#      `podplan fit` of that run (the profile's gemm_sustained_fraction and
#      small-M curve) into the log
#   3. the framework campaign (models/validation/framework/): training steps
#      of Hugging Face Llama-3.2-1B/3B under PyTorch (plain, DDP and FSDP2 at
#      world size 1) -> train.csv; the cross-entropy chain and SDPA at the
#      training shapes -> micro.csv; generate() with a static KV cache ->
#      serve.csv
#   4. nvidia-smi clocks, power and throttle reasons every 500 ms through the
#      whole call -> nvsmi.csv
# Everything lands in $OUT (8 files at most come back: log.txt, calib.txt,
# calib.db, train.csv, micro.csv, serve.csv, python.txt, nvsmi.csv); the last
# lines printed are a summary. Run from the repository root with bin and lib
# carried (calibrate/device_pack.sh makes both):
#   bash calibrate/device_campaign.sh
# PARTS (default "calibrate train micro serve"; also "host": host_bench.py ->
# host.csv) picks the parts; TRAIN_ARGS more train_bench.py options (--isolate); CAL_ARGS,
# CAL_LABEL, CAL_NAME, CAL_S another calibration pass (default: decode and
# sustained), MICRO_PARTS micro_bench.py's parts (--parts); FUZZ_S=N
# also runs the fuzz targets of build/fuzz (carried) for N seconds on CPUs 4..
# while the Python parts run pinned to CPUs 0-3 (calibrate/device_fuzz.sh:
# fuzz.txt, fuzz.tgz; with fewer parts, fewer than 8 files come back).
# FAKE=1 runs the flow without a GPU (podplan-calibrate --fake=1, the Python
# parts failing at their imports), a dry run for the build machine.
# Afterwards, on the build machine: sh models/validation/framework.sh merge
# FILES_AT/train.csv FILES_AT/serve.csv (fills the measured columns of
# models/calibrations/framework-h200.csv and framework-serve-h200.csv), and
# the calibration store into models/calibrations/.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
# NVLink multicast stays off on these machines (../shared/DEVICE.md), for
# every process, PyTorch's NCCL included
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PODPLAN_DATA=$PWD/models PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
budget=${BUDGET_S:-480}
parts=" ${PARTS:-calibrate train micro serve} "
want() { case "$parts" in *" $1 "*) return 0 ;; esac; return 1; }
pin=
command -v taskset > /dev/null || taskset() { shift 2; "$@"; }
t0=$(date +%s)
log=$out/log.txt
py=$out/python.txt
fwdir=models/validation/framework
: > "$log"
say() { echo "== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
left() { echo $(( t0 + budget - $(date +%s) )); }
# limit MAX RESERVE: seconds a part may take, leaving RESERVE for the parts after it
limit() {
	local l=$(( $(left) - $2 ))
	[ "$l" -lt "$1" ] && echo "$l" || echo "$1"
}
# part NAME MAX RESERVE CMD...: CMD under a timeout of limit(MAX, RESERVE);
# DEADLINE (epoch seconds, 5 s before the timeout) is exported for CMD
part() {
	local name=$1 max=$2 res=$3 lim
	shift 3
	lim=$(limit "$max" "$res")
	if [ "$lim" -lt 15 ]; then
		say "$name: skipped, ${lim} s left for it"
		return 99
	fi
	export DEADLINE=$(( $(date +%s) + lim - 5 ))
	say "$name: start (limit $lim s)"
	timeout -k 5 "$lim" "$@"
	local rc=$?
	say "$name: exit $rc"
	return $rc
}

# the throttle-reasons field by its current name, else the older one
reasons=clocks_event_reasons.active
nvidia-smi --query-gpu=$reasons --format=csv > /dev/null 2>&1 || reasons=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,utilization.gpu,memory.used,$reasons \
	--format=csv,nounits -lms 500 > "$out/nvsmi.csv" 2>&1 &
mon=$!

say "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
  nproc; uname -r
  python3 -c 'import sys, torch, transformers; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__, "gpus", torch.cuda.device_count())'
  env | grep -E '^(NCCL_NVLS_ENABLE|TORCH_SYMM_MEM_DISABLE_MULTICAST|NVSHMEM_DISABLE_NVLS)='; } >> "$log" 2>&1

# 1. podplan-calibrate: carried, else built here
cal=bin/podplan-calibrate
pp=bin/podplan
if ! "$cal" --version >> "$log" 2>&1 || ! "$pp" --version >> "$log" 2>&1; then
	say "the carried binaries do not start (ldd below); building here"
	ldd "$cal" 2>&1 | grep -E 'not found' >> "$log"
	cal=/tmp/ppbin/podplan-calibrate
	pp=/tmp/ppbin/podplan
	part build 150 330 make -j"$(nproc)" BUILD=/tmp/ppbuild BINDIR=/tmp/ppbin \
		CC="cc -I$PWD/lib/include" \
		LDLIBS="-L$PWD/lib -l:libcjson.so.1 -l:libgsl.so.27 -l:libgslcblas.so.0 -l:libsqlite3.so.0 -lm -ldl" \
		/tmp/ppbin/podplan /tmp/ppbin/podplan-calibrate > /tmp/build.txt 2>&1
	grep -E 'error|warning' /tmp/build.txt | head -20 >> "$log"
	tail -3 /tmp/build.txt >> "$log"
	"$cal" --version >> "$log" 2>&1 || say "podplan-calibrate could not be built: no calibration part"
fi

if [ -n "${FUZZ_S:-}" ]; then
	. calibrate/device_fuzz.sh
	fuzz_start 4 "$FUZZ_S" >> "$log"  # not in a pipe: its pids stay this shell's
	pin="taskset -c 0-3"
fi

# 2. decode-shaped and sustained GEMMs (cold GPU first: the burst figures)
db=/tmp/calib.db
rm -f "$db" "$db"-wal "$db"-shm
if want calibrate && "$cal" --version > /dev/null 2>&1; then
	# CAL_ARGS (default the decode and sustained parts), CAL_LABEL, CAL_NAME
	# (the fitted profile's name) and CAL_S (its time limit) pick another pass
	# shellcheck disable=SC2086
	part calibrate "${CAL_S:-120}" 270 "$cal" ${FAKE:+--fake=1} ${CAL_ARGS:---only decode,sustained} \
		--db "$db" --no-progress \
		--label "${CAL_LABEL:-1x H200: decode-shaped GEMMs and sustained bf16/fp8 GEMMs (issues 14, 16)}" \
		> "$out/calib.txt" 2>&1
	"$pp" fit --db "$db" --name "${CAL_NAME:-h200-sustained-decode}" >> "$log" 2>&1
	"$pp" calib list --db "$db" >> "$log" 2>&1
	# one self-contained file (no -wal beside it), even after a kill
	python3 - "$db" "$out/calib.db" <<'EOF' >> "$log" 2>&1
import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
print("calib.db: integrity", dst.execute("PRAGMA integrity_check").fetchone()[0],
      "runs", dst.execute("SELECT count(*) FROM calib_runs").fetchone()[0],
      "rows", dst.execute("SELECT count(*) FROM calib_measurements").fetchone()[0])
dst.close()
EOF
fi

# 3. the framework campaign; each script writes its rows as it goes
# shellcheck disable=SC2086
want train && part train "${TRAIN_S:-240}" 100 $pin python3 "$fwdir/train_bench.py" \
	--out "$out/train.csv" --deadline-env ${TRAIN_ARGS:-} 2>> "$py"
want micro && part micro "${MICRO_S:-50}" 60 $pin python3 "$fwdir/micro_bench.py" --out "$out/micro.csv" \
	--parts "${MICRO_PARTS:-ce_chain,sdpa,eltw}" --deadline-env 2>> "$py"
want serve && part serve 120 0 $pin python3 "$fwdir/serve_bench.py" --out "$out/serve.csv" \
	--deadline-env 2>> "$py"
# the host's time per eager kernel (host_bench.py), on the CPUs the training used
want host && part host 120 0 $pin python3 "$fwdir/host_bench.py" --out "$out/host.csv" \
	--deadline-env 2>> "$py"
[ -n "${FUZZ_S:-}" ] && fuzz_finish "$out"

kill "$mon" 2>/dev/null
wait "$mon" 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,$reasons --format=csv >> "$log" 2>&1
say "done"

# the summary (the reply carries the last lines)
echo
echo "## calibration (sustained: burst vs the second half; decode: share of the datasheet roofline)"
grep -E '^# GPU|skipped|run [0-9]+ complete' "$out/calib.txt" 2>/dev/null
sed -n "/^profile ${CAL_NAME:-h200-sustained-decode}/,/^stored as/p" "$log" | head -24
echo
echo "## training (train.csv)"
python3 - "$out/train.csv" <<'EOF' 2>&1
import csv, sys
try:
    rows = list(csv.DictReader(open(sys.argv[1])))
except OSError as e:
    sys.exit("no train.csv: %s" % e)
print("%-34s %-7s %9s %9s %8s %8s" % ("config", "status", "step_s", "tok/s", "resGiB", "allocGiB"))
for r in rows:
    g = lambda k, d=1: ("%.*f" % (d, float(r[k]) / 2**30)) if r.get(k) else "-"
    print("%-34s %-7s %9s %9s %8s %8s" % (r["config"][8:], r["status"][:7],
          "%.4f" % float(r["step_s_median"]) if r.get("step_s_median") else "-",
          "%.0f" % float(r["tokens_per_s"]) if r.get("tokens_per_s") else "-",
          g("max_memory_reserved"), g("max_memory_allocated")))
    if r["status"] != "ok":
        print("    ", r.get("notes", "")[:160])
EOF
echo
echo "## micro (micro.csv)"
python3 - "$out/micro.csv" <<'EOF' 2>&1
import csv, sys
try:
    rows = list(csv.DictReader(open(sys.argv[1])))
except OSError as e:
    sys.exit("no micro.csv: %s" % e)
# the chain's parts; attention forward + backward on flash, cuDNN and PyTorch's choice
for r in rows:
    if r["bench"] == "sdpa" and r["status"] == "ok" and not (
            r["part"] == "fwd_bwd" and r["backend"] in ("flash", "cudnn", "default")):
        continue
    shape = ("h%s" % r["hidden"]) if r["bench"] == "ce_chain" else "b%s s%s h%s d%s" % (
        r["batch"], r["seq"], r["heads"], r["head_dim"])
    print("%-5s %-18s %-8s %-17s %9s s %6s TF %6s GB/s %s %s" % (
        r["bench"][:5], r["part"], r["backend"][:8], shape, r["median_s"][:9], r["tflops"][:6],
        r["GBps"][:6], r["status"], r["rel_err"][:7]))
EOF
echo
echo "## serving (serve.csv)"
python3 - "$out/serve.csv" <<'EOF' 2>&1
import csv, sys
try:
    rows = list(csv.DictReader(open(sys.argv[1])))
except OSError as e:
    sys.exit("no serve.csv: %s" % e)
for r in rows:
    print("%-32s %-6s ttft %8s s  tpot %9s s  itl %9s s  %8s tok/s" % (
        r["config"], r["status"][:6], r["ttft_s"][:8], r["tpot_s"][:9], r["itl_median_s"][:9],
        r["output_throughput"][:8]))
EOF
echo
[ -f "$out/fuzz.txt" ] && cat "$out/fuzz.txt"
tail -5 "$py" 2>/dev/null
grep -E '^== ' "$log" | tail -14
