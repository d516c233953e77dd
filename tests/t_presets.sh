#!/bin/sh
# tests/t_presets.sh - every model preset of models/models.json that stores
# its model card's parameter count (params_b_published, and for a mixture of
# experts params_active_b_published) gets podplan's own count within 2% of
# it: the total as `podplan predict --json` reports params_total, the active
# count as params_active (less the input embedding where the card counts
# without it, params_active_published_no_embedding). The card figures are the
# sources' (models.json names each), not podplan's. A card that states a
# size class rather than a count ("7B" for Llama 2 7B's 6.74B, the Megatron
# paper's "1.7B" row) cannot be held closer than its last digit: the bound
# is the larger of 2% and half a unit of the figure's last stated digit
# (7: 0.5B; 1.7: 0.05B; 72.7: 0.05B). TAP; run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-presets.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 - "$repo/models/models.json" >"$tmp/list" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["models"]:
    if m.get("params_b_published"):
        emb = m["vocab_size"] * m["hidden_size"] if m.get("params_active_published_no_embedding") else 0
        print(m["id"], m["params_b_published"], m.get("params_active_b_published", 0), emb)
PY
n=0
while read -r id tot act emb; do
	printf '{"model": {"preset": "%s"}, "cluster": {"gpu": "h100-sxm", "num_gpus": 1}}\n' "$id" >"$tmp/s.json"
	"$bin" predict --json "$tmp/s.json" >"$tmp/p.json" 2>"$tmp/err"
	line=$(python3 - "$tmp/p.json" "$tot" "$act" "$emb" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("1 predict failed"); sys.exit()
def bound(fig):
    v = float(fig) * 1e9
    dec = len(fig.split(".")[1]) if "." in fig else 0
    return max(0.02 * v, 0.5 * 10 ** -dec * 1e9)
tot, act, emb = float(sys.argv[2]) * 1e9, float(sys.argv[3]) * 1e9, float(sys.argv[4])
t = d["params_total"]; a = d["params_active"] - emb
bad = abs(t - tot) > bound(sys.argv[2]) or (act > 0 and abs(a - act) > bound(sys.argv[3]))
msg = "total %.3gB vs card %.3gB (%+.2f%%)" % (t / 1e9, tot / 1e9, 100 * (t / tot - 1))
if act > 0:
    msg += ", active %.3gB vs card %.3gB (%+.2f%%)" % (a / 1e9, act / 1e9, 100 * (a / act - 1))
print(int(bad), msg)
PY
)
	n=$((n + 1))
	rc=${line%% *}
	if [ "$rc" = 0 ]; then echo "ok $n - $id: ${line#* }"; else echo "not ok $n - $id: ${line#* }"; fi
done <"$tmp/list"
echo "1..$n"
