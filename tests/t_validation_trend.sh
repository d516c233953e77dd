#!/bin/sh
# tests/t_validation_trend.sh - models/validation/trend.py (issue 35's trend
# check) on synthetic CSVs whose slopes are known by construction:
#  - family "steep": step-time errors 2 + 5 log10(n) + d at n = 8^k
#    (k = 1..5, GPUs in a num_gpus column), d = (1, -2, 0, 2, -1) points,
#    orthogonal to 1 and to log10(n), so the least-squares slope is exactly
#    5 points per decade and its standard error sqrt(sum d^2 / (5 - 2) /
#    Sxx) with Sxx = 10 log10(8)^2: sqrt(10 / 3 / 8.15572) = 0.63931;
#  - family "flat" (serving format, output_throughput, GPUs from each row's
#    scenario): step-time errors -1 - 2 log10(n) + d / 2 at n = 2, 20, 200,
#    so the slope is -2 +- sqrt(1.5 / (3 - 2) / 2) = 0.86603 (Sxx = 2,
#    sum (d / 2)^2 = 1.5): within +-3, a pass;
#    the throughput is predicted = measured / (1 + e / 100);
#  - family "narrow": 8 and 64 GPUs, under a decade: skipped.
# Then a row whose measured_s is not a number: exit status 2, the row named.
# TAP for prove; run from the repository root.

n=0
failed=0
ok() { # ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-trend.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import math, os, sys
t = sys.argv[1]
d = [1, -2, 0, 2, -1]
with open(os.path.join(t, "steep-published.csv"), "w") as f:
    f.write("config,predicted_s,measured_s,num_gpus\n")
    for k in range(1, 6):
        g = 8 ** k
        e = 2 + 5 * math.log10(g) + d[k - 1]
        f.write("steep-%d,%.12f,1.0,%d\n" % (g, 1 + e / 100, g))
os.mkdir(os.path.join(t, "flat"))
with open(os.path.join(t, "flat-published.csv"), "w") as f:
    f.write("config,predicted,measured,metric,scenario\n")
    for i, g in enumerate((2, 20, 200)):
        e = -1 - 2 * math.log10(g) + [1, -2, 1][i] / 2
        scen = "flat/s%d.json" % g
        with open(os.path.join(t, scen), "w") as s:
            s.write('{"cluster": {"num_gpus": %d}}' % g)
        f.write("flat-%d,%.12f,1000,output_throughput,%s\n" % (g, 1000 / (1 + e / 100), scen))
with open(os.path.join(t, "narrow-published.csv"), "w") as f:
    f.write("config,predicted_s,measured_s\nnarrow-8xh100,1.1,1.0\nnarrow-64xh100,1.2,1.0\n")
with open(os.path.join(t, "bad-published.csv"), "w") as f:
    f.write("config,predicted_s,measured_s,num_gpus\nb-1,1.0,1.0,8\nb-2,1.0,fast,80\n")
PY
ok $? "synthetic CSVs written"

# the flat family's d / 2 = (0.5, -1, 0.5) is orthogonal to log10 of 2, 20, 200
out=$(python3 models/validation/trend.py --csv "$tmp/steep-published.csv" \
	"$tmp/flat-published.csv" "$tmp/narrow-published.csv")
rc=$?
[ "$rc" -eq 1 ]
ok $? "exit status 1 when a family fails (got $rc)"
echo "$out" | sed 's/^/# /'
field() { # field FAMILY COLUMN
	echo "$out" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["family"] == sys.argv[1]:
        print(r[sys.argv[2]])' "$1" "$2"
}
near() { # near X WANT TOL
	python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > float(sys.argv[3]))' "$@"
}
near "$(field steep slope_pts_per_decade)" 5 0.0005
ok $? "steep: slope 5 points per decade (got $(field steep slope_pts_per_decade))"
near "$(field steep slope_se)" 0.63931 0.0005
ok $? "steep: standard error 0.63931 (got $(field steep slope_se))"
[ "$(field steep verdict)" = fail ]
ok $? "steep: fails +-3 points per decade"
near "$(field steep gpus_max)" 32768 0
ok $? "steep: GPUs 8 to 32768 from num_gpus"
near "$(field flat slope_pts_per_decade)" -2 0.0005
ok $? "flat: throughput rows read as step-time error, slope -2 (got $(field flat slope_pts_per_decade))"
near "$(field flat slope_se)" 0.86603 0.0005
ok $? "flat: standard error 0.86603 (got $(field flat slope_se))"
[ "$(field flat verdict)" = pass ] && near "$(field flat gpus_min)" 2 0
ok $? "flat: passes, GPUs from its scenarios"
[ "$(field narrow verdict)" = skipped ]
ok $? "narrow: 8 to 64 GPUs is under a decade, skipped"

python3 models/validation/trend.py --limit 6 --csv "$tmp/steep-published.csv" "$tmp/flat-published.csv" >/dev/null
ok $? "exit status 0 when every family is within --limit 6"

# --repredict: predictions written as 999 s (stale) are replaced by
# podplan's of the Megatron-Core 1.7B (48 GPUs) and 314B (3072 GPUs)
# scenarios; against their published steps the errors are then well under
# 50% (the README's weak-scaling table), where the stale ones are +220989%
# and +11794% (mean 116391%)
{
	echo "config,predicted_s,measured_s,scenario"
	echo "mcore-gpt-1.7b-48xh100,999,0.451854,models/validation/mcore/gpt-1.7b-48xh100.json"
	echo "mcore-gpt-314b-3072xh100,999,8.399305,models/validation/mcore/gpt-314b-3072xh100.json"
} > "$tmp/stale-published.csv"
mean=$(python3 models/validation/trend.py --csv "$tmp/stale-published.csv" |
	python3 -c 'import csv, sys; print(next(csv.DictReader(sys.stdin))["mean_error_pct"])')
near "$mean" 116391 1
ok $? "without --repredict the written predictions are read (mean error $mean%)"
mean=$(python3 models/validation/trend.py --repredict --csv "$tmp/stale-published.csv" |
	python3 -c 'import csv, sys; print(next(csv.DictReader(sys.stdin))["mean_error_pct"])')
near "$mean" 0 50
ok $? "--repredict predicts again (mean error $mean%)"

err=$(python3 models/validation/trend.py "$tmp/bad-published.csv" 2>&1 >"$tmp/stdout")
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$tmp/stdout" ]
ok $? "bad measured_s: exit status 2, nothing on stdout (got $rc)"
case "$err" in
*"bad-published.csv row 3: column measured_s is 'fast', expected a number"*) true ;;
*) false ;;
esac
ok $? "bad measured_s: the message names the file, row and column ($err)"

echo "1..$n"
[ "$failed" -eq 0 ]
