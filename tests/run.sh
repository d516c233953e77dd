#!/bin/sh
# tests/run.sh BUILD BINDIR - run every test program and CLI test script,
# add up their "# NAME: N passed, N failed" lines, print one closing summary
# ("tests: N passed, N failed", or "sanitizers: ..." for the SAN=1 pass).
build=${1:-build}
bindir=${2:-bin}
PODPLAN_BIN="$bindir/podplan"
PODPLAN_DATA="$(pwd)/models"
export PODPLAN_BIN PODPLAN_DATA
# never touch the user's own database
PODPLAN_DB="$(mktemp -d /tmp/pp-run.XXXXXX)/test.db"
export PODPLAN_DB
total_pass=0
total_fail=0
crashed=""
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.o|*.d) continue ;; esac
	name=$(basename "$t")
	out=$("$t" 2>&1)
	st=$?
	printf '%s\n' "$out" | grep -v '^ok - ' 
	line=$(printf '%s\n' "$out" | grep "^# $name: " | tail -n 1)
	if [ -z "$line" ]; then
		crashed="$crashed $name(status $st)"
		total_fail=$((total_fail + 1))
		continue
	fi
	p=$(printf '%s' "$line" | sed 's/.*: \([0-9]*\) passed.*/\1/')
	f=$(printf '%s' "$line" | sed 's/.*passed, \([0-9]*\) failed.*/\1/')
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then
		crashed="$crashed $name(status $st)"
		total_fail=$((total_fail + 1))
	fi
done
rm -rf "$(dirname "$PODPLAN_DB")"
[ -n "$crashed" ] && echo "crashed or failed to report:$crashed"
# the closing line CI reads: "WORD: N passed, N failed" (one plain word)
case "$build" in */san) label=sanitizers ;; *) label=tests ;; esac
echo "$label: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
