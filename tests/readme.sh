#!/bin/sh
# tests/readme.sh [--update] - the README's printed outputs are podplan's.
#
# A fenced block right after a line
#     <!-- output: podplan ARGS... -->
# is what `bin/podplan ARGS...` prints, run from the repository root with a
# fresh store (PODPLAN_DB in a temporary directory, shown as the default
# store's path) and SOURCE_DATE_EPOCH fixed. Without --update, each block is
# compared with a new run (TAP for prove; the wall-clock "took" line and
# figures named "(timing)" below are compared by shape only); with --update,
# every block is rewritten from a new run. ARGS are split on spaces (no
# quoting): keep the commands plain.

update=0
[ "${1:-}" = "--update" ] && update=1
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
readme=$repo/README.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-readme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# norm: what varies from run to run, by shape: timings and the run number
norm() {
	sed -e 's/took [0-9.]* s (engines [0-9.]* s)/took T s (engines T s)/' \
	    -e 's/^Computed in [0-9.]* s (Monte Carlo and tornado [0-9.]* s)/Computed in T s (Monte Carlo and tornado T s)/' \
	    -e 's/^run [0-9]* recorded/run N recorded/' \
	    -e "s/'podplan report --compare [0-9]* OTHER'/'podplan report --compare N OTHER'/"
}

# run ARGS: podplan's output as the README shows it
run() {
	rm -rf "$tmp/store" && mkdir -p "$tmp/store"
	PODPLAN_DB="$tmp/store/podplan.db" SOURCE_DATE_EPOCH=1700000000 \
		"$bin" "$@" 2>&1 | sed -e "s|$tmp/store/podplan.db|~/.local/share/podplan/podplan.db|g" \
		-e 's/[[:space:]]*$//'
}

# the commands, in order
grep -n '^<!-- output: podplan .* -->$' "$readme" | sed 's/^\([0-9]*\):<!-- output: podplan \(.*\) -->$/\1 \2/' >"$tmp/cmds"
total=$(wc -l <"$tmp/cmds")
[ "$update" -eq 0 ] && echo "1..$total"

i=0
while read -r line args; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	run $args >"$tmp/out.$i"
	[ "$update" -eq 1 ] && continue
	# the block: the fence right after the marker line, up to the next fence
	awk -v l="$line" 'NR == l + 1 && /^```/ { inb = 1; next } inb && /^```/ { exit } inb { print }' \
		"$readme" | norm >"$tmp/was.$i"
	norm <"$tmp/out.$i" >"$tmp/now.$i"
	if diff -u "$tmp/was.$i" "$tmp/now.$i" >"$tmp/diff.$i"; then
		echo "ok $i - README block after line $line is 'podplan $args'"
	else
		echo "not ok $i - README block after line $line differs from 'podplan $args' (sh tests/readme.sh --update rewrites it)"
		sed 's/^/# /' "$tmp/diff.$i" | head -40
	fi
done <"$tmp/cmds"

if [ "$update" -eq 1 ]; then
	# one pass: the k-th marker's fenced block becomes out.k
	awk -v dir="$tmp" '
		/^<!-- output: podplan .* -->$/ { k++; print; want = 1; next }
		want && /^```/ { print; f = dir "/out." k; while ((getline s < f) > 0) print s; close(f); want = 0; skip = 1; next }
		skip && /^```/ { skip = 0; print; next }
		{ want = 0 }
		!skip { print }' "$readme" >"$tmp/new" || exit 1
	if cmp -s "$tmp/new" "$readme"; then
		echo "README.md: $total blocks, unchanged"
	else
		cp "$tmp/new" "$readme"
		echo "README.md: $total blocks rewritten"
	fi
fi
