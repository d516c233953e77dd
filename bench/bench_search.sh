#!/bin/sh
# bench/bench_search.sh - layout search speed on Calculon's 530B / 5,120-GPU
# question (bench/bench_search.json): whole-process wall time and candidates
# evaluated per second, serial and with 2 Open MPI ranks, with recompute
# fixed to selective (as in the scenario) and searched too. Median of 3.
# Acceptance (issue 8): <= 13 s whole process and >= 24,000 candidates/s
# (Calculon: 663,952 candidates in 1,291 s on a 2-core machine).
bin=${PODPLAN_BIN:-bin/podplan}
scen=bench/bench_search.json
tmp=$(mktemp -d /tmp/pp-bench-search.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# the same question with recompute searched too (none/selective/full)
sed '/"recompute"/s/"recompute": "selective",//' "$scen" > "$tmp/full.json"
have_mpi=0
command -v mpirun >/dev/null 2>&1 && have_mpi=1
MPIRUN="mpirun --oversubscribe --allow-run-as-root -np 2"

field() { # field NAME FILE: a top-level number of podplan's JSON
	python3 -c 'import json, sys; print(json.load(open(sys.argv[2]))[sys.argv[1]])' "$1" "$2"
}
best_layout() { # best_layout FILE: the winner in a few words, and its step
	python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["best"][0]
print("TP%d PP%d DP%d CP%d v%d mb%d %s %ss" % (b["tensor_model_parallel_size"],
      b["pipeline_model_parallel_size"], b["data_parallel_size"], b["context_parallel_size"],
      b["virtual_pipeline_model_parallel_size"], b["micro_batch_size"], b["recompute"],
      b["step_time_s"]))' "$1"
}
median() { sort -n | sed -n 2p; }
now() { date +%s.%N; }

run() { # run LABEL RANKS FILE
	label=$1 ranks=$2 file=$3
	if [ "$ranks" = 2 ] && [ $have_mpi = 0 ]; then
		printf '%-34s %5s  %s\n' "$label" 2 "skipped: mpirun not found"
		return
	fi
	: > "$tmp/walls"
	for i in 1 2 3; do
		t0=$(now)
		if [ "$ranks" = 2 ]; then
			$MPIRUN "$bin" search "$file" --json > "$tmp/out.json" 2>/dev/null || return 1
		else
			"$bin" search "$file" --json > "$tmp/out.json" 2>/dev/null || return 1
		fi
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >> "$tmp/walls"
		grep -v -e '"elapsed_s"' -e '"candidates_per_s"' "$tmp/out.json" > "$tmp/out.$ranks.$(basename "$file")"
	done
	wall=$(median < "$tmp/walls")
	ev=$(field evaluated "$tmp/out.json")
	fe=$(field feasible "$tmp/out.json")
	si=$(field simulated "$tmp/out.json")
	el=$(field elapsed_s "$tmp/out.json")
	best=$(best_layout "$tmp/out.json")
	printf '%-34s %5s %9s %9s %8s %8.2f %8.3f %10.0f %8.0fx  %s\n' "$label" "$ranks" "$ev" "$fe" \
		"$si" "$wall" "$el" "$(awk -v e="$ev" -v w="$wall" 'BEGIN { print e / w }')" \
		"$(awk -v w="$wall" 'BEGIN { print 1291 / w }')" "$best"
}

printf '%-34s %5s %9s %9s %8s %8s %8s %10s %9s  %s\n' "space" "ranks" "evaluated" "fit" \
	"simul." "wall s" "search s" "cand/s" "vs Calc." "best layout, step"
run "530B/5120, recompute selective" 1 "$scen" || exit 1
run "530B/5120, recompute selective" 2 "$scen" || exit 1
run "530B/5120, recompute searched" 1 "$tmp/full.json" || exit 1
run "530B/5120, recompute searched" 2 "$tmp/full.json" || exit 1
echo "wall s: whole process (start, catalogs, search, top-5 predictions, output), median of 3;"
echo "search s: inside the process; cand/s: evaluated / wall s; vs Calc.: 1,291 s / wall s."
if [ $have_mpi = 1 ]; then
	for f in bench_search.json full.json; do
		if cmp -s "$tmp/out.1.$f" "$tmp/out.2.$f"; then
			echo "$f: 2-rank output identical to serial (JSON without elapsed_s, candidates_per_s)"
		else
			echo "$f: 2-rank output DIFFERS from serial"; exit 1
		fi
	done
fi
