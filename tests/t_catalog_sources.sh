#!/bin/sh
# tests/t_catalog_sources.sh - `podplan catalog gpus` and `podplan catalog
# fabrics` print every GPU of models/gpus.json and every fabric of
# models/fabrics.json (read here with python, not through podplan) in their
# tables, and every figure of each (each object with a "value", nested ones
# such as peak_dense_tflops.*, gemm_peak_fraction.*, nvls.* and switch.*
# included) on a line of its own ending in its date, with its source's
# title; the source named exists in the file's sources with a public URL
# (for a GPU figure, or a file of this repository: podplan's own
# measurements) and the date it was read. Fails on any entry, or any
# figure, without them. TAP; run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-catsrc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$bin" catalog gpus >"$tmp/gpus" 2>&1
"$bin" catalog fabrics >"$tmp/fabrics" 2>&1
python3 - "$repo" "$tmp" <<'PY'
import json, os, re, sys
repo, tmp = sys.argv[1], sys.argv[2]
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
# catalog, its file and list, the table's heading, the keys that are not
# figures, whether a source may be a file of this repository
for cat, key, heading, plain, local in (
        ("gpus", "gpus", "GPUs", ("id", "name", "arch", "form_factor"), True),
        ("fabrics", "fabrics", "Fabrics", ("id", "name", "kind", "scope"), False)):
    doc = json.load(open(os.path.join(repo, "models", cat + ".json")))
    out = open(os.path.join(tmp, cat)).read().splitlines()
    src = doc["sources"]
    items = doc[key]
    ok(any(l.startswith("%s (%d)" % (heading, len(items))) for l in out),
       "catalog %s: the table counts %d" % (cat, len(items)))
    for f in items:
        fid = f["id"]
        ok(any(re.match(r"^  %s +\S" % re.escape(fid), l) for l in out), "%s in the table" % fid)
        figs = [(p, o) for k, v in f.items() if k not in plain for p, o in figures(v, k)]
        ok(len(figs) >= 3, "%s has its figures (%d)" % (fid, len(figs)))
        for p, o in figs:
            s = src.get(o.get("source") or "")
            url = (s or {}).get("url", "")
            where = url.startswith("http") or (local and url and os.path.exists(os.path.join(repo, url)))
            good = bool(s and where and s.get("retrieved") and o.get("date"))
            line = [l for l in out if re.match(r"^  %s +%s +\S" % (re.escape(fid), re.escape(p)), l)]
            printed = len(line) == 1 and line[0].rstrip().endswith("[%s]" % o.get("date")) and \
                s is not None and s["title"][:40] in line[0]
            ok(good and printed, "%s %s: source %s, date %s, printed with both" % (fid, p, o.get("source"), o.get("date")))
print("1..%d" % n)
PY
