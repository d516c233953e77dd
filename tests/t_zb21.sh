#!/bin/sh
# tests/t_zb21.sh - zero-bubble issue 21 (sail-sg/zero-bubble-pipeline-
# parallelism, 2024-05-14): the ZB paper's 6.2B GPT (arXiv:2401.10241
# Table 3) on 8 H800 under 1F1B, interleaved 1F1B, ZB-2P and ZB-V, the
# scenarios of models/validation/zb21/ (PP 8, 24 micro-batches of 1: the
# repo script's defaults, the issue states neither). Published:
#   1F1B 55 samples/s 48G, interleaved 66 / 57G, ZB-2P 67 / 79G, ZB-V 64 / 53G.
# Checks podplan's ORDER of samples/s and of peak memory per GPU against the
# issue's, pair by pair. A published gap under 2% (ZB-2P 67 vs interleaved
# 66) is a tie: podplan passes it when its two are within 5% of each other,
# either way round. The absolute figures are printed, not checked (the run's
# PP, micro-batches and sequence are not known). Pairs podplan gets the
# other way round are TAP TODO, with the mechanism it lacks
# (models/validation/zb21/PREDICTION.md, docs/validation.md). TAP for prove;
# run from the repository root.

repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
dir=$repo/models/validation/zb21
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-zb21.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
HOME=$tmp
export HOME

n=0
failed=0
ok() { # ok STATUS DESCRIPTION [TODO-REASON]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	elif [ -n "$3" ]; then
		echo "not ok $n - $2 # TODO $3"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
# jnum FILE KEY: the first number after "KEY": in podplan's JSON
jnum() { awk -v k="\"$2\":" '$1 == k { print $2 + 0; exit }' "$1"; }
# gt A B: A > B
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
# tie A B: within 5% of each other
tie() { awk -v a="$1" -v b="$2" 'BEGIN { d = a > b ? a / b - 1 : b / a - 1; exit !(d < 0.05) }'; }

for s in 1f1b interleaved zb2p zbv; do
	"$bin" predict --json "$dir/6.2b-8xh800-$s.json" >"$tmp/$s.json" 2>"$tmp/$s.err"
	ok $? "predict $s exits 0"
	step=$(jnum "$tmp/$s.json" step_time_s)
	mem=$(jnum "$tmp/$s.json" per_gpu_bytes)
	[ -n "$step" ] && [ -n "$mem" ]
	ok $? "$s: step_time_s and memory.per_gpu_bytes read"
	eval "sps_$s=$(awk -v t="$step" 'BEGIN { printf "%.3f", 24 / t }')"
	eval "gib_$s=$(awk -v b="$mem" 'BEGIN { printf "%.3f", b / 2^30 }')"
done

# for information: podplan vs the issue (GB read as GiB; within 10% or not)
for row in "1f1b 55 48" "interleaved 66 57" "zb2p 67 79" "zbv 64 53"; do
	set -- $row
	eval "sps=\$sps_$1 gib=\$gib_$1"
	awk -v s="$1" -v ps="$sps" -v ms="$2" -v pg="$gib" -v mg="$3" 'BEGIN {
		es = (ps / ms - 1) * 100; eg = (pg / mg - 1) * 100
		printf "# %-11s %6.1f samples/s vs %d (%+.1f%%, %s), %5.1f GiB vs %dG (%+.1f%%, %s)\n",
		    s, ps, ms, es, (es < 10 && es > -10) ? "within 10%" : "outside 10%",
		    pg, mg, eg, (eg < 10 && eg > -10) ? "within 10%" : "outside 10%" }'
done

# throughput: ZB-2P ~ interleaved (tie) > ZB-V > 1F1B
tie "$sps_zb2p" "$sps_interleaved"
ok $? "samples/s: ZB-2P ($sps_zb2p) ties interleaved ($sps_interleaved) within 5% (published 67 vs 66)"
gt "$sps_interleaved" "$sps_zbv"
ok $? "samples/s: interleaved ($sps_interleaved) > ZB-V ($sps_zbv) (published 66 > 64)" \
	"podplan charges ZB-V's chunks only their F+B-2W bubble; what made the issue's ZB-V 3% slower is not established"
gt "$sps_zb2p" "$sps_zbv"
ok $? "samples/s: ZB-2P ($sps_zb2p) > ZB-V ($sps_zbv) (published 67 > 64)" \
	"podplan ends a step when its last rank does: ZB-2P pays the parallelogram's (p-1)F stagger, which the repo's optimizer post-validation overlaps with the next iteration"
gt "$sps_zbv" "$sps_1f1b"
ok $? "samples/s: ZB-V ($sps_zbv) > 1F1B ($sps_1f1b) (published 64 > 55)"
gt "$sps_interleaved" "$sps_1f1b"
ok $? "samples/s: interleaved ($sps_interleaved) > 1F1B ($sps_1f1b) (published 66 > 55)"

# memory: ZB-2P > interleaved > ZB-V > 1F1B
gt "$gib_zb2p" "$gib_interleaved"
ok $? "memory: ZB-2P ($gib_zb2p GiB) > interleaved ($gib_interleaved) (published 79 > 57)"
gt "$gib_interleaved" "$gib_zbv"
ok $? "memory: interleaved ($gib_interleaved GiB) > ZB-V ($gib_zbv) (published 57 > 53)"
gt "$gib_zbv" "$gib_1f1b"
ok $? "memory: ZB-V ($gib_zbv GiB) > 1F1B ($gib_1f1b) (published 53 > 48)"

echo "1..$n"
[ "$failed" -eq 0 ]
