#!/bin/sh
# bench/bench_serveplan.sh - podplan serve --search's speed on the shipped
# serving scenarios: Llama 3 8B on H100 at 100 req/s (TP fixed at 1 by the
# scenario: PP, replicas and the scheduler limits searched; median of 3)
# and Llama 3 70B on H100 nodes at 10 req/s (TP, PP, replicas and the
# limits searched; one run). Whole process; the simulations it ran and
# the wall time per simulation at the target rate. No target is set by
# issue 16 for the search; the table says what it costs.
bin=${PODPLAN_BIN:-bin/podplan}
now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
tmp=$(mktemp -d /tmp/pp-bench-serveplan.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
run() { # run LABEL N SCENARIO ARGS...
	label=$1 n=$2 scen=$3
	shift 3
	: > "$tmp/walls"
	i=0
	while [ $i -lt "$n" ]; do
		t0=$(now)
		"$bin" serve --search "$scen" --json "$@" > "$tmp/out.json" || return 1
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }' >> "$tmp/walls"
		i=$((i + 1))
	done
	wall=$(median < "$tmp/walls")
	python3 - "$tmp/out.json" "$label" "$wall" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pick"]
pick = "TP%d PP%d x %d, %d GPUs" % (p["tensor_parallel_size"], p["pipeline_parallel_size"],
                                    p["data_parallel_size"], p["num_gpus"])
sims, alone, wall = d["simulations"], d["alone_simulations"], float(sys.argv[3])
print("%-40s %7d %5d %6d %8.2f %9.1f  %s" % (sys.argv[2], d["layouts_by_status"]["total"], sims,
                                            alone, wall, 1e3 * wall / max(sims, 1), pick))
EOF
}
printf '%-40s %7s %5s %6s %8s %9s  %s\n' "search (whole process)" "layouts" "sims" "alone" "wall s" \
	"ms/sim" "pick"
run "Llama 3 8B, 1x H100 scenario, 100 req/s" 3 scenarios/serve/llama3-8b-h100-vllm.json --rate 100 || exit 1
run "Llama 3 70B, H100 nodes, 10 req/s" 1 scenarios/serve/llama3-70b-h100-10rps-search.json || exit 1
echo "sims: simulations at the target rate (1,000 requests each); alone: lone-request screens."
