#!/bin/bash
# calibrate/replay_run.sh - the replay validation on the GPU machine, in one
# call (see calibrate/replay.h and calibrate/overlap.h):
#   1. podplan-calibrate overlap into a copy of the committed calibration
#      store ($OUT/h200.db: a run of its own, for 'podplan fit')
#   2. every scenarios/replay/*.json replayed in one process (after a
#      failure, each one left out in a process of its own) -> replay.csv
#   3. diagnostics -> diag.csv: the pipeline scenarios with receives posted
#      at the sender's time (--early-recv), the data-parallel ones without
#      their collectives (--no-dp)
# Expects bin/ (podplan, podplan-calibrate built on the build machine) and
# lib/ (libcjson, libgsl, libgslcblas from it) carried along. At most 8
# files come back from $OUT.
#   STEPS (default 8), WARMUP (3), OVERLAP (1), DIAG (1)
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# NVLink multicast stays off on these machines (see DEVICE.md)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PODPLAN_DATA=$PWD/models
steps=${STEPS:-8}
warm=${WARMUP:-3}
log=$out/log.txt
csv=$out/replay.csv
clocks() { nvidia-smi --query-gpu=index,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader; }
stamp() { echo "== $* at $(( $(date +%s) - t0 )) s" >> "$log"; }
t0=$(date +%s)
{ nvidia-smi -L; clocks; } > "$log" 2>&1
bin/podplan-calibrate --version >> "$log" 2>&1 || { echo "podplan-calibrate does not start"; cat "$log"; exit 1; }
if [ "${OVERLAP:-1}" = 1 ]; then
	cp models/calibrations/h200-nvlink-2gpu.db "$out/h200.db"
	timeout 120 bin/podplan-calibrate overlap --db "$out/h200.db" \
		--label "2x H200 NV18, GEMM/copy beside NCCL collectives" > "$out/overlap.txt" 2>&1
	stamp "overlap: exit $?"
fi
timeout 420 bin/podplan-calibrate replay --steps "$steps" --warmup "$warm" --timeout 30 \
	--csv "$csv" scenarios/replay/*.json > "$out/replay.txt" 2>&1
rc=$?
stamp "replay: exit $rc"
if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
	for f in scenarios/replay/*.json; do
		n=$(basename "$f" .json)
		grep -q "^$n," "$csv" 2>/dev/null && continue
		timeout 60 bin/podplan-calibrate replay --steps "$steps" --warmup "$warm" --timeout 20 \
			--csv "$csv" "$f" >> "$out/replay.txt" 2>&1
		stamp "$n alone: exit $?"
	done
fi
if [ "${DIAG:-1}" = 1 ]; then
	timeout 150 bin/podplan-calibrate replay --steps 5 --warmup 2 --timeout 30 --early-recv \
		--csv "$out/diag.csv" scenarios/replay/*pp2*.json >> "$out/replay.txt" 2>&1
	stamp "diag early-recv: exit $?"
	timeout 150 bin/podplan-calibrate replay --steps 5 --warmup 2 --timeout 30 --no-dp \
		--csv "$out/diag.csv" scenarios/replay/*zero3*.json scenarios/replay/*1_7b-ddp-mbs1-none.json \
		scenarios/replay/*1_7b-zero1*.json scenarios/replay/*3_6b-ddp*.json >> "$out/replay.txt" 2>&1
	stamp "diag no-dp: exit $?"
fi
clocks >> "$log" 2>&1
[ -f "$csv" ] && bin/podplan validate --replay "$csv" >> "$log" 2>&1
cat "$out/overlap.txt" 2>/dev/null | tail -42
grep -v '^#' "$out/replay.txt" | tail -40
tail -45 "$log"
