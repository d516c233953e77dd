#!/bin/sh
# tests/check-layers.sh [ROOT] - every #include "..." in ROOT's sources
# against sim/LAYERS: a file may include headers of its own layer and of the
# layers LAYERS lists for it, nothing above; sim/ includes no CUDA, NCCL or
# MPI header. Prints each violation as FILE:LINE: what and why; exit status
# 1 when there is one, 0 otherwise.
root=${1:-.}
cd "$root" || exit 2
here=$(pwd -P)
layers=sim/LAYERS
[ -r "$layers" ] || { echo "check-layers: $root/sim/LAYERS is missing" >&2; exit 2; }
tab=$(grep -v '^[[:space:]]*#' "$layers" | grep -v '^[[:space:]]*$')

# the layer of a folder; empty when LAYERS does not name it
layer_of_dir() {
	printf '%s\n' "$tab" | awk -v d="$1" '$2 == d { print $1; exit }'
}
folder_of_layer() {
	printf '%s\n' "$tab" | awk -v l="$1" '$1 == l { print $2; exit }'
}
allowed() { # allowed FROM TO
	[ "$1" = "$2" ] && return 0
	printf '%s\n' "$tab" | awk -v f="$1" -v t="$2" '
		$1 == f { for (i = 3; i <= NF; i++) if ($i == t) ok = 1 }
		END { exit ok ? 0 : 1 }'
}

bad=0
files=$(find sim reports calibrate bench tests -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) \
	! -path 'tests/layers-*' 2>/dev/null | sort)
for f in $files; do
	dir=$(dirname "$f")
	from=$(layer_of_dir "$dir")
	if [ -z "$from" ]; then
		echo "$f: folder $dir is not a layer of sim/LAYERS"
		bad=1
		continue
	fi
	case "$f" in
	sim/*)
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<\(cuda\|cublas\|nccl\|mpi\|curand\|cudnn\)[^>]*>' "$f" |
		while IFS=: read -r n rest; do
			echo "$f:$n: $rest: sim/ builds without a GPU; CUDA, NCCL and MPI code lives in calibrate/"
		done | grep . && bad=1
		;;
	esac
	out=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$f" | sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/')
	[ -n "$out" ] || continue
	while read -r n h; do
		case "$h" in
		*/*)
			# "layer/x.h" from the sim/ root, or a relative path
			top=${h%%/*}
			# as the compiler looks: the including file's folder first
			if [ -f "$dir/$h" ]; then
				to=$(layer_of_dir "$(cd "$dir/$(dirname "$h")" && pwd -P | sed "s#^$here/##")")
			elif [ -f "sim/$h" ]; then
				to=$(layer_of_dir "sim/$top")
			else
				echo "$f:$n: \"$h\": no such header"
				bad=1
				continue
			fi
			;;
		*)
			if [ -f "$dir/$h" ]; then
				to=$from
			elif [ -f "reports/$h" ]; then
				to=reports
			else
				echo "$f:$n: \"$h\": not in $dir/ or reports/ (headers of sim/ are included as \"layer/name.h\")"
				bad=1
				continue
			fi
			;;
		esac
		if [ -z "$to" ]; then
			echo "$f:$n: \"$h\": its folder is not a layer of sim/LAYERS"
			bad=1
		elif ! allowed "$from" "$to"; then
			echo "$f:$n: \"$h\": layer $from ($(folder_of_layer "$from")) may not include layer $to ($(folder_of_layer "$to")): see sim/LAYERS"
			bad=1
		fi
	done <<EOT
$out
EOT
done
[ "$bad" = 0 ] && echo "check-layers: $(printf '%s\n' "$files" | wc -l | tr -d ' ') files, every include goes down or sideways within its layer"
exit $bad
