#!/bin/sh
# tests/t_import.sh - podplan import on launch configurations as published
# (tests/data/import/README.md names each file's source): each imports and
# predicts or serves, or is refused naming the argument; the scenario keys
# the importer writes are checked against the text (values read from the
# files, not from podplan's output); an unknown argument is refused with
# exit 2 and nothing written. TAP for prove; run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
d=tests/data/import
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-import.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
key() { # key FILE DOTTED.KEY: the value of a key of an imported scenario
	python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[k]
print(json.dumps(v))' "$1" "$2"
}

# imports and predicts (training)
imp() { # imp FILE ARGS...: import into $tmp/FILE.json then predict
	f=$1; shift
	"$bin" import megatron "$d/$f" "$@" -o "$tmp/$f.json" 2>"$tmp/err"
	ok $? "import megatron $f $*"
	"$bin" predict "$tmp/$f.json" >"$tmp/out" 2>&1 && grep -q '^Step time' "$tmp/out"
	ok $? "predict on the import of $f"
}
imp train_gpt3_175b_distributed.sh --vocab-size 50257 --num-gpus 1024
imp train_mixtral_8x7b_distributed.sh --vocab-size 32000 --num-gpus 64
imp pretrain_gpt_distributed_with_mp.sh --vocab-size 50257

# values as the scripts give them (Megatron pads the vocabulary to 128 x TP)
j=$tmp/train_gpt3_175b_distributed.sh.json
[ "$(key $j model.num_layers)" = 96 ] && [ "$(key $j model.hidden_size)" = 12288 ] &&
	[ "$(key $j parallel.tensor_model_parallel_size)" = 8 ] &&
	[ "$(key $j parallel.pipeline_model_parallel_size)" = 16 ] &&
	[ "$(key $j training.global_batch_size)" = 1536 ] &&
	[ "$(key $j training.precision)" = '"fp16"' ] &&
	[ "$(key $j model.vocab_size)" = 51200 ] &&
	[ "$(key $j model.ffn_hidden_size)" = 49152 ] &&
	[ "$(key $j model.untie_embeddings_and_output_weights)" = false ]
ok $? "gpt3 175B: 96 layers, hidden 12288, TP 8, PP 16, batch 1536, fp16, vocab 50257 padded to 51200, ffn 4h, tied"
j=$tmp/train_mixtral_8x7b_distributed.sh.json
[ "$(key $j model.num_experts)" = 8 ] && [ "$(key $j model.moe_router_topk)" = 2 ] &&
	[ "$(key $j parallel.expert_model_parallel_size)" = 8 ] &&
	[ "$(key $j parallel.zero_stage)" = 1 ] &&
	[ "$(key $j model.num_query_groups)" = 8 ] &&
	[ "$(key $j training.moe_token_dispatcher_type)" = '"alltoall"' ] &&
	! grep -q sequence_parallel $j
ok $? "mixtral: 8 experts top 2, EP 8, distributed optimizer = ZeRO-1, 8 groups, alltoall, no SP at TP 1"
j=$tmp/pretrain_gpt_distributed_with_mp.sh.json
[ "$(key $j cluster.num_gpus)" = 8 ] && [ "$(key $j parallel.sequence_parallel)" = true ] &&
	[ "$(key $j training.train_tokens)" = "$((500000 * 16 * 1024))" ]
ok $? "345M: torchrun's 8 x 1 GPUs, SP at TP 2, train_tokens = iters x batch x sequence"

# refused by name, nothing written
ref() { # ref FILE WORD ARGS...
	f=$1; w=$2; shift 2
	"$bin" import megatron "$d/$f" "$@" -o "$tmp/refused.json" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$w" "$tmp/err" && [ ! -e "$tmp/refused.json" ]
	ok $? "import megatron $f refused (exit $rc) naming $w"
}
# Megatron-LM's FP8 example: --fp8-format hybrid, --fp8-amax-*, --fp8-param-gather
# (its two tokenizers, one per branch of an if, are not read: --vocab-size is given)
"$bin" import megatron "$d/train_llama3_8b_h100_fp8.sh" -o "$tmp/fp8.json" 2>"$tmp/err" &&
	[ "$(key "$tmp/fp8.json" training.precision)" = '"fp8"' ] &&
	[ "$(key "$tmp/fp8.json" training.fp8_param_gather)" = true ] &&
	"$bin" predict "$tmp/fp8.json" >"$tmp/out" 2>&1 && grep -q 'Step time' "$tmp/out"
ok $? "import megatron train_llama3_8b_h100_fp8.sh: fp8, fp8_param_gather, predicts"
# what --fp8-param-gather changes: the layers' weights at 1 byte instead of 2
# (32 x (2 x 4096^2 + 2 x 1024 x 4096 + 3 x 4096 x 14336 + 2 x 4096) =
# 6,979,584,000 bytes less; embedding and output layer stay 16-bit), and the
# distributed optimizer's all-gather halved (exposed on 2 nodes without overlap)
fp8pair() { # fp8pair GPUS OVERLAP: predict --json with and without fp8_param_gather
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); d["cluster"]["num_gpus"]=int(sys.argv[3]); d["training"]["overlap_param_gather"]=sys.argv[4]=="1"
json.dump(d,open(sys.argv[2]+"-on.json","w")); d["training"]["fp8_param_gather"]=False; json.dump(d,open(sys.argv[2]+"-off.json","w"))' "$tmp/fp8.json" "$tmp/pair" "$1" "$2"
	"$bin" predict --json "$tmp/pair-on.json" >"$tmp/on.out" && "$bin" predict --json "$tmp/pair-off.json" >"$tmp/off.out"
}
fp8pair 8 1 && python3 -c 'import json,sys
a,b=[json.load(open(f))["memory"]["breakdown"]["weights_bytes"] for f in sys.argv[1:]]
print("# weights %.0f bytes with, %.0f without" % (a, b)); sys.exit(0 if abs((b-a)-6979584000)<=1e-3*6979584000 else 1)' "$tmp/on.out" "$tmp/off.out"
ok $? "fp8_param_gather: the layers' weights 1 byte each (6.98e9 bytes less on Llama 3 8B)"
fp8pair 16 0 && python3 -c 'import json,sys
a,b=[json.load(open(f))["breakdown"]["dp_comm_exposed_s"] for f in sys.argv[1:]]
print("# exposed data-parallel comm %.4g s with, %.4g s without" % (a, b)); sys.exit(0 if 0 < a < b else 1)' "$tmp/on.out" "$tmp/off.out"
ok $? "fp8_param_gather: a shorter exposed all-gather (1 byte a parameter instead of 2)"
python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); d["training"]["precision"]="bf16"; json.dump(d,open(sys.argv[2],"w"))' "$tmp/fp8.json" "$tmp/bf.json"
"$bin" check "$tmp/bf.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'training.fp8_param_gather: found true with precision bf16; expected precision fp8' "$tmp/err"
ok $? "fp8_param_gather without fp8: exit 2 naming the key"
ref Llama-3.1-8B-Instruct.sh --attention-dropout --vocab-size 128256 --num-gpus 8
ref Qwen3-8B.sh --attention-dropout --vocab-size 151643 --num-gpus 8
printf 'torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 128 --vocab-size 1000 --frobnicate 3\n' >"$tmp/bad.sh"
"$bin" import megatron "$tmp/bad.sh" -o "$tmp/refused.json" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "bad.sh:1: --frobnicate" "$tmp/err" && [ ! -e "$tmp/refused.json" ]
ok $? "an unknown argument: exit 2 naming file:line and the argument"

# vllm serve (+ vllm bench serve): imports and serves
vl() { # vl FILE ARGS...
	f=$1; shift
	"$bin" import vllm "$d/$f" "$@" -o "$tmp/$f.json" 2>"$tmp/err"
	ok $? "import vllm $f $*"
	"$bin" serve "$tmp/$f.json" >"$tmp/out" 2>&1 && grep -q 'Output token throughput' "$tmp/out"
	ok $? "serve on the import of $f"
}
vl qwen3-235b-a22b-bf16.vllm.sh --gpu b200
vl qwen3-235b-a22b-fp8.vllm.sh --gpu h200
vl gpt-oss-120b-8xh100.vllm.sh
j=$tmp/qwen3-235b-a22b-fp8.vllm.sh.json
[ "$(key $j model.preset)" = '"qwen3-235b-a22b"' ] && [ "$(key $j serving.precision)" = '"fp8"' ] &&
	[ "$(key $j serving.tensor_parallel_size)" = 4 ] &&
	[ "$(key $j serving.enable_prefix_caching)" = false ] &&
	[ "$(key $j serving.gpu_memory_utilization)" = 0.8 ] &&
	[ "$(key $j workload.input_len)" = 8192 ] && [ "$(key $j workload.output_len)" = 1024 ] &&
	[ "$(key $j workload.num_prompts)" = 16 ] && [ "$(key $j cluster.num_gpus)" = 4 ]
ok $? "qwen3 FP8: preset from the repository name, -FP8 weights, -tp 4, prefix caching off, bench serve 8192/1024 x 16"
j=$tmp/gpt-oss-120b-8xh100.vllm.sh.json
[ "$(key $j serving.tensor_parallel_size)" = 8 ] && [ "$(key $j serving.max_model_len)" = 131072 ] &&
	[ "$(key $j serving.max_num_seqs)" = 128 ]
ok $? "gpt-oss: --tensor_parallel_size (underscores) 8, max_model_len 131072, max_num_seqs 128"
printf 'vllm serve Qwen/Qwen3-30B-A3B --speculative-config {}\n' >"$tmp/spec.sh"
"$bin" import vllm "$tmp/spec.sh" 2>"$tmp/err" >/dev/null
[ $? -eq 2 ] && grep -q -- "--speculative-config: refused" "$tmp/err"
ok $? "vllm --speculative-config refused by name"
# FP4: vLLM's --quantization names and NVIDIA's -FP4 checkpoints
printf 'vllm serve meta-llama/Llama-3.1-8B-Instruct --quantization modelopt_fp4\n' >"$tmp/nvfp4.sh"
printf 'vllm serve meta-llama/Llama-3.1-8B-Instruct --quantization mxfp4\n' >"$tmp/mxfp4.sh"
printf 'vllm serve nvidia/Llama-3.1-8B-Instruct-FP4\n' >"$tmp/fp4name.sh"
"$bin" import vllm "$tmp/nvfp4.sh" --model llama3-8b --gpu b200 -o "$tmp/nvfp4.json" 2>"$tmp/err" &&
	"$bin" import vllm "$tmp/mxfp4.sh" --model llama3-8b --gpu mi355x -o "$tmp/mxfp4.json" 2>>"$tmp/err" &&
	"$bin" import vllm "$tmp/fp4name.sh" --model llama3-8b --gpu b200 -o "$tmp/fp4name.json" 2>>"$tmp/err" &&
	[ "$(key "$tmp/nvfp4.json" serving.precision)" = '"nvfp4"' ] &&
	[ "$(key "$tmp/mxfp4.json" serving.precision)" = '"mxfp4"' ] &&
	[ "$(key "$tmp/fp4name.json" serving.precision)" = '"nvfp4"' ] &&
	"$bin" serve "$tmp/nvfp4.json" >"$tmp/out" 2>&1 && grep -q 'nvfp4 weights' "$tmp/out"
ok $? "vllm --quantization modelopt_fp4: nvfp4, mxfp4: mxfp4, a -FP4 name: nvfp4; serves on B200"
printf 'vllm serve amd/Llama-3.1-8B-Instruct-MXFP4 --quantization quark\n' >"$tmp/quark.sh"
"$bin" import vllm "$tmp/quark.sh" --model llama3-8b 2>"$tmp/err" >/dev/null
[ $? -eq 2 ] && grep -q -- '--quantization: found "quark": refused' "$tmp/err"
ok $? "vllm --quantization quark refused: the format is in the checkpoint"

# Megatron-Bridge recipes (NeMo's), the Python modules as published
br() { # br FILE RECIPE: import nemo into $tmp/RECIPE.json, then predict
	"$bin" import nemo "$d/$1" --recipe "$2" -o "$tmp/$2.json" 2>"$tmp/err"
	ok $? "import nemo $1 --recipe $2"
	"$bin" predict "$tmp/$2.json" >"$tmp/out" 2>&1 && grep -q '^Step time' "$tmp/out"
	ok $? "predict on the import of $2"
}
br bridge-llama-h100-llama3.py llama3_70b_pretrain_32gpu_h100_bf16_config
br bridge-llama-h100-llama3.py llama31_405b_pretrain_256gpu_h100_bf16_config
br bridge-qwen-h100-qwen3.py qwen3_32b_pretrain_16gpu_h100_bf16_config
# values as the recipe sets them: NullTokenizer's 32,000 padded to 128 x TP 4
# = 512: 63 x 512 = 32,256; 32 GPUs from the name; CommOverlapConfig
j=$tmp/llama3_70b_pretrain_32gpu_h100_bf16_config.json
[ "$(key $j model.preset)" = '"llama3-70b"' ] && [ "$(key $j model.seq_length)" = 8192 ] &&
	[ "$(key $j model.vocab_size)" = 32256 ] &&
	[ "$(key $j parallel.tensor_model_parallel_size)" = 4 ] &&
	[ "$(key $j parallel.pipeline_model_parallel_size)" = 4 ] &&
	[ "$(key $j parallel.virtual_pipeline_model_parallel_size)" = 5 ] &&
	[ "$(key $j parallel.context_parallel_size)" = 2 ] &&
	[ "$(key $j parallel.sequence_parallel)" = true ] && [ "$(key $j parallel.zero_stage)" = 1 ] &&
	[ "$(key $j training.global_batch_size)" = 512 ] && [ "$(key $j training.micro_batch_size)" = 1 ] &&
	[ "$(key $j training.tp_comm_overlap)" = true ] && [ "$(key $j training.framework)" = '"nemo"' ] &&
	[ "$(key $j training.train_tokens)" = "$((1168251 * 512 * 8192))" ] &&
	[ "$(key $j cluster.num_gpus)" = 32 ] && [ "$(key $j cluster.gpu)" = '"h100-sxm"' ]
ok $? "llama3 70B recipe: TP 4 PP 4 VPP 5 CP 2 SP, batch 512 of 1, vocab 32000 padded to 32256, TP overlap, 32 H100"
# the embedding and the loss counted as a layer each: (126 + 2) / (8 x 2) = 8
# a virtual stage, one fewer on the first and the last; 128K from the module constant
j=$tmp/llama31_405b_pretrain_256gpu_h100_bf16_config.json
[ "$(key $j parallel.pipeline_model_parallel_layout)" = '"Et*7|(t*8|)*14t*7L"' ] &&
	[ "$(key $j model.seq_length)" = 131072 ] && [ "$(key $j model.vocab_size)" = 32768 ]
ok $? "llama3.1 405B recipe: account_for_embedding/loss as the layout Et*7|(t*8|)*14t*7L, SEQUENCE_LENGTH_128K, vocab 32768 at TP 8"
# _pretrain_common()'s batch (32 of 2), full recompute, no comm_overlap
j=$tmp/qwen3_32b_pretrain_16gpu_h100_bf16_config.json
[ "$(key $j training.global_batch_size)" = 32 ] && [ "$(key $j training.micro_batch_size)" = 2 ] &&
	[ "$(key $j training.recompute)" = '"full"' ] && [ "$(key $j training.tp_comm_overlap)" = false ] &&
	[ "$(key $j model.seq_length)" = 4096 ] && ! grep -q vocab_size $j && ! grep -q sequence_parallel $j
ok $? "qwen3 32B recipe: _pretrain_common's batch 32 of 2, full recompute, comm_overlap None, the model's vocabulary"
nref() { # nref FILE RECIPE WORD: refused naming WORD, nothing written
	"$bin" import nemo "$d/$1" ${2:+--recipe "$2"} -o "$tmp/refused.json" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$3" "$tmp/err" && [ ! -e "$tmp/refused.json" ]
	ok $? "import nemo $1 ${2:-(no recipe)} refused (exit $rc) naming $3"
}
nref bridge-qwen-h100-qwen3_moe.py qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config "qwen3_moe.py:137: the flex token dispatcher"
nref bridge-llama-h100-llama3.py llama3_70b_pretrain_32gpu_h100_bf16_deterministic_config "llama3.py:818: apply_determinism_overrides(cfg): refused"
nref bridge-qwen-h100-qwen3.py qwen3_8b_pretrain_16gpu_h100_bf16_config "cfg.optimizer.use_precision_aware_optimizer = True: refused"
nref bridge-qwen-h100-qwen3.py "" "found 22 recipe functions"
printf 'def r_config():\n    cfg = _pretrain_common()\n    cfg.model = AutoBridge.from_hf_pretrained("Qwen/Qwen3-8B").to_megatron_provider()\n    cfg.model.tensor_model_paralel_size = 2\n    return cfg\n' >"$tmp/bad.py"
"$bin" import nemo "$tmp/bad.py" -o "$tmp/refused.json" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad.py:4: cfg.model.tensor_model_paralel_size = 2: not a field podplan knows (did you mean cfg.model.tensor_model_parallel_size?)" "$tmp/err" && [ ! -e "$tmp/refused.json" ]
ok $? "a misspelt recipe field: exit 2 naming file:line and the field, with the nearest"

# the mapping table names every rule's argument
"$bin" import --mapping >"$tmp/map" && grep -q '`--use-distributed-optimizer` | mapped | `parallel.zero_stage`' "$tmp/map" &&
	grep -q '`--random-input-len` V | mapped | `workload.input_len`' "$tmp/map" &&
	grep -q '`model.tensor_model_parallel_size` V | mapped | `parallel.tensor_model_parallel_size`' "$tmp/map"
ok $? "import --mapping prints the rules"
echo "1..$n"
