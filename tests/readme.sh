#!/bin/sh
# tests/readme.sh [--update] - the printed outputs of README.md and docs/*.md
# are podplan's, and their relative links lead somewhere.
#
# A fenced block right after a line
#     <!-- output: podplan ARGS... -->
# is what `bin/podplan ARGS...` prints, run from the repository root with a
# fresh store (PODPLAN_DB in a temporary directory, shown as the default
# store's path) and SOURCE_DATE_EPOCH fixed. Without --update, each block of
# each file is compared with a new run (TAP for prove; the wall-clock "took"
# line and figures named "(timing)" below are compared by shape only), and
# each file's relative links are checked: the file or folder a link names
# exists (relative to the linking file), and a #anchor names a heading of
# the target as GitHub spells its anchor. With --update, every block is
# rewritten from a new run. ARGS are split on spaces (no quoting): keep the
# commands plain.

update=0
[ "${1:-}" = "--update" ] && update=1
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-readme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# the documents, README.md first
docs="README.md"
for f in docs/*.md; do
	[ -f "$f" ] && docs="$docs $f"
done

# norm: what varies from run to run, by shape: timings and the run number
norm() {
	sed -e 's/took [0-9.]* s (engines [0-9.]* s)/took T s (engines T s)/' \
	    -e 's/^Computed in [0-9.]* s (Monte Carlo and tornado [0-9.]* s)/Computed in T s (Monte Carlo and tornado T s)/' \
	    -e 's/^run [0-9]* recorded/run N recorded/' \
	    -e "s/'podplan report --compare [0-9]* OTHER'/'podplan report --compare N OTHER'/"
}

# run ARGS: podplan's output as the documents show it
run() {
	rm -rf "$tmp/store" && mkdir -p "$tmp/store"
	PODPLAN_DB="$tmp/store/podplan.db" SOURCE_DATE_EPOCH=1700000000 \
		"$bin" "$@" 2>&1 | sed -e "s|$tmp/store/podplan.db|~/.local/share/podplan/podplan.db|g" \
		-e 's/[[:space:]]*$//'
}

# anchors FILE: the #anchors of FILE's headings, GitHub's way (lower case,
# every character but letters, digits, spaces, '-' and '_' dropped, spaces
# to '-', a repeated anchor numbered -1, -2, ...); headings in fences skipped
anchors() {
	awk '/^```/ { fence = !fence; next }
	     !fence && /^#+ / {
		h = $0; sub(/^#+ +/, "", h); sub(/ +#* *$/, "", h)
		h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
		if (h in seen) { n = seen[h]++; print h "-" n } else { seen[h] = 1; print h }
	     }' "$1"
}

# links FILE: "LINE TARGET" for every relative link outside fences and
# inline code
links() {
	awk '/^```/ { fence = !fence; next }
	     !fence {
		s = $0; gsub(/`[^`]*`/, "", s)
		while (match(s, /\]\([^) ]+\)/)) {
			t = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH)
			if (t !~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/) print NR, t
		}
	     }' "$1"
}

# the commands, in order: FILE LINE ARGS
: >"$tmp/cmds"
for f in $docs; do
	grep -n '^<!-- output: podplan .* -->$' "$f" |
		sed "s|^\([0-9]*\):<!-- output: podplan \(.*\) -->\$|$f \1 \2|" >>"$tmp/cmds"
done
total=$(wc -l <"$tmp/cmds")
ndocs=$(echo $docs | wc -w)
[ "$update" -eq 0 ] && echo "1..$((total + ndocs))"

i=0
while read -r file line args; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	run $args >"$tmp/out.$i"
	[ "$update" -eq 1 ] && continue
	# the block: the fence right after the marker line, up to the next fence
	awk -v l="$line" 'NR == l + 1 && /^```/ { inb = 1; next } inb && /^```/ { exit } inb { print }' \
		"$file" | norm >"$tmp/was.$i"
	norm <"$tmp/out.$i" >"$tmp/now.$i"
	if diff -u "$tmp/was.$i" "$tmp/now.$i" >"$tmp/diff.$i"; then
		echo "ok $i - $file block after line $line is 'podplan $args'"
	else
		echo "not ok $i - $file block after line $line differs from 'podplan $args' (sh tests/readme.sh --update rewrites it)"
		sed 's/^/# /' "$tmp/diff.$i" | head -40
	fi
done <"$tmp/cmds"

if [ "$update" -eq 1 ]; then
	# one pass per file: the k-th marker's fenced block becomes out.k
	k0=0
	for f in $docs; do
		n=$(grep -c '^<!-- output: podplan .* -->$' "$f")
		awk -v dir="$tmp" -v k="$k0" '
			/^<!-- output: podplan .* -->$/ { k++; print; want = 1; next }
			want && /^```/ { print; f = dir "/out." k; while ((getline s < f) > 0) print s; close(f); want = 0; skip = 1; next }
			skip && /^```/ { skip = 0; print; next }
			{ want = 0 }
			!skip { print }' "$f" >"$tmp/new" || exit 1
		k0=$((k0 + n))
		if cmp -s "$tmp/new" "$f"; then
			echo "$f: $n blocks, unchanged"
		else
			cp "$tmp/new" "$f"
			echo "$f: $n blocks rewritten"
		fi
	done
	exit 0
fi

# every relative link of each document: its file exists, its anchor is a
# heading there
for f in $docs; do
	i=$((i + 1))
	dir=$(dirname "$f")
	links "$f" >"$tmp/links"
	nl=$(wc -l <"$tmp/links")
	: >"$tmp/bad"
	while read -r line t; do
		path=${t%%#*}
		anchor=
		case $t in *'#'*) anchor=${t#*#} ;; esac
		if [ -n "$path" ]; then
			target=$dir/$path
		else
			target=$f
		fi
		if [ ! -e "$target" ]; then
			echo "line $line: ($t): $target does not exist" >>"$tmp/bad"
		elif [ -n "$anchor" ] && ! anchors "$target" | grep -qxF -- "$anchor"; then
			echo "line $line: ($t): $target has no heading whose anchor is #$anchor" >>"$tmp/bad"
		fi
	done <"$tmp/links"
	if [ -s "$tmp/bad" ]; then
		echo "not ok $i - $f: $(wc -l <"$tmp/bad") of $nl relative links broken"
		sed 's/^/# /' "$tmp/bad" | head -20
	else
		echo "ok $i - $f: its $nl relative links lead to a file and heading"
	fi
done
