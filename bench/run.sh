#!/bin/sh
# bench/run.sh BUILD BINDIR - run every benchmark program (build/bench/bench_*)
# and every bench/*.sh script; each prints its own table.
build=${1:-build}
bindir=${2:-bin}
PODPLAN_BIN="$bindir/podplan"
PODPLAN_DATA="$(pwd)/models"
export PODPLAN_BIN PODPLAN_DATA
st=0
for b in "$build"/bench/bench_*; do
	[ -x "$b" ] || continue
	case "$b" in *.o|*.d) continue ;; esac
	echo "== $(basename "$b")"
	"$b" || st=1
done
for s in bench/bench_*.sh; do
	[ -f "$s" ] || continue
	echo "== $(basename "$s")"
	sh "$s" || st=1
done
exit $st
