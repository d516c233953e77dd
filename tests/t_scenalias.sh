#!/bin/sh
# tests/t_scenalias.sh - a scenario file written with Megatron-LM's and
# vLLM's own names (the aliases of `podplan import --mapping scenario`)
# resolves exactly as the same file written with podplan's keys (`podplan
# check` prints the same, but the file name); an alias beside its podplan
# key with another value, and a value the alias does not take, exit 2
# naming the alias. TAP; run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-alias.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
same() { # same A B WHAT: check A and B print the same resolution
	"$bin" check "$tmp/$1" 2>&1 | sed 1d >"$tmp/a.out"
	"$bin" check "$tmp/$2" 2>&1 | sed 1d >"$tmp/b.out"
	cmp -s "$tmp/a.out" "$tmp/b.out" && [ -s "$tmp/a.out" ]
	ok $? "$3"
}
cat >"$tmp/m.json" <<'J'
{"name": "x", "model": {"preset": "llama3-70b"},
 "training": {"use_distributed_optimizer": true, "recompute_granularity": "selective", "bf16": true,
              "seq_length": 4096, "lr": 3e-4, "weight_decay": 0.1, "global_batch_size": 64},
 "parallel": {"tensor_model_parallel_size": 8, "pipeline_model_parallel_size": 4,
              "num_layers_per_virtual_pipeline_stage": 5},
 "cluster": {"gpu": "h100-sxm", "num_gpus": 64}}
J
cat >"$tmp/p.json" <<'J'
{"name": "x", "model": {"preset": "llama3-70b", "seq_length": 4096},
 "training": {"recompute": "selective", "precision": "bf16", "global_batch_size": 64},
 "parallel": {"tensor_model_parallel_size": 8, "pipeline_model_parallel_size": 4, "zero_stage": 1,
              "virtual_pipeline_model_parallel_size": 4},
 "cluster": {"gpu": "h100-sxm", "num_gpus": 64}}
J
same m.json p.json "Megatron's names: distributed optimizer = ZeRO-1, recompute_granularity, bf16, training.seq_length, 80 layers / (PP 4 x 5) = 4 virtual stages, lr dropped"
cat >"$tmp/v.json" <<'J'
{"name": "y", "model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm", "num_gpus": 1},
 "serving": {"engine": "vllm", "dtype": "bfloat16", "quantization": "fp8"},
 "workload": {"num_prompts": 50, "random_input_len": 512, "random_output_len": 64, "random_range_ratio": 0.5}}
J
cat >"$tmp/w.json" <<'J'
{"name": "y", "model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm", "num_gpus": 1},
 "serving": {"engine": "vllm", "precision": "fp8"},
 "workload": {"num_prompts": 50, "input_len": 512, "output_len": 64, "range_ratio": 0.5}}
J
same v.json w.json "vLLM's names: quantization fp8 with dtype bfloat16 = precision fp8; random_input_len / random_output_len / random_range_ratio"
sed 's/"bf16": true,/"bf16": true, "precision": "fp8",/' "$tmp/m.json" >"$tmp/c.json"
"$bin" check "$tmp/c.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'training.bf16: found beside training.precision with another value' "$tmp/err"
ok $? "bf16 beside precision fp8: exit 2 naming training.bf16"
sed 's/"num_layers_per_virtual_pipeline_stage": 5/"num_layers_per_virtual_pipeline_stage": 3/' "$tmp/m.json" >"$tmp/c.json"
"$bin" check "$tmp/c.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'parallel.num_layers_per_virtual_pipeline_stage: found the number 3' "$tmp/err"
ok $? "3 layers a virtual stage for 20 a stage: exit 2 naming the alias"
sed 's/"bfloat16"/"float32"/' "$tmp/v.json" >"$tmp/c.json"
"$bin" check "$tmp/c.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'serving.dtype: found' "$tmp/err"
ok $? "vLLM dtype float32: exit 2 naming serving.dtype"
# the zero-bubble fork's Megatron flags (sail-sg/zero-bubble-pipeline-parallelism
# megatron/core/zbpp_utils.py) and training.pipeline_schedule
zb() { # zb NAME PARALLEL-EXTRA TRAINING-EXTRA
	cat >"$tmp/$1" <<J
{"name": "z", "model": {"preset": "gpt-1.7b", "num_layers": 16},
 "training": {"global_batch_size": 32$3},
 "parallel": {"pipeline_model_parallel_size": 4$2},
 "cluster": {"gpu": "h100-sxm", "num_gpus": 8}}
J
}
zb zp1.json ', "pipeline_schedule": "zb-h1"' ''
zb zf1.json ', "enable_zero_bubble": true, "zero_bubble_max_pending_backward": "4"' ''
same zf1.json zp1.json "enable_zero_bubble with 4 pending backwards on 4 stages = zb-h1"
zb zp2.json ', "pipeline_schedule": "zb-h2"' ''
zb zf2.json '' ', "enable_zero_bubble": true, "zero_bubble_max_pending_backward": 8'
same zf2.json zp2.json "training.enable_zero_bubble with 8 pending backwards on 4 stages = zb-h2"
zb zpv.json ', "pipeline_schedule": "zbv"' ''
zb zfv.json ', "enable_zero_bubble": true, "zero_bubble_v_schedule": true, "zero_bubble_v_schedule_mem_setup": "zb"' ''
same zfv.json zpv.json "zero_bubble_v_schedule (with enable_zero_bubble, mem setup zb) = zbv"
zb ztv.json '' ', "pipeline_schedule": "zbv"'
same ztv.json zpv.json "training.pipeline_schedule = parallel.pipeline_schedule"
zb zc.json ', "enable_zero_bubble": true' ''
"$bin" check "$tmp/zc.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'parallel.enable_zero_bubble: found true with zero_bubble_max_pending_backward (not given: auto)' "$tmp/err"
ok $? "enable_zero_bubble with the fork's auto limit: exit 2 naming the flag"
zb zm.json ', "zero_bubble_v_schedule": true, "zero_bubble_v_schedule_mem_setup": "half"' ''
"$bin" check "$tmp/zm.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'parallel.zero_bubble_v_schedule_mem_setup: found' "$tmp/err"
ok $? "V-Half memory setup: exit 2 naming the flag"
echo "1..$n"
