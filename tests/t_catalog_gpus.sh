#!/bin/sh
# tests/t_catalog_gpus.sh - `podplan catalog gpus` prints every GPU
# of models/gpus.json (read here with python, not through podplan) in its
# table, and every figure of every GPU (each object with a "value",
# nested ones such as peak_dense_tflops.* and gemm_peak_fraction.* included) on a line of its own
# ending in its date, with its source's title; the source named exists in
# the file's sources with a public URL (or, for podplan's own measurements,
# a file of this repository) and the date it was read. Fails on
# any GPU, or any figure, without them. TAP; run from the repository root.
repo=$(pwd)
bin=${PODPLAN_BIN:-$repo/bin/podplan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-gpus.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$bin" catalog gpus >"$tmp/out" 2>&1
python3 - "$repo/models/gpus.json" "$tmp/out" "$repo" <<'PY'
import json, os, re, sys
doc = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read().splitlines()
repo = sys.argv[3]
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
fabs = doc["gpus"]
ok(any(l.startswith("GPUs (%d)" % len(fabs)) for l in out), "the table counts %d GPUs" % len(fabs))
for f in fabs:
    fid = f["id"]
    ok(any(re.match(r"^  %s +\S" % re.escape(fid), l) for l in out), "%s in the table" % fid)
    figs = [(p, o) for k, v in f.items() if k not in ("id", "name", "arch", "form_factor")
            for p, o in figures(v, k)]
    ok(len(figs) >= 3, "%s has its figures (%d)" % (fid, len(figs)))
    for p, o in figs:
        s = src.get(o.get("source") or "")
        url = (s or {}).get("url", "")
        where = url.startswith("http") or (url and os.path.exists(os.path.join(repo, url)))
        good = bool(s and where and s.get("retrieved") and o.get("date"))
        line = [l for l in out if re.match(r"^  %s +%s +\S" % (re.escape(fid), re.escape(p)), l)]
        printed = len(line) == 1 and line[0].rstrip().endswith("[%s]" % o.get("date")) and \
            s is not None and s["title"][:40] in line[0]
        ok(good and printed, "%s %s: source %s, date %s, printed with both" % (fid, p, o.get("source"), o.get("date")))
print("1..%d" % n)
PY
