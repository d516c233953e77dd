# calibrate/device_fuzz.sh - sourced by the device scripts: the libFuzzer
# targets of build/fuzz (make fuzz on the build machine, carried) on the CPUs
# a GPU run leaves idle, from the seed corpora of tests/fuzz/run.sh; the CPUs
# dealt to FUZZ_TARGETS (default all six) in turn, the first named first. A
# target named NAME:N gets N CPUs before the rest are dealt in turn (e.g.
# FUZZ_TARGETS="costserve:5 serve:2 cluster": 5 and 2 CPUs, cluster the rest).
#   fuzz_start FIRST_CPU SECONDS   seed and start them on CPUs FIRST_CPU.. in the
#                                  background (needs >= 8 CPUs)
#   fuzz_finish OUT                wait; OUT/fuzz.txt (executions, exec/s and
#                                  findings per target) and OUT/fuzz.tgz (logs, findings,
#                                  the corpora grown: unpack into build/fuzz to go on)
fuzz_targets=${FUZZ_TARGETS:-scenario catalog ncclimport csv store hfconfig}
fuzz_dir=/tmp/fuzz
fuzz_pids=

# the target names of FUZZ_TARGETS, without their counts
fuzz_names() { for tn in $fuzz_targets; do echo "${tn%%:*}"; done; }

# fuzz_one TARGET CPU SECONDS N: one libFuzzer process on CPU, log TARGET.N.log
fuzz_one() {
	taskset -c "$2" build/fuzz/fuzz_$1 build/fuzz/corpus/$1 \
		-max_total_time="$3" -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
		-report_slow_units=20 -artifact_prefix="$fuzz_dir/$1-" \
		> "$fuzz_dir/$1.$4.log" 2>&1 &
}

fuzz_start() {
	local ncpu
	ncpu=$(nproc)
	mkdir -p "$fuzz_dir"
	if [ ! -d build/fuzz ] || [ "$ncpu" -lt 8 ]; then
		echo "fuzz: no build/fuzz or fewer than 8 CPUs: skipped"
		return 0
	fi
	# the scratch files on a tmpfs: the report target fsyncs each file it
	# writes, which on a disk bounds it by the flush latency, not the CPU
	[ -n "$TMPDIR" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm; }
	echo "fuzz: seeding, then CPUs $1-$((ncpu - 1)) for $2 s, in the background (scratch ${TMPDIR:-/tmp})"
	# one background job: seeding the corpora, then the targets (the GPU
	# parts do not wait for the seeding)
	(
		cpu=$1
		for t in $(fuzz_names); do # the seed corpora, as run.sh makes them
			timeout 60 sh tests/fuzz/run.sh build/fuzz 1 "$t" > /dev/null 2>&1
		done
		j=0
		for tn in $fuzz_targets; do # the stated counts first
			case $tn in *:*) ;; *) continue ;; esac
			k=0
			while [ "$k" -lt "${tn#*:}" ] && [ "$cpu" -lt "$ncpu" ]; do
				fuzz_one "${tn%%:*}" "$cpu" "$2" "$j"
				cpu=$((cpu + 1)); k=$((k + 1)); j=$((j + 1))
			done
		done
		while [ "$cpu" -lt "$ncpu" ]; do # the rest in turn
			dealt=0
			for tn in $fuzz_targets; do
				case $tn in *:*) continue ;; esac
				[ "$cpu" -lt "$ncpu" ] || break
				fuzz_one "$tn" "$cpu" "$2" "$j"
				cpu=$((cpu + 1)); j=$((j + 1)); dealt=1
			done
			[ "$dealt" = 1 ] || break
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
		for t in $(fuzz_names); do
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
