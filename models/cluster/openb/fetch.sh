#!/bin/sh
# fetch.sh - download the two files of Alibaba's openb trace that the FGD
# validation rows and `podplan cluster --fragmentation` read, at the commit
# SOURCES.md names, and check them against their SHA-256. They are not
# shipped with podplan: see SOURCES.md for the terms.
# Usage: sh models/cluster/openb/fetch.sh   (needs curl or wget)
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
commit=7a6c496e4f4b6ce6150be8f881cb051bf2abff42
base=https://raw.githubusercontent.com/alibaba/clusterdata/$commit/cluster-trace-gpu-v2023/csv
for entry in \
	openb_node_list_gpu_node.csv:2beca64b4d3dfa342036a34b56a495c6cef9225db836c81f541282cb1df320b5 \
	openb_pod_list_default.csv:1ee7ed79c27a3b0861cda8ddba86a004c6aba904caafa329a76ae93ca63834a8; do
	name=${entry%%:*}
	sum=${entry#*:}
	tmp="$dir/$name.part"
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL "$base/$name" -o "$tmp"
	else
		wget -q -O "$tmp" "$base/$name"
	fi
	got=$(sha256sum "$tmp" | cut -d' ' -f1)
	if [ "$got" != "$sum" ]; then
		rm -f "$tmp"
		echo "fetch.sh: $name: SHA-256 $got, expected $sum (alibaba/clusterdata @$commit)" >&2
		exit 1
	fi
	mv "$tmp" "$dir/$name"
	echo "fetched $name"
done
