#!/bin/sh
# tests/check-layers.sh [ROOT [OBJDIR]] - every #include "..." in ROOT's
# sources against sim/LAYERS: a file may include headers of its own layer
# and of the layers LAYERS lists for it, nothing above; sim/ includes no
# CUDA, NCCL or MPI header. With OBJDIR (the build folder, relative to ROOT
# or absolute: make check-layers passes it), also no call circle between
# the files of one folder: from `nm` of each object of a source under sim/
# and reports/, the symbols it defines and those it uses; file A uses file
# B when A uses a symbol B defines (a function or a table); a circle of
# such uses is reported with its files and one symbol per step, unless
# LAYERS allows it by a "circle FOLDER FILE..." line (a note then, and a
# note for an allowed circle that no longer exists). Prints each violation
# as FILE:LINE: what and why, or FOLDER: call circle ...; exit status 1
# when there is one, 0 otherwise.
root=${1:-.}
objdir=$2
cd "$root" || exit 2
here=$(pwd -P)
layers=sim/LAYERS
[ -r "$layers" ] || { echo "check-layers: $root/sim/LAYERS is missing" >&2; exit 2; }
tab=$(grep -v '^[[:space:]]*#' "$layers" | grep -v '^[[:space:]]*$' | grep -v '^circle[[:space:]]')
allow=$(grep '^circle[[:space:]]' "$layers" | awk '{ printf "%s%s:", sep, $2; sep = "|"
	n = 0; for (i = 3; i <= NF && $i !~ /^#/; i++) f[++n] = $i
	for (i = 2; i <= n; i++) for (j = i; j > 1 && f[j - 1] > f[j]; j--) { t = f[j]; f[j] = f[j - 1]; f[j - 1] = t }
	for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), f[i] }')

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

# function-level call circles between the files of one folder
if [ -n "$objdir" ]; then
	case "$objdir" in /*) ;; *) objdir=$here/$objdir ;; esac
	objs=$(cd "$objdir" 2>/dev/null && find sim reports -name '*.o' 2>/dev/null | sort |
		while read -r o; do [ -f "$here/${o%.o}.c" ] && echo "$o"; done)
	if [ -z "$objs" ]; then
		echo "check-layers: no object of a source under sim/ or reports/ in $objdir (build first)"
		bad=1
	else
		out=$(cd "$objdir" && nm -A -P -g $objs | awk -v allow="$allow" '
		{
			obj = $1; sub(/:$/, "", obj)
			n = split(obj, parts, "/")
			file = parts[n]; sub(/\.o$/, ".c", file)
			dir = parts[1]; for (i = 2; i < n; i++) dir = dir "/" parts[i]
			sym = $2; type = $3
			if (!((dir, file) in seen)) {
				seen[dir, file] = 1
				nf[dir]++; node[dir, nf[dir]] = file; idx[dir, file] = nf[dir]
				if (!(dir in hasdir)) { hasdir[dir] = 1; dirs[++ndirs] = dir }
			}
			if (type == "U") { nref++; rdir[nref] = dir; rfile[nref] = file; rsym[nref] = sym }
			else if (type != "w" && type != "v") def[dir, sym] = file
		}
		END {
			na = split(allow, al, "|")
			for (i = 1; i <= na; i++) allowed[al[i]] = 0
			for (r = 1; r <= nref; r++) {
				d = rdir[r]; f = rfile[r]
				if (!((d, rsym[r]) in def)) continue
				g = def[d, rsym[r]]
				if (g == f) continue
				a = idx[d, f]; b = idx[d, g]
				if (!((d, a, b) in edge)) edge[d, a, b] = rsym[r]
			}
			bad = 0; ncirc = 0
			for (k = 1; k <= ndirs; k++) {
				d = dirs[k]; m = nf[d]
				split("", reach)
				for (i = 1; i <= m; i++) for (j = 1; j <= m; j++) if ((d, i, j) in edge) reach[i, j] = 1
				for (x = 1; x <= m; x++) for (i = 1; i <= m; i++) if ((i, x) in reach)
					for (j = 1; j <= m; j++) if ((x, j) in reach) reach[i, j] = 1
				split("", done)
				for (s = 1; s <= m; s++) {
					if ((s in done) || !((s, s) in reach)) continue
					# its strongly connected component, names sorted
					nm = 0
					for (j = 1; j <= m; j++)
						if (j == s || (((s, j) in reach) && ((j, s) in reach))) { done[j] = 1; mem[++nm] = node[d, j] }
					for (i = 2; i <= nm; i++) for (j = i; j > 1 && mem[j - 1] > mem[j]; j--) { t = mem[j]; mem[j] = mem[j - 1]; mem[j - 1] = t }
					key = d ":"; for (i = 1; i <= nm; i++) key = key (i > 1 ? " " : "") mem[i]
					# a shortest way round from s
					split("", prev); split("", q); qh = 1; qt = 0; found = 0
					for (j = 1; j <= m; j++) if ((d, s, j) in edge) { prev[j] = s; q[++qt] = j; if (j == s) found = 1 }
					while (!found && qh <= qt) {
						u = q[qh++]
						for (j = 1; j <= m; j++) if (((d, u, j) in edge) && !(j in prev)) {
							prev[j] = u; q[++qt] = j; if (j == s) { found = 1; break }
						}
					}
					path = node[d, s]; why = ""; v = s; c = 0
					do {
						u = prev[v]; path = node[d, u] " -> " path
						why = node[d, u] " uses " edge[d, u, v] " of " node[d, v] (why == "" ? "" : "; ") why
						v = u; c++
					} while (v != s && c <= m)
					if (key in allowed) {
						allowed[key] = 1
						print "check-layers: note: " d ": call circle " path " (" why "), allowed by sim/LAYERS"
					} else {
						print d ": call circle " path " (" why "): files of one folder call each other; see sim/LAYERS"
						bad = 1
					}
					ncirc++
				}
			}
			for (i = 1; i <= na; i++) if (!allowed[al[i]])
				print "check-layers: note: sim/LAYERS allows a circle that is gone (" al[i] "): remove its line"
			if (!bad) print "check-layers: " nref " uses between objects, no call circle between the files of a folder" (ncirc ? " but the allowed ones" : "")
			exit bad
		}')
		st=$?
		printf '%s\n' "$out"
		[ "$st" = 0 ] || bad=1
	fi
fi
exit $bad
