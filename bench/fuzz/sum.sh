#!/bin/sh
# bench/fuzz/sum.sh [FILE...] - the executions and findings of the committed
# fuzz runs (each file: fuzz.txt of a device run, calibrate/device_fuzz.sh),
# summed per target. Each run seeded its corpora afresh from the repository.
#   sh bench/fuzz/sum.sh            every bench/fuzz/device-*.txt
[ $# -gt 0 ] || set -- "$(dirname "$0")"/device-*.txt
awk 'FNR > 1 && NF >= 4 { ex[$1] += $2; fi[$1] += $4; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
     END { printf "%-12s %14s %9s\n", "target", "executions", "findings"
           for (i = 1; i <= n; i++) printf "%-12s %14d %9d\n", order[i], ex[order[i]], fi[order[i]] }' "$@"
echo "($# runs: $(for f in "$@"; do basename "$f" .txt; done | tr '\n' ' '))"
