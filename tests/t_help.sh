#!/bin/sh
# tests/t_help.sh - every option a command's parser takes is named by its
# --help.
#
# The options come from the code, not from a list kept here: in each
# sim/cli/*.c, the getopt_long tables (`struct option NAME[] = {{"long",
# ...}, ...}`), the short options of getopt_long's option string, the
# "--x" literals argv is compared with (serve's --search), the values an
# option's argument is compared with (strcmp(optarg, "time")) and the words
# a positional argument is checked against (the array given to
# pp_did_you_mean: catalog kinds, calib subcommands). Each belongs to the
# function it is written in: pp_cmd_NAME is `podplan NAME` (main.c's
# command table), pp_cmd_serve_search is `podplan serve --search`, and a
# helper (cmd_fit.c's parse_args) belongs to its file's one pp_cmd_
# function; main() is podplan's own (`podplan --help`). `podplan CMD --help`
# must exit 0 and name each: --long as
# "--long", a short option as "-c", a word as a word. --help and -h, which
# print the text, are not asked for. A command of main.c's table in which
# no option table is found fails too (the parser moved where this test
# does not look: teach it). TAP for prove; run from the repository root.

repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-help.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

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
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

# the commands: "name pp_cmd_function" from main.c's table
sed -n 's/^[[:space:]]*{"\([a-z-]*\)", *\(pp_cmd_[a-z_]*\),.*/\1 \2/p' sim/cli/main.c >"$tmp/cmds"
# functions that are not in the table but are a command's mode
# and main(): podplan's own options, `podplan --help`
printf '%s\n' "serve --search|pp_cmd_serve_search" "(podplan)|main" >"$tmp/modes"

# what each function's parser takes: "FUNCTION KIND VALUE FILE:LINE" with
# KIND long, short, word (a helper function's records name the helper)
for f in sim/cli/*.c; do
	awk -v file="$f" '
	# a function definition starts at column 0 and does not end in ";"
	/^[a-zA-Z_][a-zA-Z0-9_ *]*[ *]([a-zA-Z_][a-zA-Z0-9_]*)\(/ && !/;[[:space:]]*$/ && !/=/ {
		s = $0; sub(/\(.*/, "", s); sub(/.*[ *]/, "", s); fn = s; next
	}
	/^}/ { fn = "" }
	# string arrays: "static const char *const NAME[] = {...};" (may span lines)
	/static const char \*const [a-zA-Z_0-9]+\[\] *= *\{/ {
		s = $0; sub(/.*const /, "", s); sub(/\[.*/, "", s); arr = s
		key = (fn == "" ? "" : fn) SUBSEP arr; body = $0
		while (body !~ /\};/ && (getline line) > 0) body = body line
		vals = ""
		while (match(body, /"[^"]*"/)) {
			vals = vals " " substr(body, RSTART + 1, RLENGTH - 2); body = substr(body, RSTART + RLENGTH)
		}
		words[key] = vals
		next
	}
	fn == "" { next }
	/struct option [a-zA-Z_0-9]+\[\] *= *\{/ { intable = 1; tables[fn]++ }
	intable {
		s = $0
		while (match(s, /\{"[a-z0-9-]+", *(no|required|optional)_argument/)) {
			o = substr(s, RSTART + 2); sub(/".*/, "", o)
			print fn, "long", o, file ":" FNR
			s = substr(s, RSTART + RLENGTH)
		}
		if ($0 ~ /\};/) intable = 0
	}
	/getopt_long\(/ {
		s = $0; sub(/.*getopt_long\([^"]*"/, "", s); sub(/".*/, "", s)
		gsub(/:/, "", s)
		for (i = 1; i <= length(s); i++) print fn, "short", substr(s, i, 1), file ":" FNR
	}
	{
		s = $0
		while (match(s, /strcmp\(argv\[[a-z0-9_+ -]*\], *"--[a-z0-9-]+"\)/)) {
			o = substr(s, RSTART, RLENGTH); sub(/.*"--/, "", o); sub(/".*/, "", o)
			print fn, "long", o, file ":" FNR
			s = substr(s, RSTART + RLENGTH)
		}
		s = $0
		while (match(s, /strcmp\(optarg, *"[^"]+"\)/)) {
			o = substr(s, RSTART, RLENGTH); sub(/[^"]*"/, "", o); sub(/".*/, "", o)
			print fn, "word", o, file ":" FNR
			s = substr(s, RSTART + RLENGTH)
		}
		s = $0
		if (match(s, /pp_did_you_mean\([^,]*, *[a-zA-Z_0-9]+/)) {
			a = substr(s, RSTART, RLENGTH); sub(/.*, */, "", a)
			v = (fn SUBSEP a) in words ? words[fn SUBSEP a] : words["" SUBSEP a]
			nv = split(v, w, " ")
			for (i = 1; i <= nv; i++) print fn, "word", w[i], file ":" FNR
		}
	}
	END { for (t in tables) print t, "table", tables[t], file }
	' "$f"
done >"$tmp/opts"

# the function a record belongs to, as a command: "podplan CMD"
cmd_of() { # cmd_of FUNCTION FILE:LINE
	c=$(awk -v fn="$1" '$2 == fn { print $1 }' "$tmp/cmds")
	[ -n "$c" ] && { echo "$c"; return; }
	c=$(awk -F'|' -v fn="$1" '$2 == fn { print $1 }' "$tmp/modes")
	[ -n "$c" ] && { echo "$c"; return; }
	# a helper: the one pp_cmd_ function of its file
	file=${2%%:*}
	set -- $(grep -o '^int pp_cmd_[a-z_]*(' "$file" | sed 's/^int //; s/($//')
	if [ $# -eq 1 ]; then
		cmd_of "$1" "$file"
	fi
}

: >"$tmp/bycmd"
: >"$tmp/unowned"
while read -r fn kind val where; do
	c=$(cmd_of "$fn" "$where")
	if [ -z "$c" ]; then
		echo "$where: $kind '$val' in $fn, which is no command" >>"$tmp/unowned"
		continue
	fi
	echo "$c|$kind|$val|$where" >>"$tmp/bycmd"
done <"$tmp/opts"

# every command of main.c's table has an option table; nothing is unowned
missing=""
while read -r c fn; do
	grep -q "^$c|table|" "$tmp/bycmd" || missing="$missing $c"
done <"$tmp/cmds"
nlong=$(grep -c '|long|' "$tmp/bycmd")
[ -z "$missing" ] && [ ! -s "$tmp/unowned" ] && [ "$nlong" -ge 13 ]
r=$?
[ "$r" -eq 0 ] || diag "commands without an option table found:${missing:- none}" \
	"$nlong long options found" "$(cat "$tmp/unowned")"
ok $r "every command's parser found in sim/cli ($(wc -l <"$tmp/cmds" | tr -d ' ') commands, $nlong long options)"

# each command's --help names what its parser takes
cut -d'|' -f1 "$tmp/bycmd" | awk '!seen[$0]++' >"$tmp/cmdlist"
while read -r c; do
	if [ "$c" = "(podplan)" ]; then
		"$bin" --help >"$tmp/help" 2>&1
	else
		# shellcheck disable=SC2086
		"$bin" $c --help >"$tmp/help" 2>&1
	fi
	rc=$?
	: >"$tmp/miss"
	k=0
	grep "^$c|" "$tmp/bycmd" | while IFS='|' read -r _ kind val where; do
		case $kind in
		long)
			[ "$val" = help ] && continue
			grep -q -e "--$val\([^a-z0-9-]\|\$\)" "$tmp/help" || echo "--$val ($where)" >>"$tmp/miss"
			;;
		short)
			[ "$val" = h ] && continue
			grep -q -e "\(^\|[^a-zA-Z0-9-]\)-$val\([^a-zA-Z0-9-]\|\$\)" "$tmp/help" ||
				echo "-$val ($where, getopt_long's option string)" >>"$tmp/miss"
			;;
		word)
			grep -q -w -e "$val" "$tmp/help" || echo "'$val' ($where)" >>"$tmp/miss"
			;;
		esac
	done
	k=$(grep "^$c|" "$tmp/bycmd" | grep -v -c -e '|table|' -e '|long|help|' -e '|short|h|')
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/miss" ]
	r=$?
	[ "$r" -eq 0 ] || diag "exit status $rc; not in 'podplan $c --help':" "$(cat "$tmp/miss")"
	name="podplan $c --help"
	[ "$c" = "(podplan)" ] && name="podplan --help"
	ok $r "$name names the $k options and words its parser takes"
done <"$tmp/cmdlist"

echo "1..$n"
[ "$failed" -eq 0 ]
