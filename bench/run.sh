#!/bin/sh
# bench/run.sh BUILD BINDIR - `make bench`: every benchmark against its
# target (bench/targets.json), each figure in seconds and as a ratio to the
# reference workload (bench/bench_ref.c) timed in the same run, and the
# engine's per-step table (build/bench/bench_engine); bench/bench.py says
# how. The older per-feature scripts (bench_search.sh, bench_serve.sh,
# bench_serveplan.sh) still print their own tables in seconds when run
# alone.
build=${1:-build}
bindir=${2:-bin}
PODPLAN_DATA="$(pwd)/models"
export PODPLAN_DATA
shift 2 2>/dev/null || shift $#
exec python3 bench/bench.py --bin "$bindir/podplan" --ref "$build/bench/bench_ref" \
	--engine "$build/bench/bench_engine" "$@"
