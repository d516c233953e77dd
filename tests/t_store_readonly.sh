#!/bin/sh
# tests/t_store_readonly.sh - a store this user may read but not write:
# `calib import-nccl-tests` into it ends with a message that says
# the database cannot be WRITTEN (not "cannot read"), naming --db, with
# exit status 1 (a store that cannot be written is a failure of the
# surroundings, as any file podplan cannot write: 2 is for bad input), and the
# file is left byte-identical; `calib list` still reads it.
#
# Root writes any file whatever its mode, so as root the writing commands
# run as the user nobody (setpriv, util-linux) on a store owned by root;
# as anyone else the store is made read-only with chmod. Either way the
# write is refused by the kernel, as on a shared read-only store. TAP for
# prove; run from the repository root.

repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
log=$repo/tests/data/nccl-tests/all_reduce_perf_8gpu.log
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-ro.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

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
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

db=$tmp/ro.db
"$bin" calib import-nccl-tests "$log" --db "$db" > "$tmp/out1" 2>&1
ok $? "a store is made (import into a new file)"
cksum < "$db" > "$tmp/before"

if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv > /dev/null || { echo "1..0 # SKIP root without setpriv"; exit 0; }
	chmod 755 "$tmp" && chmod 644 "$db"
	as() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	# nobody must be able to run the binary and read the data
	as "$bin" --help > /dev/null 2>&1 || { echo "1..0 # SKIP user nobody cannot run $bin here"; exit 0; }
	as test -r "$log" || { echo "1..0 # SKIP user nobody cannot read the test data here"; exit 0; }
else
	chmod 444 "$db" && chmod 555 "$tmp"
	as() { "$@"; }
fi

as "$bin" calib import-nccl-tests "$log" --db "$db" > "$tmp/out2" 2> "$tmp/err2"
rc=$?
[ $rc -eq 1 ]
ok $? "import into a read-only store exits 1 (got $rc)"
grep -q "cannot write the database" "$tmp/err2" && grep -q -- "--db" "$tmp/err2" &&
	! grep -q "cannot read" "$tmp/err2"
ok $? "the message says the store cannot be written and names --db"
[ $failed -eq 0 ] || diag "$(cat "$tmp/err2")"
cksum < "$db" | cmp -s - "$tmp/before"
ok $? "the store is byte-identical"
as "$bin" calib list --db "$db" > "$tmp/list" 2>&1
ok $? "calib list still reads it"
grep -q "nccl-tests" "$tmp/list"
ok $? "and lists the imported run"
[ $failed -eq 0 ] || diag "$(cat "$tmp/list")"

chmod 755 "$tmp"
echo "1..$n"
[ $failed -eq 0 ]
