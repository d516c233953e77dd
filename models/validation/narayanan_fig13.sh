#!/bin/sh
# models/validation/narayanan_fig13.sh [BIN] - podplan's ranking of the
# tensor x pipeline splits of Narayanan et al. SC'21 Figure 13 (GPT 161B:
# 32 layers, hidden 20480, 128 heads; 64 A100 80 GB, 8 per node; batch 32,
# 128 and 512; 2021 Megatron-LM settings as in sim/calib/validate.c: fp16, full
# recompute, micro-batch 1, no overlap). The paper's text: "we see peak
# performance when the tensor-parallel size is equal to the number of GPUs
# in a single node (8 with DGX A100 nodes)" at every batch size. Figure
# values are not transcribed here; the check is the ranking.
set -eu
bin=${1:-bin/podplan}
[ -x "$bin" ] || { echo "narayanan_fig13.sh: $bin not built (run make)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/pp-fig13.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '%-6s %-12s %12s  %s\n' batch "(t, p)" "TFLOP/s/GPU" "best?"
for gb in 32 128 512; do
	best=""
	bestv=0
	for tp in 2 4 8 16 32; do
		pp=$((64 / tp))
		f="$tmp/b$gb-t$tp.json"
		cat >"$f" <<JSON
{"name": "fig13 b$gb t$tp p$pp",
 "model": {"num_layers": 32, "hidden_size": 20480, "num_attention_heads": 128,
           "ffn_hidden_size": 81920, "vocab_size": 51200, "seq_length": 2048},
 "parallel": {"tensor_model_parallel_size": $tp, "pipeline_model_parallel_size": $pp,
              "data_parallel_size": 1, "context_parallel_size": 1,
              "sequence_parallel": false, "zero_stage": 0},
 "training": {"global_batch_size": $gb, "micro_batch_size": 1, "precision": "fp16",
              "recompute": "full", "use_flash_attn": false, "overlap_grad_reduce": false,
              "overlap_param_gather": false, "overlap_p2p_comm": false},
 "cluster": {"gpu": "a100-80gb", "num_gpus": 64, "gpus_per_node": 8, "intra_node": "nvlink3",
             "inter_node": {"fabric": "ib-hdr", "nics_per_node": 8}}}
JSON
		v=$("$bin" predict --json "$f" | sed -n 's/.*"hw_tflops_per_gpu": *\([0-9.]*\).*/\1/p')
		echo "$gb $tp $pp $v" >>"$tmp/rows"
	done
done
awk '{ v[NR] = $4; b[NR] = $1; t[NR] = $2; p[NR] = $3
       if ($4 > best[$1]) { best[$1] = $4; arg[$1] = $2 } }
     END { for (i = 1; i <= NR; i++)
		printf "%-6s (%2d, %2d)     %12.1f  %s\n", b[i], t[i], p[i], v[i],
		       arg[b[i]] == t[i] ? (t[i] == 8 ? "best (as published)" : "best (published: t = 8)") : "" }' "$tmp/rows"
