#!/bin/sh
# tests/t_hfconfig.sh - Hugging Face config.json files as published
# (tests/data/hf/README.md names each source) read by model.hf_config:
# each predicts, with podplan's parameter count within 2% of the model
# card's figure (written here from the card, not from podplan); a key that
# cannot change the step is accepted, and the table of such keys
# (podplan import --mapping hf) gives each a reason; dropout at another rate
# than podplan costs, and a key podplan does not know, are refused by name.
# TAP for prove; run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-hf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
scen() { # scen CONFIG GPUS TP: a scenario reading CONFIG
	printf '{"model": {"hf_config": "%s"}, "cluster": {"gpu": "h100-sxm", "num_gpus": %s}, "parallel": {"tensor_model_parallel_size": %s}}\n' "$1" "$2" "$3" >"$tmp/s.json"
}
card() { # card FILE PARAMS_FROM_THE_CARD GPUS TP
	scen "$repo/tests/data/hf/$1" "$3" "$4"
	"$bin" predict --json "$tmp/s.json" >"$tmp/p.json" 2>"$tmp/err"
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["params_total"])' "$tmp/p.json" 2>/dev/null)
	python3 -c 'import sys; g,w=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(g-w)<=0.02*w else 1)' "${got:-0}" "$2"
	ok $? "$1: predicts, $got parameters against the card's $2"
}
card phi-3-mini-4k-instruct-config.json 3.8e9 8 8   # "3.8B parameters" (model card)
card gpt2-config.json 124e6 4 4                      # 124M (openai-community/gpt2 card)
card qwen2-72b-instruct-config.json 72.71e9 8 8      # "Number of Parameters: 72.71B" (Qwen2 card)
# hand counts from the weight shapes published beside the configs (README):
# Granite: embedding 49159 x 4096 (tied) + 40 x (q, o 4096^2; k, v 1024 x 4096;
# gate, up, down 12800 x 4096) = 8.171e9; OLMo 2: 2 x 100352 x 4096 (untied)
# + 32 x (4 x 4096^2 + 3 x 11008 x 4096) = 7.299e9 (norms under 0.01%)
card granite-3.3-8b-instruct-config.json 8.171e9 8 8
card olmo-2-7b-instruct-config.json 7.299e9 8 8

# Gemma 3 1B (gemma3_text): "1B" on the card; its sliding_window_pattern 6
# (five 512-token sliding layers per global one) read: shorter than the
# same file without the window, longer than with a window on every layer
card gemma-3-1b-it-config.json 1.0e9 4 4
scen "$repo/tests/data/hf/gemma-3-1b-it-config.json" 4 4
"$bin" predict --json "$tmp/s.json" >"$tmp/g.json" 2>&1
sed 's/"sliding_window": 512/"sliding_window": null/' tests/data/hf/gemma-3-1b-it-config.json >"$tmp/gnw.json"
scen "$tmp/gnw.json" 4 4
"$bin" predict --json "$tmp/s.json" >"$tmp/gnw.out" 2>&1
sed 's/"sliding_window_pattern": 6/"sliding_window_pattern": 1000/' tests/data/hf/gemma-3-1b-it-config.json >"$tmp/gall.json"
scen "$tmp/gall.json" 4 4
"$bin" predict --json "$tmp/s.json" >"$tmp/gall.out" 2>&1
python3 -c 'import json,sys
a,b,c=[json.load(open(f))["step_time_s"] for f in sys.argv[1:]]
print("# step %.4g s (5 of 6 sliding), %.4g s (none), %.4g s (all)" % (a, b, c)); sys.exit(0 if c < a < b else 1)' "$tmp/g.json" "$tmp/gnw.out" "$tmp/gall.out"
ok $? "gemma-3-1b: 5 of 6 layers sliding: between no window and a window on every layer"

# Gemma 2 9B (gemma2, transformers 4.42.0.dev0 save): the hand count of its
# weight shapes - embedding 256000 x 3584 (tied) + 42 x (q, o 3584 x 4096;
# k, v 3584 x 2048; gate, up, down 3584 x 14336; four norms 3584) + the final
# norm = 9,241,705,984 ("9B" on the card); podplan counts two norms a layer
# (0.003% fewer). The window under both names (sliding_window and the
# earlier sliding_window_size) is read once; a disagreement is refused.
card gemma-2-9b-it-config.json 9.2417e9 8 8
sed 's/"sliding_window_size": 4096/"sliding_window_size": 2048/' tests/data/hf/gemma-2-9b-it-config.json >"$tmp/g2.json"
scen "$tmp/g2.json" 8 8
"$bin" predict "$tmp/s.json" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "sliding_window_size: found 2048 beside sliding_window 4096" "$tmp/err"
ok $? "gemma-2-9b: sliding_window_size 2048 beside sliding_window 4096 refused (exit $rc)"

moe() { # moe FILE GPUS TP EP: a scenario for an expert model without its MTP module
	printf '{"model": {"hf_config": "%s", "mtp_num_layers": 0}, "cluster": {"gpu": "h100-sxm", "num_gpus": %s}, "parallel": {"tensor_model_parallel_size": %s, "expert_model_parallel_size": %s, "sequence_parallel": true}, "training": {"seq_length": 4096}}\n' "$repo/tests/data/hf/$1" "$2" "$3" "$4" >"$tmp/s.json"
	"$bin" predict --json "$tmp/s.json" >"$tmp/p.json" 2>"$tmp/err"
}
# Kimi K2 (model_type kimi_k2): the published weights' shapes sum to
# 1,026,470,731,056 parameters (README); the card's 32B activated leaves the
# input embedding (163840 x 7168) out, as DeepSeek-V3's README does
moe kimi-k2-instruct-config.json 1024 8 32
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t,a=d["params_total"],d["params_active"]-163840*7168
print("# %.4g total, %.4g active without the input embedding" % (t, a)); sys.exit(0 if abs(t-1.02647e12)<=0.02*1.02647e12 and abs(a-32e9)<=0.02*32e9 and d["step_time_s"]>0 else 1)' "$tmp/p.json"
ok $? "kimi-k2-instruct: predicts, total and active within 2% of the weights and the card"
# GLM-4.5-Air (glm4_moe): card 106B total, 12B active; Zhipu's active count
# leaves out the embedding and the output layer (2 x 151552 x 4096)
moe glm-4.5-air-config.json 64 4 8
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t,a=d["params_total"],d["params_active"]-2*151552*4096
print("# %.4g total, %.4g active without embedding and output" % (t, a)); sys.exit(0 if abs(t-106e9)<=0.02*106e9 and abs(a-12e9)<=0.02*12e9 and d["step_time_s"]>0 else 1)' "$tmp/p.json"
ok $? "glm-4.5-air: predicts, total and active within 2% of the card"
# GLM-4.5 (355B; a fixture from sources, not the published file: README):
# card 355B total, 32B active without the embedding and the output layer
# (2 x 151552 x 5120)
moe glm-4.5-config.json 256 4 16
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t,a=d["params_total"],d["params_active"]-2*151552*5120
print("# %.4g total, %.4g active without embedding and output" % (t, a)); sys.exit(0 if abs(t-355e9)<=0.02*355e9 and abs(a-32e9)<=0.02*32e9 and d["step_time_s"]>0 else 1)' "$tmp/p.json"
ok $? "glm-4.5 (355B): predicts, total and active within 2% of the card"
scen "$repo/tests/data/hf/glm-4.5-air-config.json" 8 1
"$bin" check "$tmp/s.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'num_nextn_predict_layers: found 1' "$tmp/err"
ok $? "glm-4.5-air: its MTP layer is not dropped silently (exit 2 until mtp_num_layers is set)"
# Llama 4 Scout (model_type llama4, text_config llama4_text): the hand count
# of the language model's weight shapes (README): embedding and output
# 2 x 202048 x 5120; a layer: q, o 2 x 5120^2, k, v 2 x 1024 x 5120, 16
# experts and the shared one 17 x 3 x 5120 x 8192, router 5120 x 16, two
# norms; 48 layers and the final norm = 107,769,861,120 (the card's 109B
# counts the vision encoder too); active: one expert and the shared one
ms=$(python3 -c 'h=5120;L=48;v=202048;e=3*h*8192;a=2*h*h+2*1024*h
print(2*v*h + L*(a + 17*e + h*16 + 2*h) + h, 2*v*h + L*(a + 2*e + h*16 + 2*h) + h)')
l4() { # l4 CONFIG SEQ: a scenario reading a Llama 4 config at sequence SEQ
	printf '{"model": {"hf_config": "%s", "seq_length": %s}, "cluster": {"gpu": "h100-sxm", "num_gpus": 64}, "parallel": {"tensor_model_parallel_size": 4, "expert_model_parallel_size": 16, "sequence_parallel": true}}\n' "$1" "$2" >"$tmp/s.json"
}
l4 "$repo/tests/data/hf/llama-4-scout-17b-16e-config.json" 8192
"$bin" predict --json "$tmp/s.json" >"$tmp/p.json" 2>"$tmp/err"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t,a=map(float,sys.argv[2].split())
print("# %.0f total (hand %.0f), %.0f active (hand %.0f)" % (d["params_total"], t, d["params_active"], a))
sys.exit(0 if d["params_total"]==t and d["params_active"]==a and abs(a-17e9)<=0.02*17e9 and d["step_time_s"]>0 else 1)' "$tmp/p.json" "$ms"
ok $? "llama-4-scout: predicts; parameters equal the hand count of the weight shapes, 17B active as the card"
# Maverick's interleave (interleave_moe_layer_step 2, 128 experts, no
# moe_layers list: transformers' default, the odd layers MoE, the even ones
# a dense MLP of intermediate_size_mlp 16384): the card's 400B
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["text_config"]; t["interleave_moe_layer_step"]=2; t["num_local_experts"]=128; del t["moe_layers"]
json.dump(d,open(sys.argv[2],"w"),indent=1)' tests/data/hf/llama-4-scout-17b-16e-config.json "$tmp/mav.json"
l4 "$tmp/mav.json" 8192
"$bin" predict --json "$tmp/s.json" >"$tmp/p.json" 2>"$tmp/err"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["params_total"]
print("# %.4g total" % t); sys.exit(0 if abs(t-400e9)<=0.02*400e9 else 1)' "$tmp/p.json"
ok $? "llama-4 interleave step 2 with 128 experts (Maverick's layout): 400B within 2% of the card"
# chunked attention beyond one chunk is not modelled: refused by name
l4 "$repo/tests/data/hf/llama-4-scout-17b-16e-config.json" 16384
"$bin" check "$tmp/s.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'model.seq_length: found 16384 with chunked attention in chunks of 8192' "$tmp/err"
ok $? "llama-4: a sequence longer than attention_chunk_size refused naming model.seq_length"
# Qwen3-Next-80B-A3B-Instruct (qwen3_next): 36 Gated DeltaNet layers and 12
# gated-attention layers, 512 experts top 10 and a shared one. Training
# predicts end to end; the total is the hand count of the checkpoint's
# weight shapes (tests/test_gdn.c spells it out: 79,674,391,296 without the
# MTP tensors) less the q/k norms and shared-expert gates podplan leaves out
# (104,448), within 2% of the card's 80B; the card's "3B activated" is the
# name's round figure (3.87B by the shapes, 0.62B of it the two embeddings).
qn() { # qn TP EP: a training scenario reading the Qwen3-Next config
	printf '{"model": {"hf_config": "%s", "seq_length": 4096}, "cluster": {"gpu": "h100-sxm", "num_gpus": 64}, "parallel": {"tensor_model_parallel_size": %s, "expert_model_parallel_size": %s, "pipeline_model_parallel_size": 2, "sequence_parallel": true}, "training": {"micro_batch_size": 1, "global_batch_size": 256}}\n' "$repo/tests/data/hf/qwen3-next-80b-a3b-instruct-config.json" "$1" "$2" >"$tmp/s.json"
}
qn 1 32
"$bin" predict --json "$tmp/s.json" >"$tmp/p.json" 2>"$tmp/err"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
t,a=d["params_total"],d["params_active"]; hand=79674391296-104448
print("# %.0f total (shapes %d), %.0f active, step %.3f s, MFU %.1f%%" % (t, hand, a, d["step_time_s"], 100*d.get("mfu",0)))
sys.exit(0 if t==hand and abs(t-80e9)<=0.02*80e9 and a==3874929408-104448 and d["step_time_s"]>0 else 1)' "$tmp/p.json"
ok $? "qwen3-next-80b-a3b: training predicts; parameters equal the weight shapes' count, 80B within 2% of the card"
# with the scenario's mtp_num_layers 1, the checkpoint's mtp.* tensors (a
# gated-attention MoE layer, fc 2048 x 4096, three norms) count too: the
# checkpoint's 81,324,862,720 less the omitted norms and gates (107,008)
sed 's/"seq_length": 4096}/"seq_length": 4096, "mtp_num_layers": 1}/' "$tmp/s.json" >"$tmp/mtp.json"
"$bin" predict --json "$tmp/mtp.json" >"$tmp/p.json" 2>"$tmp/err"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["params_total"]
print("# %.0f with the MTP layer" % t); sys.exit(0 if t==81324862720-107008 else 1)' "$tmp/p.json"
ok $? "qwen3-next with mtp_num_layers 1: the checkpoint's parameter count (less podplan's omissions)"
# the op list names the linear layers' ops
"$bin" predict --ops "$tmp/s.json" >"$tmp/ops1" 2>&1
grep -q 'chunk_gated_delta_rule ' "$tmp/ops1" && grep -q 'in_proj_qkvz ' "$tmp/ops1"
ok $? "qwen3-next: the op list holds the Gated DeltaNet ops (in_proj_qkvz, chunk_gated_delta_rule)"
# serving: a fixed recurrent state per sequence instead of a KV cache is
# not modelled: refused naming the model
printf '{"model": {"hf_config": "%s"}, "cluster": {"gpu": "h100-sxm", "num_gpus": 4}, "serving": {"engine": "vllm", "tensor_parallel_size": 4, "enable_expert_parallel": true}, "workload": {"num_prompts": 100, "input_len": 1024, "output_len": 128, "request_rate": "inf"}}\n' "$repo/tests/data/hf/qwen3-next-80b-a3b-instruct-config.json" >"$tmp/sv.json"
"$bin" serve "$tmp/sv.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'model: found a model with Gated DeltaNet linear-attention layers (Qwen3-Next: 3 of every 4 layers)' "$tmp/err"
ok $? "qwen3-next: serving refused naming the model (its recurrent state is not modelled)"
# context parallelism over linear-attention layers: refused by name
qn 1 32
sed 's/"sequence_parallel": true}/"sequence_parallel": true, "context_parallel_size": 2}/' "$tmp/s.json" >"$tmp/cp.json"
"$bin" check "$tmp/cp.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'parallel.context_parallel_size: found 2 with Gated DeltaNet' "$tmp/err"
ok $? "qwen3-next: context parallelism refused naming parallel.context_parallel_size"
# the linear keys in another family's config (Qwen3.5's text model): refused by name
printf '{"model_type": "qwen3_5_text", "hidden_size": 1024, "num_hidden_layers": 8, "num_attention_heads": 8, "vocab_size": 32000, "full_attention_interval": 4}\n' >"$tmp/q35.json"
scen "$tmp/q35.json" 8 1
"$bin" check "$tmp/s.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'q35.json:1:124: full_attention_interval: found the number 4 in a config of model_type "qwen3_5_text"' "$tmp/err"
ok $? "full_attention_interval outside qwen3_next refused naming it, file and column"

# Phi-3-mini's window of 2047 < 4096, on every layer (transformers'
# Phi3Attention): read, so the step is shorter than the same config's
# without a window (attention over at most 2047 keys instead of 4096)
scen "$repo/tests/data/hf/phi-3-mini-4k-instruct-config.json" 8 8
"$bin" predict --json "$tmp/s.json" >"$tmp/w.json" 2>&1
sed 's/"sliding_window": 2047/"sliding_window": null/' tests/data/hf/phi-3-mini-4k-instruct-config.json >"$tmp/phi.json"
scen "$tmp/phi.json" 8 8
"$bin" predict --json "$tmp/s.json" >"$tmp/nw.json" 2>&1
python3 -c 'import json,sys
a=json.load(open(sys.argv[1]))["step_time_s"]; b=json.load(open(sys.argv[2]))["step_time_s"]
print("# step %.4g s with the window, %.4g s without" % (a, b)); sys.exit(0 if a < b else 1)' "$tmp/w.json" "$tmp/nw.json"
ok $? "phi-3-mini: sliding_window 2047 read: a shorter step than without it"

# a changed copy: GPT-2 with resid_pdrop 0 (podplan costs 0.1 on GeLU models)
sed 's/"resid_pdrop": 0.1/"resid_pdrop": 0.0/' tests/data/hf/gpt2-config.json >"$tmp/gpt2.json"
scen "$tmp/gpt2.json" 1 1
"$bin" check "$tmp/s.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'resid_pdrop: found 0; expected 0.1' "$tmp/err"
ok $? "dropout at a rate podplan does not cost: exit 2 naming resid_pdrop"
sed 's/"n_ctx": 1024,/"n_ctx": 1024, "scale_attn_by_inverse_layer_idx": true,/' tests/data/hf/gpt2-config.json >"$tmp/gpt2.json"
scen "$tmp/gpt2.json" 1 1
"$bin" check "$tmp/s.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'scale_attn_by_inverse_layer_idx: found a key podplan does not model' "$tmp/err"
ok $? "a key podplan does not know: exit 2 naming it"

# every accepted key's reason is in the table
"$bin" import --mapping hf >"$tmp/map"
for k in embd_pdrop resid_pdrop original_max_position_embeddings sliding_window n_embd summary_type sliding_window_pattern partial_rotary_factor use_qk_norm full_attention_interval; do
	grep -q "^| \`$k\` | " "$tmp/map" || { echo "# $k missing"; false; } || break
done
ok $? "podplan import --mapping hf lists the keys Phi-3 and GPT-2 carry, with what podplan does"
echo "1..$n"
