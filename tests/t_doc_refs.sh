#!/bin/sh
# tests/t_doc_refs.sh - every place a message or catalog sends the reader
# to a document of this repository names one that exists, at a heading it
# has: in sim/**/*.c, a string `(docs/NAME.md, \"HEADING...` or
# `README, \"...` (the heading's start, as the message cuts it),
# and in models/*.json a "url" of "docs/NAME.md (HEADING)". A section that
# moves leaves no message pointing at nothing. TAP for prove; run from the
# repository root.

n=0
failed=0
ok() { # ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
refs=$(mktemp "${TMPDIR:-/tmp}/pp-refs.XXXXXX") || exit 1
trap 'rm -f "$refs"' EXIT

# "FILE<TAB>HEADING-START<TAB>WHERE" per reference
find sim -name '*.c' | sort | xargs grep -n -o '\(docs/[A-Za-z0-9_-]*\.md\|README\.md\|README\), \\"[^\\]*' |
	sed 's/^\([^:]*:[0-9]*\):\([^,]*\), \\"\(.*\)$/\2\t\3\t\1/' > "$refs"
grep -n -o '"url": "\(docs/[A-Za-z0-9_-]*\.md\|README\.md\) ([^)]*)"' models/*.json |
	sed 's/^\([^:]*:[0-9]*\):"url": "\([^ ]*\) (\(.*\))"$/\2\t\3\t\1/' >> "$refs"
[ -s "$refs" ]
ok $? "references to documents found in sim/ and models/ ($(wc -l < "$refs"))"
tab=$(printf '\t')
while IFS="$tab" read -r doc head where; do
	if [ ! -f "$doc" ]; then
		ok 1 "$where: $doc exists"
		continue
	fi
	# a heading line (#..) whose text, backquotes aside, starts with head
	h=$(printf "%s" "$head" | tr -d "\`" | sed "s/\" *$//")
	grep '^#' "$doc" | sed 's/^#* *//' | tr -d '`' | grep -q -F -x -e "$h" ||
		grep '^#' "$doc" | sed 's/^#* *//' | tr -d '`' | awk -v h="$h" 'index($0, h) == 1 { f = 1 } END { exit !f }'
	ok $? "$where: $doc has a heading \"$h\""
done < "$refs"
echo "1..$n"
[ $failed -eq 0 ]
