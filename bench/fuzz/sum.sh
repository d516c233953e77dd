#!/bin/sh
# bench/fuzz/sum.sh [FILE...] - the executions and findings of the committed
# fuzz runs (each file: fuzz.txt of a device run, calibrate/device_fuzz.sh),
# summed per target. The runs to device-2026-12-02g seeded their corpora
# afresh from the repository; later ones carried on the corpora the run
# before grew (fuzz.tgz, merged with libFuzzer's -merge=1 where they grew
# past what a call carries). local-*.txt: runs on the build machine, the
# same table from the targets' logs (build/fuzz/fuzz_T build/fuzz/corpus/T
# with calibrate/device_fuzz.sh's flags and -max_total_time=N, under
# nice -n 19, one CPU a target).
# local-2026-12-07a: the six serving/validation/cost/report targets (serve,
# servecheck, servesearch, costserve, hfmoe, report), 1800 s each, all six
# at once under nice -n 10 on the 2-core build machine beside other work
# (load average 20-33), from their seed corpora; servesearch's one finding
# is a libFuzzer timeout (36 s wall on the loaded machine) whose input
# reruns in 1.8 s of CPU under ASan: a slow unit, not a hang.
# device-2026-12-07b: the same six on the 16 CPUs of an H100 machine
# (Intel Xeon, no GPU work), 500 s, from the seed corpora, the CPUs dealt
# report, servecheck, hfmoe, serve (three each), servesearch, costserve
# (two each). hfmoe's finding: a float-to-int cast of mlp_only_layers
# before its range check (hfconfig.c, fixed, test_moe_input); servesearch's:
# a libFuzzer timeout (36 s) on a scenario of 88,192 prompts whose search
# the release build also takes over a minute of CPU on (the search does not
# bound its simulated work by the prompt count: an open serving issue).
# local-2026-12-07d: fuzz_cluster (new) alone, 300 s under nice -n 10 on the
# idle build machine, from its seed corpus grown by two short runs before it
# (20 and 30 s; their two findings were leaks after a JSON syntax error in
# pp_cspec_parse and the spot trace reader, fixed before this run, and are
# not counted here).
# local-2026-12-07e: serve then servecheck, and hfmoe then costserve, two
# processes under nice -n 19 with -runs= (the executions each still needed
# for 1e7) on the 2-core build machine beside five other agents' builds and
# tests (load average 7-19), from their seed corpora, with the fuzz build of
# e086f9a; stopped after 91 minutes (SIGINT, final stats printed) before the
# full test run, so servecheck and costserve had just begun. No device was
# lent this session.
# local-2026-12-07f: the same four, rebuilt from 0636097 (after the serving
# speed-ups), on the idle build machine under nice -n 10 after the full test
# run, one process a core (serve then servecheck, hfmoe then costserve), from
# the corpora 07e grew; -runs= the executions serve and hfmoe still needed
# for 1e7; stopped after 21 minutes (SIGINT, final stats printed).
# device-2026-12-07g: the fuzz build of bc59e2d on the 16 CPUs of an H100
# machine (Intel Xeon, no GPU work), 540 s, from the seed corpora plus the
# cluster and servesearch corpora of a 20 s local run; scratch files on
# /dev/shm (the report target fsyncs what it writes); report 6 CPUs,
# servesearch 4, cluster 3, costserve 2, servecheck 1. No finding.
# device-2026-12-08a: the same build and machine, next call, 500 s: report 6,
# servesearch 5, cluster 5. cluster's finding: a sacct AllocTRES count of
# 4294967295 cast to a job of -1 GPUs and a calloc of -1 placement slots
# (fixed, test_cluster_input); its other kept input, a serving deployment of
# 190 years, ran 15 s under the sanitizers and 1 s in the release build
# (6.8M events), a slow unit, not a finding.
# local-2026-12-08a: servecheck and costserve, the fuzz build of bc59e2d, one
# process each under nice -n 19 with -runs= the executions each still
# needed, on the 2-core build machine beside the helpers' builds and two
# full test runs (load average 4-7), from their seed corpora grown by a 1 s
# seeding run; stopped by SIGINT (final stats printed) once past 1e7 in
# all. No finding; costserve kept one slow unit (27 s on the loaded machine,
# a costs section refused at parse, 0.03 s in the release build).
#   sh bench/fuzz/sum.sh            every bench/fuzz/device-*.txt and local-*.txt
[ $# -gt 0 ] || set -- "$(dirname "$0")"/device-*.txt "$(dirname "$0")"/local-*.txt
awk 'FNR > 1 && NF >= 4 { ex[$1] += $2; fi[$1] += $4; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
     END { printf "%-12s %14s %9s\n", "target", "executions", "findings"
           for (i = 1; i <= n; i++) printf "%-12s %14d %9d\n", order[i], ex[order[i]], fi[order[i]] }' "$@"
echo "($# runs: $(for f in "$@"; do basename "$f" .txt; done | tr '\n' ' '))"
