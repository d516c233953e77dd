#!/bin/sh
# tests/t_validation_check.sh - every scenario of the validation sets
# (models/validation/*/, less the Hugging Face configs under framework/hf)
# passes `podplan check`: a limit or a key refused later would stop the set's
# script (models/validation/*.sh) and leave its published CSV stale. TAP;
# run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-valcheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
find models/validation -name '*.json' -not -path '*/hf/*' | sort >"$tmp/list"
echo "1..$(wc -l <"$tmp/list" | tr -d ' ')"
n=0
while read -r f; do
	n=$((n + 1))
	if "$bin" check "$f" >/dev/null 2>"$tmp/err"; then
		echo "ok $n - $f passes podplan check"
	else
		echo "not ok $n - $f: $(head -c 300 "$tmp/err")"
	fi
done <"$tmp/list"
