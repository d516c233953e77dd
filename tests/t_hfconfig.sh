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
for k in embd_pdrop resid_pdrop original_max_position_embeddings sliding_window n_embd summary_type; do
	grep -q "^| \`$k\` | " "$tmp/map" || { echo "# $k missing"; false; } || break
done
ok $? "podplan import --mapping hf lists the keys Phi-3 and GPT-2 carry, with what podplan does"
echo "1..$n"
