#!/bin/sh
# tests/t_no_local_paths.sh - no output of podplan names a path of the
# machine it runs on, or a file:// link (issue 17: sources a CFO can open).
# Every shipped scenario (scenarios/, scenarios/replay*/, tests/data/) goes
# through predict (text, --json, --ops), check, cost (text, --json, --csv),
# search --json, size --deadline 30 (text, --json), trace and report (every
# file it writes); then history (text, --csv), report --compare and the
# committed calibration store (calib list, show, export). They run in a
# temporary directory holding a copy of scenarios/ and tests/data/ and a
# link to models/, with PODPLAN_DB and every output directory there, all
# named relatively, as a user would; every byte printed or written is
# searched for the repository's absolute path, $HOME, /tmp, /work and
# file://. TAP for prove; run from the repository root. The directory is
# removed at the end (kept when a test failed).

n=0
failed=0
ok() { # ok CONDITION-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
case $bin in /*) ;; *) bin=$repo/$bin ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-paths.XXXXXX") || { echo "1..0 # SKIP no mktemp"; exit 0; }
mkdir -p "$tmp/run/tests" "$tmp/out" || exit 1
cp -R scenarios "$tmp/run/scenarios" && cp -R tests/data "$tmp/run/tests/data" &&
	ln -s "$repo/models" "$tmp/run/models" || { echo "1..0 # SKIP cannot copy the scenarios"; exit 0; }

# run NAME CMD...: the command's stdout and stderr into out/NAME
cd "$tmp/run" || exit 1
export PODPLAN_DATA=models PODPLAN_DB=store.db SOURCE_DATE_EPOCH=1700000000
run() {
	name=$1
	shift
	"$@" >"../out/$name" 2>&1
	echo "rc=$?" >>"../out/$name"
}
i=0
for f in scenarios/*.json scenarios/replay/*.json scenarios/replay8/*.json tests/data/*.json; do
	i=$((i + 1))
	run "$i.predict" "$bin" predict "$f"
	run "$i.predict.json" "$bin" predict "$f" --json
	run "$i.ops" "$bin" predict "$f" --ops
	run "$i.check" "$bin" check "$f"
	run "$i.cost" "$bin" cost "$f" --draws 200
	run "$i.cost.json" "$bin" cost "$f" --json --draws 200
	run "$i.cost.csv" "$bin" cost "$f" --csv --draws 200
	run "$i.report" "$bin" report "$f" -o "rep$i" --draws 200
	run "$i.trace" "$bin" trace "$f" -o "trace$i.json"
done
for f in scenarios/*.json; do
	i=$((i + 1))
	run "$i.search.json" "$bin" search "$f" --json
	run "$i.size" "$bin" size "$f" --deadline 30
	run "$i.size.json" "$bin" size "$f" --deadline 30 --json
done
run history "$bin" history
run history.csv "$bin" history --csv
run compare "$bin" report --compare 1 2
db=models/calibrations/h200-nvlink-2gpu.db
run calib.list "$bin" calib list --db "$db"
run calib.show "$bin" calib show 1 --db "$db"
run calib.export "$bin" calib export 1 --csv --db "$db"
run calib.export.json "$bin" calib export 1 --json --db "$db"
# every command's --help, without PODPLAN_DB (the defaults it names: the store)
for c in predict trace validate cost report history search size serve fit check catalog calib; do
	run "help.$c" env -u PODPLAN_DB -u XDG_DATA_HOME "$bin" "$c" --help
done
cd "$repo" || exit 1

# the commands ran: reports were written, with every file
nrep=$(ls -d "$tmp"/run/rep* 2>/dev/null | wc -l | tr -d ' ')
nfiles=$(find "$tmp"/run/rep* -type f 2>/dev/null | wc -l | tr -d ' ')
[ "$nrep" -ge 7 ] && [ "$nfiles" -ge 50 ] && grep -q "recorded in store.db" "$tmp/out/1.report"
r=$?
[ "$r" -eq 0 ] || diag "reports: $nrep folders, $nfiles files; 1.report:" "$(cat "$tmp/out/1.report")"
ok $r "every scenario's report was written ($nrep reports, $nfiles files)"

# the committed store itself (what export and show read)
strings "$repo/$db" 2>/dev/null | grep -n -e "$repo" -e /work -e /tmp -e /root -e /home -e file:// >"$tmp/db.hits"
[ ! -s "$tmp/db.hits" ]
r=$?
[ "$r" -eq 0 ] || diag "$db:" "$(head -5 "$tmp/db.hits")"
ok $r "the committed calibration store holds no path of a machine"

# every output and every file written
check() { # check PATTERN DESCRIPTION
	grep -r -n -F -e "$1" "$tmp/out" "$tmp/run" --exclude-dir=models --exclude-dir=scenarios \
		--exclude-dir=tests --exclude=store.db >"$tmp/hits" 2>/dev/null
	[ ! -s "$tmp/hits" ]
	r=$?
	[ "$r" -eq 0 ] || diag "$(wc -l <"$tmp/hits") lines with \"$1\", e.g.:" \
		"$(head -5 "$tmp/hits" | cut -c1-300)"
	ok $r "$2"
}
check "$repo" "no output names the repository's absolute path"
check "$tmp" "no output names the directory it ran in"
[ -n "$HOME" ] && [ "$HOME" != / ] && check "$HOME/" "no output names \$HOME ($HOME)"
check "/tmp/" "no output names /tmp"
check "/work/" "no output names /work"
check "file://" "no output has a file:// link"
# the store's records (history and compare read them; the JSON is there too)
sqlite3 "$tmp/run/store.db" "SELECT inputs_json || results_json FROM runs" >"$tmp/records" 2>/dev/null
nrec=$(sqlite3 "$tmp/run/store.db" "SELECT count(*) FROM runs" 2>/dev/null)
grep -n -F -e "$repo" -e "$tmp" -e /work/ -e /tmp/ -e file:// "$tmp/records" >"$tmp/hits"
[ "${nrec:-0}" -ge 7 ] && [ ! -s "$tmp/hits" ]
r=$?
[ "$r" -eq 0 ] || diag "${nrec:-0} records; hits:" "$(head -3 "$tmp/hits" | cut -c1-300)"
ok $r "the recorded runs ($nrec) hold no path of this machine"

echo "1..$n"
if [ "$failed" -eq 0 ]; then
	rm -rf "$tmp"
else
	diag "$failed of $n tests failed; files kept in $tmp"
fi
[ "$failed" -eq 0 ]
