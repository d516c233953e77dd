#!/bin/bash
# calibrate/run8.sh - the 8-GPU campaign of issue 9, in one device call on an
# nvidia-h200-x8 machine (8x H200 on NVSwitch; run it from the repository
# root with bin/ and lib/ carried, as calibrate/replay_run.sh is):
#   1. the link matrix (nvidia-smi topo -m)
#   2. the full calibration sweep, every collective over groups of 2, 4 and 8
#      GPUs -> $OUT/h200-nvswitch-8gpu.db (run 1) and its CSV export
#   3. the overlap run (run 2) and the profile h200-nvswitch-8gpu fitted from
#      runs 1 and 2 only
#   4. the 8-GPU replay set (scenarios/replay8/*.json) with that profile
#      -> $OUT/replay8.csv (predictions recomputed by podplan validate)
#   5. the all_reduce busbw curve over 8 GPUs next to the published 8x H200
#      nccl-tests figures (NVLS is off here: compare with ring/tree numbers)
# Then, on the build machine: copy $OUT/h200-nvswitch-8gpu.{db,csv} and
# replay8.csv to models/calibrations/, and add the table to the README.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PODPLAN_DATA=$PWD/models
db=$out/h200-nvswitch-8gpu.db
log=$out/log.txt
t0=$(date +%s)
stamp() { echo "== $* at $(( $(date +%s) - t0 )) s" >> "$log"; }
{ nvidia-smi -L; nvidia-smi topo -m; } > "$log" 2>&1
n=$(nvidia-smi -L | wc -l)
[ "$n" -ge 8 ] || { echo "need 8 GPUs, found $n"; cat "$log"; exit 1; }
timeout 420 bin/podplan-calibrate --db "$db" --groups 2,4,8 \
	--label "8x H200 NVSwitch, issue 9 sweep" > "$out/sweep.txt" 2>&1
stamp "sweep: exit $?"
timeout 120 bin/podplan-calibrate overlap --db "$db" \
	--label "8x H200 NVSwitch, GEMM/copy beside NCCL collectives" > "$out/overlap.txt" 2>&1
stamp "overlap: exit $?"
bin/podplan fit --db "$db" --run 1 --run 2 --name h200-nvswitch-8gpu >> "$log" 2>&1
bin/podplan calib export 1 --csv --db "$db" > "$out/h200-nvswitch-8gpu.csv" 2>> "$log"
timeout 400 bin/podplan-calibrate replay --steps 6 --warmup 2 --timeout 30 \
	--calibration "$db:h200-nvswitch-8gpu" --csv "$out/replay8.raw.csv" \
	scenarios/replay8/*.json > "$out/replay.txt" 2>&1
stamp "replay: exit $?"
[ -f "$out/replay8.raw.csv" ] && bin/podplan validate --replay "$out/replay8.raw.csv" \
	--repredict --csv > "$out/replay8.csv" 2>> "$log"
{
	echo "all_reduce busbw over 8 GPUs (GB/s), out of place; published 8x H200 (nccl-tests"
	echo "issue #272, NCCL 2.20.3, NVLS on): peak 475 GB/s; 8x H100 ring ~370 GB/s (issue #212)"
	sqlite3 "$db" "SELECT bytes, round(busbw_GBps, 1) FROM calib_measurements WHERE kind = \
'collective' AND op = 'all_reduce' AND nranks = 8 AND inplace = 0 AND bytes >= 1048576 \
ORDER BY bytes" 2>/dev/null || echo "(sqlite3 not on this machine: see h200-nvswitch-8gpu.csv)"
} > "$out/curve.txt"
tail -25 "$out/sweep.txt"
cat "$out/curve.txt"
[ -f "$out/replay8.raw.csv" ] && bin/podplan validate --replay "$out/replay8.raw.csv" --repredict
tail -20 "$log"
