# calibrate/device_fuzz.sh - sourced by the device scripts: the libFuzzer
# targets of build/fuzz (make fuzz on the build machine, carried) on the CPUs
# a GPU run leaves idle, from the seed corpora of tests/fuzz/run.sh; the CPUs
# dealt to FUZZ_TARGETS (default all six) in turn, the first named first.
#   fuzz_start FIRST_CPU SECONDS   seed and start them on CPUs FIRST_CPU.. in the
#                                  background (needs >= 8 CPUs)
#   fuzz_finish OUT                wait; OUT/fuzz.txt (executions, exec/s and
#                                  findings per target) and OUT/fuzz.tgz (logs, findings,
#                                  the corpora grown: unpack into build/fuzz to go on)
fuzz_targets=${FUZZ_TARGETS:-scenario catalog ncclimport csv store hfconfig}
fuzz_dir=/tmp/fuzz
fuzz_pids=

fuzz_start() {
	local ncpu
	ncpu=$(nproc)
	mkdir -p "$fuzz_dir"
	if [ ! -d build/fuzz ] || [ "$ncpu" -lt 8 ]; then
		echo "fuzz: no build/fuzz or fewer than 8 CPUs: skipped"
		return 0
	fi
	echo "fuzz: seeding, then CPUs $1-$((ncpu - 1)) for $2 s, in the background"
	# one background job: seeding the corpora, then the targets (the GPU
	# parts do not wait for the seeding)
	(
		cpu=$1
		for t in $fuzz_targets; do # the seed corpora, as run.sh makes them
			timeout 60 sh tests/fuzz/run.sh build/fuzz 1 "$t" > /dev/null 2>&1
		done
		j=0
		while [ "$cpu" -lt "$ncpu" ]; do
			for t in $fuzz_targets; do
				[ "$cpu" -lt "$ncpu" ] || break
				taskset -c "$cpu" build/fuzz/fuzz_$t build/fuzz/corpus/$t \
					-max_total_time="$2" -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
					-report_slow_units=20 -artifact_prefix="$fuzz_dir/$t-" \
					> "$fuzz_dir/$t.$j.log" 2>&1 &
				cpu=$((cpu + 1))
			done
			j=$((j + 1))
		done
		wait
	) &
	fuzz_pids=$!
}

fuzz_finish() {
	local out=$1 p t f e r ex rate n
	for p in $fuzz_pids; do wait "$p"; done
	{
		printf '%-12s %14s %10s %s\n' target executions exec/s findings
		for t in $fuzz_targets; do
			ex=0; rate=0
			for f in "$fuzz_dir/$t".*.log; do
				[ -f "$f" ] || continue
				e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -1)
				r=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$f" | tail -1)
				ex=$((ex + ${e:-0})); rate=$((rate + ${r:-0}))
			done
			n=$(ls "$fuzz_dir" | grep -Ec "^$t-(crash|leak|timeout|oom)-")
			printf '%-12s %14s %10s %s\n' "$t" "$ex" "$rate" "$n"
		done
	} > "$out/fuzz.txt"
	# the corpora too: the next call carries them on from here
	tar -czf "$out/fuzz.tgz" -C "$fuzz_dir" . -C "$PWD/build/fuzz" corpus 2>/dev/null
}
