#!/bin/sh
# models/validation/llama3.sh [BIN] - podplan predict against Llama 3 405B's
# pre-training throughput as Meta published it (arXiv:2407.21783 Table 4:
# 8,192 H100 at TP 8 PP 16 DP 64, 430 TFLOP/s per GPU; 16,384 H100 at DP 128,
# 400; 16,384 H100 at CP 16 DP 8 and sequence 131,072, 380). Each row of
# models/validation/llama3-published.csv names a scenario under
# models/validation/llama3/ that states Meta's configuration (_source) and
# what podplan assumed where the paper is silent (_assumed: the chunks per
# stage of the interleaved schedule, the kernel stack); its measured step
# (measured_s = tokens per step x (6 P + 12 L h s) FLOPs per token /
# (TFLOP/s x 1e12 x GPUs), PaLM's MFU count) stays as it is. This rewrites
# predicted_s, error_pct and predicted_memory_gib and prints the table as
# `podplan validate --replay` reads the file (models/validation/repredict.sh).
# What differs and why: docs/validation.md, "Llama 3 405B".
exec sh models/validation/repredict.sh models/validation/llama3-published.csv models/validation/llama3 "${1:-bin/podplan}"
