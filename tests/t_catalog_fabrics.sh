#!/bin/sh
# tests/t_catalog_fabrics.sh - `podplan catalog fabrics` prints every fabric
# of models/fabrics.json (read here with python, not through podplan) in its
# table, and every figure of every fabric (each object with a "value",
# nested ones such as nvls.* and switch.* included) on a line of its own
# ending in its date, with its source's title; the source named exists in
# the file's sources with a public URL and the date it was read. Fails on
# any fabric, or any figure, without them. TAP; run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-fabrics.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$bin" catalog fabrics >"$tmp/out" 2>&1
python3 - "$repo/models/fabrics.json" "$tmp/out" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read().splitlines()
src = doc["sources"]
n = 0
def ok(cond, what):
    global n
    n += 1
    print(("ok" if cond else "not ok"), n, "-", what)
def figures(o, path):
    if isinstance(o, dict):
        if "value" in o:
            yield path, o
            return
        for k, v in o.items():
            yield from figures(v, path + "." + k if path else k)
fabs = doc["fabrics"]
ok(any(l.startswith("Fabrics (%d)" % len(fabs)) for l in out), "the table counts %d fabrics" % len(fabs))
for f in fabs:
    fid = f["id"]
    ok(any(re.match(r"^  %s +\S" % re.escape(fid), l) for l in out), "%s in the table" % fid)
    figs = [(p, o) for k, v in f.items() if k not in ("id", "name", "kind", "scope")
            for p, o in figures(v, k)]
    ok(len(figs) >= 3, "%s has its figures (%d)" % (fid, len(figs)))
    for p, o in figs:
        s = src.get(o.get("source") or "")
        good = bool(s and s.get("url", "").startswith("http") and s.get("retrieved") and o.get("date"))
        line = [l for l in out if re.match(r"^  %s +%s +\S" % (re.escape(fid), re.escape(p)), l)]
        printed = len(line) == 1 and line[0].rstrip().endswith("[%s]" % o.get("date")) and \
            s is not None and s["title"][:40] in line[0]
        ok(good and printed, "%s %s: source %s, date %s, printed with both" % (fid, p, o.get("source"), o.get("date")))
print("1..%d" % n)
PY
