#!/bin/sh
# tests/t_catalog_prices.sh - `podplan catalog prices` names every hosted-API
# price key a costs option of kind "api" takes (prices.json hosted_api, read
# here with python, not through podplan), each on a line of its own with its
# group. TAP; run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-prices.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$bin" catalog prices >"$tmp/out" 2>&1
python3 - "$repo/models/prices.json" >"$tmp/keys" <<'PY'
import json, sys
api = json.load(open(sys.argv[1]))["hosted_api"]
for g, what in (("fine_tuning_usd_per_1m_training_tokens", "fine-tuning"), ("inference_usd_per_1m_tokens", "inference")):
    for k, v in api[g].items():
        if isinstance(v, dict):
            print(k, what)
PY
n=0
while read -r key what; do
	n=$((n + 1))
	if grep -q "^  $key  *$what" "$tmp/out"; then echo "ok $n - $key listed ($what)"; else echo "not ok $n - $key missing from catalog prices"; fi
done <"$tmp/keys"
n=$((n + 1))
total=$(wc -l <"$tmp/keys")
if grep -q "^Hosted API price keys ($total; " "$tmp/out"; then echo "ok $n - the header counts $total keys"; else echo "not ok $n - header count"; fi
echo "1..$n"
