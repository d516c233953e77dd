#!/bin/sh
# tests/t_gb200_nvl72.sh - the shipped GB200 NVL72 scenario (Llama 3.1 405B,
# FP8, 576 GPUs in 8 racks) through every command: check, predict, search,
# size, cost and report; no figure printed as NaN; a GPU with no public
# price answered by the option's own price, or refused naming it. Expected
# figures are worked out by hand from the rack's shape (18 compute trays
# of 4 GPUs, 72 per NVLink domain) and CoreWeave's list price ($42.00 per
# 4-GPU gb200-4x instance-hour = $10.50 per GPU-hour). TAP for prove; run
# from the repository root.

repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
scen=$repo/scenarios/llama405b-576-gb200-nvl72-rent-or-b200-or-build.json
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-gb200.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
HOME=$tmp
export HOME

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
has() { grep -q -- "$2" "$1"; } # has FILE TEXT
nonan() { ! grep -qi -E '(^|[^a-z])nan([^a-z]|$)' "$1"; }

# check: 576 GPUs = 144 trays of 4 = 8 domains of 72; one NIC per GPU
"$bin" check "$scen" >"$tmp/check" 2>&1
ok $? "check exits 0"
has "$tmp/check" "576 x gb200, 4 per node (144 nodes), NVLink domains of 72 GPUs (8 domains)"
ok $? "check shows trays of 4 and 8 domains of 72"

"$bin" predict --json "$scen" >"$tmp/predict.json" 2>"$tmp/predict.err"
ok $? "predict exits 0"
nonan "$tmp/predict.json"
ok $? "predict prints no NaN"
"$bin" predict "$scen" >"$tmp/predict" 2>&1
has "$tmp/predict" "(144 nodes of 4, NVLink domains of 72 GPUs (8 domains)), nvlink5 inside domains"
ok $? "predict names the domains"

"$bin" search "$scen" >"$tmp/search" 2>&1
ok $? "search exits 0"
has "$tmp/search" 'Price      \$10.5 per GPU-hour (coreweave_gb200 on_demand'
ok $? "search prices GB200 at CoreWeave's \$42.00 / 4 GPUs"

"$bin" size "$scen" >"$tmp/size" 2>&1
ok $? "size exits 0"
nonan "$tmp/size"
ok $? "size prints no NaN"
has "$tmp/size" '576 x gb200 (ib-ndr)  *\$10.5 '
ok $? "size prices the 576-GPU GB200 option"

"$bin" cost --json "$scen" >"$tmp/cost.pretty" 2>"$tmp/cost.err"
ok $? "cost exits 0"
tr -d '\t\n' <"$tmp/cost.pretty" >"$tmp/cost.json"
nonan "$tmp/cost.json"
ok $? "cost prints no NaN"
has "$tmp/cost.json" '"item":"GB200-NVL72-186GB coreweave_gb200 on_demand","value":10.5,'
ok $? "cost takes CoreWeave's GB200 price with its source"
has "$tmp/cost.json" '"item":"GB200-NVL72-186GB scenario price on_demand (scenario override)","value":6,'
ok $? "cost takes a rent option's own usd_per_gpu_hour with no provider"
# the build option's tray: 4 GPUs x 1,200 W x 1.8 (prices.json chip-to-server) = 8.64 kW
has "$tmp/cost.json" '"item":"gb200 node max power (4 x 1200 W TDP x 1.80 chip-to-server)","value":8.64,'
ok $? "cost builds with the option's server_usd and derives the tray's power"

# a GPU with no public price at all: the option's own price works, none is refused
sed -e 's/"gpu": "gb200"/"gpu": "h800"/' -e 's/"num_gpus": 576,/"num_gpus": 576, "gpus_per_node": 8,/' \
    -e 's/"nics_per_node": 4/"nics_per_node": 8/' "$scen" |
	sed -e '/"name": "rent-gb200-coreweave"/,/"_comment"/d' -e '/"name": "rent-b200-lambda"/,/"_comment": "the same/d' \
	>"$tmp/h800.json"
"$bin" cost "$tmp/h800.json" >"$tmp/h800" 2>&1
ok $? "cost prices an H800 (no prices.json entry) from the options' own prices"
sed -e 's/, "server_usd": 166667//' "$tmp/h800.json" >"$tmp/h800b.json"
"$bin" cost "$tmp/h800b.json" >"$tmp/h800b" 2>&1
rc=$?
[ $rc -eq 2 ] && has "$tmp/h800b" 'no public price for GPU "h800" in prices.json' &&
	has "$tmp/h800b" 'expected "server_usd" on the option'
ok $? "a build option with no price for a GPU with none is refused (exit 2, no public price)"
sed -e 's/"usd_per_gpu_hour": 6.0/"tier": "on_demand"/' "$tmp/h800.json" >"$tmp/h800c.json"
"$bin" cost "$tmp/h800c.json" >"$tmp/h800c" 2>&1
rc=$?
[ $rc -eq 2 ] && has "$tmp/h800c" 'needs "provider".* or its own "usd_per_gpu_hour"'
ok $? "a rent option with neither provider nor price is refused (exit 2)"

"$bin" report "$scen" -o "$tmp/rep" --db "$tmp/db" >"$tmp/report" 2>&1
ok $? "report exits 0"
[ -s "$tmp/rep/index.html" ] && nonan "$tmp/rep/index.html"
ok $? "report writes the page, no NaN"

# NVL72 written as one 72-GPU node with its 72 NICs (refused above 64 before)
sed -e 's/"num_gpus": 576,/"num_gpus": 576, "gpus_per_node": 72,/' -e 's/"nics_per_node": 4/"nics_per_node": 72/' \
	"$scen" >"$tmp/node72.json"
"$bin" check "$tmp/node72.json" >"$tmp/node72" 2>&1
ok $? "nics_per_node 72 is accepted"
has "$tmp/node72" "set cluster.nvlink_domain_size for the domain instead"
ok $? "gpus_per_node 72 on GB200 warns with the tray's shape"

echo "1..$n"
[ "$failed" -eq 0 ]
