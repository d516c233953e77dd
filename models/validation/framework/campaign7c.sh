#!/bin/bash
# models/validation/framework/campaign7c.sh - campaign 7c of issue 14: where
# the first step's optimizer states went and where the second step's loss
# chain blocks came from, plain against DDP (mem_trace.py --allocs, every
# block of 16 MiB or more with its address); files under $OUT.
out=${OUT:-/tmp/out}; mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
d=models/validation/framework
for c in fw-h200-plain-3b-s8k-mb1-full fw-h200-ddp-3b-s8k-mb1-full; do
	timeout -k 5 120 python3 $d/mem_trace.py --only $c --variant default --steps 2 \
		--phases "$out/phases.csv" --segments "$out/segments.csv" --final "$out/final.csv" \
		--allocs "$out/allocs.csv" >> "$out/log.txt" 2>&1
	echo "$c exit $?" >> "$out/log.txt"
done
grep -E "reserved|exit" "$out/log.txt"
