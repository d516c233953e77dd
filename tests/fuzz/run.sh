#!/bin/sh
# tests/fuzz/run.sh BUILD SECONDS [TARGET...] - `make fuzz-run`: each libFuzzer
# target of BUILD (build/fuzz) for SECONDS seconds from its corpus in
# BUILD/corpus/NAME, seeded on first use from scenarios/ and tests/ (see
# seed_* below), one target at a time; prints each one's executions, the
# executions per second and its findings (crash, leak, timeout and
# out-of-memory inputs, kept in BUILD/findings/; an input slower than 20 s
# is kept there as a slow unit, not counted). Exit status 1 when any target
# found something. Run from the repository root.
build=$1; secs=${2:-60}; shift 2
targets=${*:-scenario catalog ncclimport csv store hfconfig serve servecheck servesearch costserve hfmoe report cluster}
corp=$build/corpus; finds=$build/findings
mkdir -p "$corp" "$finds"

# a seed file: a selector byte (the targets read the first byte as a
# switch) before a file's bytes
prefixed() { # DIR BYTE FILE
	n=$(basename "$3" | tr -c 'A-Za-z0-9._\n-' _)
	{ printf "\\$(printf %03o "$2")"; cat "$3"; } >"$1/$2-$n"
}
seed_scenario() {
	for f in scenarios/*.json scenarios/replay/*.json scenarios/replay8/*.json tests/data/*.json \
		tests/bad/*.json; do cp "$f" "$1/$(echo "$f" | tr / _)"; done
}
seed_hfconfig() {
	for b in 0 1 2 3; do prefixed "$1" $b tests/data/llama-2-7b-config.json; done
}
seed_catalog() {
	i=0
	for f in gpus fabrics storage models kernels prices tco health; do
		prefixed "$1" $i "models/$f.json"; i=$((i + 1))
	done
}
seed_ncclimport() {
	for f in tests/data/nccl-tests/*.log tests/data/nccl-tests/*.txt; do
		[ -f "$f" ] && prefixed "$1" 0 "$f" && prefixed "$1" 80 "$f"
	done
}
seed_csv() {
	# the published table's header and a few rows (each row is a prediction)
	head -6 models/validation/validation-public.csv >"$1/.v"; prefixed "$1" 1 "$1/.v"
	prefixed "$1" 0 "$1/.v"; rm -f "$1/.v"
	for f in models/calibrations/replay-*.csv; do prefixed "$1" 2 "$f"; done
	for f in models/calibrations/*.csv; do head -40 "$f" >"$1/.c"; prefixed "$1" 0 "$1/.c"; done
	rm -f "$1/.c"
}
seed_store() {
	cp tests/fuzz/seeds/store/*.json "$1/"
}
# the serving targets: the committed seeds (a selector byte, a serving
# scenario cut to a few requests, a trace after a NUL byte; result files;
# costs sections), and every Hugging Face config of tests/data/hf/ under
# four selectors for hfmoe
seed_serve() { cp tests/fuzz/seeds/serve/* "$1/"; }
seed_servecheck() { cp tests/fuzz/seeds/servecheck/* "$1/"; }
seed_servesearch() { cp tests/fuzz/seeds/servesearch/* "$1/"; }
seed_costserve() { cp tests/fuzz/seeds/costserve/* "$1/"; }
seed_report() { cp tests/fuzz/seeds/report/* "$1/"; }
seed_hfmoe() {
	for f in tests/data/hf/*.json; do
		for b in 0 1 2 7; do prefixed "$1" $b "$f"; done
	done
}
# the cluster target: each jobs file of tests/data/cluster/ under the
# format byte (selector 0, then the format: 0 auto), each cluster spec of
# scenarios/cluster/ (selector 1), and openb's node and pod rows joined at
# a 0xff byte (selector 2)
seed_cluster() {
	i=0
	for f in tests/data/cluster/*.csv tests/data/cluster/*.txt tests/data/cluster/*.json scenarios/cluster/*.csv; do
		[ -f "$f" ] || continue
		{ printf '\000\000'; cat "$f"; } >"$1/jobs-$i"; i=$((i + 1))
	done
	for f in scenarios/cluster/*.json tests/data/cluster/small.json bench/bench_cluster.json; do
		[ -f "$f" ] && prefixed "$1" 1 "$f"
	done
	{ printf '\002'; cat tests/data/cluster/openb_node_list_gpu_node.csv; printf '\377';
	  cat tests/data/cluster/openb_pod_list.csv; } >"$1/openb"
}

status=0
printf '%-12s %8s %14s %10s  %s\n' target seconds executions exec/s findings
for t in $targets; do
	bin=$build/fuzz_$t
	[ -x "$bin" ] || { echo "run.sh: no $bin (make fuzz)" >&2; exit 2; }
	mkdir -p "$corp/$t"
	[ -n "$(ls -A "$corp/$t")" ] || "seed_$t" "$corp/$t"
	log=$build/fuzz_$t.log
	before=$(ls "$finds" | grep -Ec "^$t-(crash|leak|timeout|oom)-")
	# -timeout 25: an input that runs past 20 s (the issue's bound) is a
	# finding; slow units (over 20 s of a loaded machine) are only noted
	"$bin" "$corp/$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
		-report_slow_units=20 -artifact_prefix="$finds/$t-" >"$log" 2>&1
	rc=$?
	after=$(ls "$finds" | grep -Ec "^$t-(crash|leak|timeout|oom)-")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	found=$((after - before))
	what=$(ls -t "$finds" | grep -E "^$t-(crash|leak|timeout|oom)-" | head -n "$found" | tr '\n' ' ')
	printf '%-12s %8s %14s %10s  %s\n' "$t" "$secs" "${execs:-?}" "${rate:-?}" \
		"$([ "$found" -gt 0 ] || [ "$rc" -ne 0 ] && echo "$found (exit $rc): $what $log" || echo 0)"
	[ "$found" -gt 0 ] || [ "$rc" -ne 0 ] && status=1
done
exit $status
