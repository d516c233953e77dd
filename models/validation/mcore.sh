#!/bin/sh
# models/validation/mcore.sh [BIN] - podplan predict against the weak-scaling
# table of NVIDIA's Megatron-LM README (GPT 1.7B to 462B, bf16, sequence
# 4096, vocabulary 131072, 48 to 6144 H100, Megatron-Core r0.8.0;
# images/model_table.png @ f2e5db40). Each row of
# models/validation/mcore-published.csv names a scenario under
# models/validation/mcore/ that states the published configuration (and, in
# _source / _assumed, the row it was read from and what podplan assumed:
# micro-batch 1, no virtual pipeline, no recompute); its measured step
# (measured_s = Megatron's model FLOPs per step / (TFLOP/s per GPU x 1e12 x
# GPUs), the FLOPs of training.py num_floating_point_operations at
# core_r0.8.0) stays as it is. This rewrites predicted_s (`podplan predict
# SCENARIO --json` step_time_s), error_pct (predicted / measured - 1, in
# percent) and predicted_memory_gib (memory.per_gpu_bytes in GiB), and prints
# the table as `podplan validate --replay` reads the file.
# predicted_at_commit and the columns rewritten: models/validation/repredict.sh.
exec sh models/validation/repredict.sh models/validation/mcore-published.csv models/validation/mcore "${1:-bin/podplan}"
