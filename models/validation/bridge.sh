#!/bin/sh
# models/validation/bridge.sh [BIN] - podplan predict against NVIDIA's
# published Megatron-Bridge pre-training throughput of the dense Llama 3
# models (8B, 70B, 3.1 405B; containers 25.09 and 25.11; DGX-H100, DGX-B200,
# DGX-GB200; NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md
# @ 0a25f911). Each row of models/validation/bridge-published.csv names a
# scenario under models/validation/bridge/ that states the published
# configuration (and, in _source / _assumed, the row and recipe it was read
# from and what podplan assumed or cannot follow); its measured step
# (measured_s = GBS x seq / (tokens/s/GPU x GPUs)) stays as it is. This
# rewrites predicted_s (`podplan predict SCENARIO --json` step_time_s),
# error_pct (predicted / measured - 1, in percent) and predicted_memory_gib
# (memory.per_gpu_bytes in GiB), and prints the table as
# `podplan validate --replay` reads the file.
# predicted_at_commit and the columns rewritten: models/validation/repredict.sh.
exec sh models/validation/repredict.sh models/validation/bridge-published.csv models/validation/bridge "${1:-bin/podplan}"
