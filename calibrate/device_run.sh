#!/bin/bash
# calibrate/device_run.sh MODE - what podplan-calibrate does on the GPU
# machine, in one call: build check, the sweeps, the PyTorch reference, a
# real SIGKILL. Results go to $OUT (at most 8 files come back).
#
#   check   first numbers: --quick (single process), --quick under mpirun,
#           all_reduce 1/4 GiB + bf16 8192^3 next to PyTorch
#   final   the full sweep (committed as models/calibrations/), PyTorch's
#           figures right after it, a --quick run under mpirun, and a full
#           sweep killed with SIGKILL mid-way
#
# Expects bin/ (podplan, podplan-calibrate built on the build machine) and
# lib/ (libcjson, libgsl, libgslcblas from it) carried along.
set -u
mode=${1:-check}
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# NVLink multicast stays off on these machines (see DEVICE.md)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PODPLAN_DATA=$PWD/models PYTHONUNBUFFERED=1
log=$out/log.txt
st=$PWD/.storage-test
mkdir -p "$st"
say() { echo "== $*" | tee -a "$log"; }
run_timed() { # name cmd...
	local name=$1; shift
	local t0=$(date +%s%N)
	"$@" > "$out/$name.txt" 2>&1
	local rc=$?
	local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	printf '== %s: exit %d, %d.%03d s\n' "$name" $rc $((ms / 1000)) $((ms % 1000)) | tee -a "$log"
	return $rc
}
mpi() { mpirun --allow-run-as-root -np 2 --bind-to none -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE \
	-x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS -x PODPLAN_DATA "$@"; }

say "machine"
{ nvidia-smi -L; nvidia-smi topo -m; nvidia-smi --query-gpu=index,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv;
  ldd bin/podplan-calibrate | grep -E 'not found|nccl|cublas|mpi'; nproc; df -h "$st" | tail -1; } >> "$log" 2>&1
bin/podplan-calibrate --version >> "$log" 2>&1 || { say "podplan-calibrate does not start"; tail -30 "$log"; exit 1; }

if [ "$mode" = check ]; then
	run_timed quick bin/podplan-calibrate --quick --db "$out/check.db" --storage-path "$st" \
		--label "first check, --quick"
	run_timed mpi mpi bin/podplan-calibrate --quick --db "$out/check.db" --models none \
		--gemm-dtypes bf16 --label "first check, mpirun --quick"
	run_timed cmp bin/podplan-calibrate --db "$out/check.db" --only collective,gemm \
		-b 1G -e 4G -f 4 --ops all_reduce --gemm-dtypes bf16 --square-min 8192 \
		--square-max 8192 --models none --label "acceptance sizes"
	run_timed torch python3 calibrate/torch_ref.py --sizes 1G,4G --gemm 8192 --out "$out/torch.json"
	tail -5 "$out/torch.txt" >> "$log"; rm -f "$out/torch.txt"
	bin/podplan calib list --db "$out/check.db" >> "$log" 2>&1
	say "summary"
	grep -E '^ +(all_reduce|gemm|memcpy|h2d|d2h|storage)|OK,|complete' "$out/quick.txt" | head -30
	tail -25 "$out/mpi.txt"
	grep -A12 'all_reduce, 2 ranks' "$out/cmp.txt" | head -12
	grep -A4 '# gemm bf16' "$out/cmp.txt"
	cat "$out/torch.json"
	tail -12 "$log"
	exit 0
fi

# final
run_timed full bin/podplan-calibrate --db "$out/h200.db" --storage-path "$st" \
	--label "2x H200 NV18, full sweep"
nvidia-smi --query-gpu=index,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> "$log" 2>&1
run_timed torch python3 calibrate/torch_ref.py --sizes 1G,4G --gemm 8192 --out "$out/torch.json"
tail -5 "$out/torch.txt" >> "$log"; rm -f "$out/torch.txt"
run_timed mpi mpi bin/podplan-calibrate --quick --db "$out/other.db" --storage-path "$st" \
	--label "mpirun -np 2, --quick"
# a full sweep killed mid-way: the store must pass integrity_check and keep its rows
say "kill"
bin/podplan-calibrate --db "$out/other.db" --label "killed with SIGKILL" > "$out/kill.txt" 2>&1 &
pid=$!
sleep 25
kill -9 $pid
wait $pid 2>/dev/null
echo "exit status after SIGKILL: $?" | tee -a "$log"
python3 - "$out/other.db" <<'EOF' 2>&1 | tee -a "$log"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("integrity_check:", db.execute("PRAGMA integrity_check").fetchone()[0])
for r in db.execute("SELECT r.id, r.status, count(m.id) FROM calib_runs r LEFT JOIN "
                    "calib_measurements m ON m.run_id = r.id GROUP BY r.id"):
    print("run %d: status %s, %d rows" % r)
EOF
grep -c '^ ' "$out/kill.txt" | sed 's/^/result lines printed before the kill: /' | tee -a "$log"
bin/podplan calib list --db "$out/other.db" >> "$log" 2>&1
bin/podplan calib export 1 --csv --db "$out/h200.db" -o "$out/h200-nvlink-2gpu.csv" >> "$log" 2>&1
bin/podplan calib show 1 --db "$out/h200.db" >> "$log" 2>&1
rm -f "$out"/other.db*
say "summary"
sed -n '/health verdict/,$p' "$out/full.txt"
tail -14 "$out/mpi.txt"
cat "$out/torch.json"
tail -16 "$log"
rm -rf "$st"
