#!/bin/sh
# bench/bench_serve.sh - podplan serve's speed (issue 16 point 6): one
# scenario of 1,000 requests, whole process, all at once and at a Poisson
# rate (more iterations: fewer requests share each), and --max-rate's
# bisection; median of 5 (max-rate: of 3). Targets: 1,000 requests under
# 0.2 s, --max-rate under 2 s, on the 2-core build machine.
bin=${PODPLAN_BIN:-bin/podplan}
scen=scenarios/serve/llama3-8b-h100-vllm.json
now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
field() { python3 -c 'import json, sys; d = json.load(open(sys.argv[2])); print(d[sys.argv[1]])' "$1" "$2"; }
tmp=$(mktemp -d /tmp/pp-bench-serve.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
run() { # run LABEL TARGET N ARGS...
	label=$1 target=$2 n=$3
	shift 3
	: > "$tmp/walls"
	i=0
	while [ $i -lt "$n" ]; do
		t0=$(now)
		"$bin" serve "$scen" --json "$@" > "$tmp/out.json" || return 1
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }' >> "$tmp/walls"
		i=$((i + 1))
	done
	wall=$(median < "$tmp/walls")
	it=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["engine"]["iterations"])' "$tmp/out.json")
	ok=$(awk -v w="$wall" -v t="$target" 'BEGIN { print (w < t) ? "yes" : "NO" }')
	printf '%-44s %8s %10s %8.3f %8s  %s\n' "$label" "$(field completed "$tmp/out.json")" "$it" "$wall" "$target" "$ok"
}
printf '%-44s %8s %10s %8s %8s  %s\n' "run (Llama 3 8B, 1x H100, vLLM, 1024 in / 128 out)" "requests" "iterations" "wall s" "target" "met"
run "1,000 requests, all at t = 0" 0.2 5 || exit 1
run "1,000 requests, Poisson 10 req/s" 0.2 5 --rate 10 || exit 1
run "--max-rate (p99 TTFT 2 s, TPOT 100 ms)" 2.0 3 --max-rate || exit 1
runs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["max_rate"]["runs"])' "$tmp/out.json")
echo "wall s: whole process (start, catalogs, simulation, output), median; --max-rate made $runs simulations."
