#!/bin/bash
# models/validation/framework/campaign7b.sh - campaign 7b of issue 14: mem_trace.py
# of a DDP and an FSDP2 row (PREDICTION.md); files under $OUT.
out=${OUT:-/tmp/out}; mkdir -p $out
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
d=models/validation/framework
for c in fw-h200-ddp-3b-s8k-mb1-full fw-h200-fsdp2-3b-s8k-mb1-full fw-h200-ddp-1b-s4k-mb2-none; do
  timeout -k 5 120 python3 $d/mem_trace.py --only $c --variant default --phases $out/phases.csv --segments $out/segments.csv --final $out/final.csv >> $out/log.txt 2>&1
  echo "$c exit $?" >> $out/log.txt
done
tail -8 $out/log.txt
