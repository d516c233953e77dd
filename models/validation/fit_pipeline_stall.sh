#!/bin/sh
# models/validation/fit_pipeline_stall.sh [BIN] - reproduce the fit of
# kernels.json "blocking_pipeline_stall" (see models/SOURCES.md).
#
# For each candidate value it copies models/ with that value, runs
# `podplan validate` on the published rows and prints
#   train: RMS and mean |error| over the pipelined rows (PP > 1) of
#          Narayanan et al. SC'21 Table 1 and Korthikanti et al. 2022
#          Table 5 + Sec. 6.3 (the rows the value is chosen on);
#   held out: mean and max |error| over Narayanan Table 2's PTD-P rows,
#          which play no part in the choice.
# The chosen value is the one with the smallest training RMS.
set -eu
bin=${1:-bin/podplan}
csv=models/validation/validation-public.csv
[ -x "$bin" ] || { echo "fit_pipeline_stall.sh: $bin not built (run make)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/pp-stall.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '%-7s %11s %15s %19s %15s\n' stall "train rms" "train mean|e|" "held-out mean|e|" "held-out max"
for k in 0.00 0.02 0.04 0.06 0.08 0.09 0.10 0.11 0.12 0.13 0.14 0.16; do
	rm -rf "$tmp/models"
	cp -r models "$tmp/models"
	# every "blocking_pipeline_stall" figure takes the candidate value
	awk -v k="$k" '
		/"blocking_pipeline_stall"/ { want = 1 }
		want && /"value"/ { sub(/"value": [-0-9.eE+]+/, "\"value\": " k); want = 0 }
		{ print }' models/kernels.json >"$tmp/models/kernels.json"
	PODPLAN_DATA="$tmp/models" "$bin" validate "$csv" --csv >"$tmp/out.csv"
	# columns: csv_line,table,model,config,metric,measured,predicted,error_pct,primary
	awk -F'"' -v k="$k" '
		NR == 1 { next }
		{
			table = $2; model = $4; config = $6
			n = split($NF, tail, ","); err = tail[n - 1] + 0; primary = tail[n]
			if (primary != 1) next
			pp = config; sub(/.* PP/, "", pp); pp += 0
			if (model ~ /PTD-P/) { hn++; ha += err < 0 ? -err : err;
				if ((err < 0 ? -err : err) > hm) hm = err < 0 ? -err : err; next }
			if (pp < 2) next
			if (table ~ /Table 1/ || table ~ /Table 5/ || table ~ /Sec 6.3/) {
				tn++; ts += err * err; ta += err < 0 ? -err : err }
		}
		END { printf "%-7s %10.2f%% %14.2f%% %18.2f%% %14.2f%%   (%d train, %d held-out rows)\n",
			k, sqrt(ts / tn), ta / tn, ha / hn, hm, tn, hn }' "$tmp/out.csv"
done
