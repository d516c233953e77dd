#!/bin/sh
# tests/t_check_layers.sh - `make check-layers` (tests/check-layers.sh), in
# TAP for prove: it passes on the tree, and fails - exit status 1, a message
# naming the file, the line and the two layers - on an upward include planted
# into a copy of the tree (sim/LAYERS, the checker and every source file of
# the folders it reads), on a CUDA, NCCL or MPI header planted under sim/, and
# on a source folder sim/LAYERS does not name; and, from objects' symbols,
# on a call circle planted between two files of one folder (compiled into a
# build folder of the copy), naming the folder, both files and the symbols,
# while a circle sim/LAYERS allows is a note. Run from the repository root;
# the build folder is $PODPLAN_BUILD, else build.
# The copy lives in a temporary directory, removed at the end (kept when a
# test failed).

n=0
failed=0
ok() { # ok CONDITION-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-layers.XXXXXX") || { echo "1..0 # SKIP no mktemp"; exit 0; }
out=$tmp/out

# 1. the tree as it is
sh tests/check-layers.sh . >"$out" 2>&1
st=$?
[ "$st" -eq 0 ] && grep -q '^check-layers: [0-9]* files, every include goes down' "$out"
r=$?
[ "$r" -eq 0 ] || { diag "exit status $st:"; diag "$(cat "$out")"; }
ok $r "the tree passes"

# a fresh copy of what the checker reads
copy() {
	rm -rf "$tmp/tree"
	mkdir "$tmp/tree" || return 1
	{
		find sim reports calibrate bench tests -type f \
			\( -name '*.c' -o -name '*.h' -o -name '*.cu' \) 2>/dev/null
		echo sim/LAYERS
		echo tests/check-layers.sh
	} | tar -cf - -T - | (cd "$tmp/tree" && tar -xf -)
}
# check NAME: run the copy's checker on the copy; status in $st, output in $out
check() {
	sh "$tmp/tree/tests/check-layers.sh" "$tmp/tree" >"$out" 2>&1
	st=$?
}
# plant FILE TEXT: append a line to FILE of the copy; its number in $line
plant() {
	printf '%s\n' "$2" >>"$tmp/tree/$1"
	line=$(wc -l <"$tmp/tree/$1" | tr -d ' ')
}
# expect_fail DESCRIPTION PATTERN...: exit status 1 and every pattern in the output
expect_fail() {
	d=$1
	shift
	r=0
	[ "$st" -eq 1 ] || r=1
	for p in "$@"; do
		grep -q -e "$p" "$out" || { r=1; diag "no line matching: $p"; }
	done
	[ "$r" -eq 0 ] || { diag "exit status $st (expected 1), output:"; diag "$(cat "$out")"; }
	ok $r "$d"
}

# 2. the copy is complete: it passes as the tree does
copy
check
[ "$st" -eq 0 ]
r=$?
[ "$r" -eq 0 ] || { diag "exit status $st on the unchanged copy:"; diag "$(cat "$out")"; }
ok $r "an unchanged copy of the tree passes"

# the first source file of the engine and core layers, a header of the
# engine and of the cost layer
eng=$(cd "$tmp/tree" && ls sim/engine/*.c 2>/dev/null | head -n 1)
hdr=$(cd "$tmp/tree" && ls sim/engine/*.h 2>/dev/null | head -n 1)
core=$(cd "$tmp/tree" && ls sim/core/*.c 2>/dev/null | head -n 1)
costh=$(cd "$tmp/tree/sim" && ls cost/*.h 2>/dev/null | head -n 1)
[ -n "$eng" ] && [ -n "$hdr" ] && [ -n "$core" ] && [ -n "$costh" ]
r=$?
[ "$r" -eq 0 ] || diag "no sim/engine/*.c, sim/engine/*.h, sim/core/*.c or sim/cost/*.h in the tree"
ok $r "the engine, core and cost layers have files to plant into"

# 4. engine includes cost: upward
plant "$eng" "#include \"$costh\""
check
expect_fail "an upward include ($eng includes \"$costh\") fails, naming file, line and layers" \
	"^$eng:$line: \"$costh\": " "layer engine (sim/engine) may not include layer cost (sim/cost)"

# 5. a CUDA header under sim/
copy
plant "$core" "#include <cuda_runtime.h>"
check
expect_fail "#include <cuda_runtime.h> in $core fails" \
	"^$core:$line: .*cuda_runtime.h.*sim/ builds without a GPU"

# 6-8. the other violations, planted together into one copy (one run of the
# checker, which is slow): each must be reported
copy
plant "$eng" "#include \"../$costh\""
lrel=$line
plant "$hdr" "#  include <nccl.h>"
lnccl=$line
plant "$core" "#include <mpi.h>"
lmpi=$line
mkdir -p "$tmp/tree/sim/extra"
printf '#include "core/util.h"\n' >"$tmp/tree/sim/extra/x.c"
check
expect_fail "an upward include by relative path (\"../$costh\") fails" \
	"^$eng:$lrel: \"../$costh\": " "layer engine (sim/engine) may not include layer cost (sim/cost)"
expect_fail "#include <nccl.h> in $hdr and <mpi.h> in $core fail" \
	"^$hdr:$lnccl: .*nccl.h.*sim/ builds without a GPU" "^$core:$lmpi: .*mpi.h.*sim/ builds without a GPU"
expect_fail "a source folder sim/LAYERS does not name (sim/extra) fails" \
	"^sim/extra/x.c: folder sim/extra is not a layer of sim/LAYERS"

# 9. the tree's objects, when built: no call circle but the allowed ones
bdir=${PODPLAN_BUILD:-build}
if [ -d "$bdir/sim" ]; then
	sh tests/check-layers.sh . "$bdir" >"$out" 2>&1
	st=$?
	[ "$st" -eq 0 ] && grep -q '^check-layers: [0-9]* uses between objects, no call circle' "$out"
	r=$?
	[ "$r" -eq 0 ] || { diag "exit status $st:"; diag "$(cat "$out")"; }
	ok $r "the tree's objects in $bdir have no call circle sim/LAYERS does not allow"
fi

# 10-11. a circle planted between two files of sim/core, compiled into the
# copy's own build folder (those two objects alone)
copy
cc=${CC:-cc}
printf 'int pp_zz_b(int);\nint pp_zz_a(int n) { return n ? pp_zz_b(n - 1) : 0; }\n' >"$tmp/tree/sim/core/zz_a.c"
printf 'int pp_zz_a(int);\nint pp_zz_b(int n) { return n ? pp_zz_a(n - 1) : 1; }\n' >"$tmp/tree/sim/core/zz_b.c"
printf 'int pp_zz_a(int);\nint pp_zz_c(void) { return pp_zz_a(3); }\n' >"$tmp/tree/sim/core/zz_c.c"
mkdir -p "$tmp/obj/sim/core"
for f in zz_a zz_b zz_c; do
	$cc -c -o "$tmp/obj/sim/core/$f.o" "$tmp/tree/sim/core/$f.c" || diag "$cc could not compile $f.c"
done
sh "$tmp/tree/tests/check-layers.sh" "$tmp/tree" "$tmp/obj" >"$out" 2>&1
st=$?
expect_fail "a call circle between sim/core/zz_a.c and zz_b.c fails, naming folder, files and symbols" \
	"^sim/core: call circle zz_[ab].c -> zz_[ab].c -> zz_[ab].c" "zz_a.c uses pp_zz_b of zz_b.c" \
	"zz_b.c uses pp_zz_a of zz_a.c"
grep -q 'zz_c.c' "$out"
r=$((1 - $?))
[ "$r" -eq 0 ] || diag "zz_c.c, which only calls into the circle, is named: $(cat "$out")"
ok $r "a file that only calls into the circle is not part of it"

# 12. the same circle allowed by a circle line of sim/LAYERS: a note, status 0
printf 'circle sim/core zz_b.c zz_a.c # planted\n' >>"$tmp/tree/sim/LAYERS"
sh "$tmp/tree/tests/check-layers.sh" "$tmp/tree" "$tmp/obj" >"$out" 2>&1
st=$?
[ "$st" -eq 0 ] && grep -q '^check-layers: note: sim/core: call circle .*allowed by sim/LAYERS' "$out"
r=$?
[ "$r" -eq 0 ] || { diag "exit status $st:"; diag "$(cat "$out")"; }
ok $r "a circle sim/LAYERS allows is a note, not a failure"

echo "1..$n"
if [ "$failed" -eq 0 ]; then
	rm -rf "$tmp"
else
	diag "$failed of $n tests failed; files kept in $tmp"
fi
[ "$failed" -eq 0 ]
