#!/usr/bin/env python3
"""models/validation/trend.py [--bin BIN] [--limit PTS] [--min-span DECADES] [--repredict] [--csv] [CSV...]

Does podplan's error drift with scale? For every validation family whose GPU
counts span at least --min-span decades (default 1: the largest count at least
ten times the smallest), the least-squares line of the signed step-time error
(percent) against log10(GPUs), its slope in points per decade, the slope's
standard error, and pass/fail against +-LIMIT points per decade (default 3,
issue 35's acceptance). Families spanning less are listed as skipped.

Signed error is always the step-time error, predicted / measured - 1 in
percent, positive when podplan is slow: a step-time metric as written, a
throughput metric (TFLOP/s, tokens/s, MFU, output throughput) as measured /
predicted - 1, so that families of either kind read alike.

CSVs read (default: every models/validation/*-published.csv and
models/validation/validation-public.csv):
  - the published-runs format (config, predicted_s, measured_s, ...; the
    predictions the set's script wrote, e.g. models/validation/mcore.sh): one
    family per file; the GPUs of a row from its num_gpus column, else its
    scenario's cluster.num_gpus (the path relative to the repository root, or
    to the CSV's folder), else "N GPUs" or "NxGPU" in its config;
  - the serving format (config, predicted, measured, metric, scenario): the
    same, with the metric's direction (rows of a metric that is neither a time
    nor a throughput, a memory size or a concurrency, are left out);
  - the reference-table format (validation-public.csv, with table_or_section
    and num_gpus): `BIN validate FILE --csv` predicts it now; one family per
    table, its primary metric only.
--repredict predicts the published-runs CSVs again with BIN (`BIN validate
--replay FILE --repredict --csv`) instead of reading the predictions their
scripts last wrote; the serving CSV keeps its written predictions.
--csv prints one RFC 4180 row per family (family, file, rows, gpus_min,
gpus_max, mean_error_pct, slope_pts_per_decade, slope_se, verdict: pass,
fail or skipped) instead of the table. Exit status 0 when every family tested
passes, 1 when one fails; bad input: a message naming the file and row, exit
status 2, nothing printed on stdout.
"""
import argparse
import csv
import glob
import json
import math
import os
import re
import subprocess
import sys

THROUGHPUT = re.compile(r"tflop|tokens?_per|throughput|mfu|pct_of_peak|samples_per|per_gpu$", re.I)
TIME = re.compile(r"(^|_)(time|ms|s|latency|ttft|tpot|itl)(_|$)", re.I)


class BadInput(Exception):
    pass


def is_throughput(metric):
    """True for a throughput, False for a time, None for neither (a memory
    size, a concurrency: no step-time error, the row is left out)."""
    if not metric:
        return False
    if THROUGHPUT.search(metric):
        return True
    if TIME.search(metric):
        return False
    return None


def step_error_pct(pred, meas, throughput):
    """Predicted step time over measured, less 1, in percent."""
    return 100.0 * ((meas / pred) if throughput else (pred / meas)) - 100.0


def number(row, col, where):
    v = (row.get(col) or "").strip()
    try:
        x = float(v)
    except ValueError:
        raise BadInput("%s: column %s is %r, expected a number" % (where, col, v))
    if not math.isfinite(x) or x <= 0:
        raise BadInput("%s: column %s is %r, expected a positive number" % (where, col, v))
    return x


def gpus_of(row, csv_path, where):
    v = (row.get("num_gpus") or "").strip()
    if v:
        try:
            n = int(v)
        except ValueError:
            raise BadInput("%s: num_gpus is %r, expected a whole number" % (where, v))
        if n < 1:
            raise BadInput("%s: num_gpus is %d, expected at least 1" % (where, n))
        return n
    scen = (row.get("scenario") or "").strip()
    if scen:
        for p in (scen, os.path.join(os.path.dirname(csv_path), scen)):
            if os.path.exists(p):
                try:
                    with open(p) as f:
                        d = json.load(f)
                    n = d.get("cluster", {}).get("num_gpus")
                except (OSError, ValueError) as e:
                    raise BadInput("%s: scenario %s: %s" % (where, scen, e))
                if isinstance(n, int) and n >= 1:
                    return n
                break
    m = re.search(r"(\d+) ?GPUs|(\d+)x[a-z]", row.get("config") or "", re.I)
    if m:
        return int(m.group(1) or m.group(2))
    raise BadInput("%s: no GPU count (no num_gpus column, no scenario with cluster.num_gpus, "
                   "no 'N GPUs' or 'NxGPU' in config %r)" % (where, row.get("config")))


def read_rows(path):
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        return rd.fieldnames or [], list(rd)


def run_csv(binary, args, path):
    """The rows of BIN ARGS' CSV output."""
    try:
        out = subprocess.run([binary] + args, capture_output=True, text=True, check=False)
    except OSError as e:
        raise BadInput("%s: cannot run %s: %s" % (path, binary, e))
    if out.returncode != 0:
        raise BadInput("%s: %s %s failed: %s" % (path, binary, " ".join(args), out.stderr.strip()))
    return list(csv.DictReader(out.stdout.splitlines()))


def families_of(path, binary, repredict):
    """{family name: [(gpus, signed step-time error %, config)]} of one CSV."""
    cols, rows = read_rows(path)
    fam = {}
    base = os.path.basename(path)
    if "table_or_section" in cols and "num_gpus" in cols:
        gpus = {}
        with open(path, newline="") as f:
            rd = csv.DictReader(f)
            for r in rd:
                gpus[rd.line_num] = r.get("num_gpus", "")
        for i, r in enumerate(run_csv(binary, ["validate", path, "--csv"], path)):
            if r.get("primary") != "1":
                continue
            where = "%s line %s (%s validate --csv row %d)" % (path, r.get("csv_line"), binary, i + 2)
            line = int(r.get("csv_line") or 0)
            n = gpus.get(line, "")
            if not n.strip().isdigit():
                raise BadInput("%s: num_gpus is %r, expected a whole number" % (where, n))
            t = is_throughput(r.get("metric"))
            if t is None:
                continue
            e = step_error_pct(number(r, "predicted", where), number(r, "measured", where), t)
            fam.setdefault(r["table"], []).append((int(n), e, r.get("config", "")))
        return fam
    if "predicted_s" in cols and "measured_s" in cols:
        pc, mc, thr = "predicted_s", "measured_s", False
        if repredict:
            now = run_csv(binary, ["validate", "--replay", path, "--repredict", "--csv"], path)
            if len(now) != len(rows):
                raise BadInput("%s: %s validate --replay gave %d rows, the file has %d" %
                               (path, binary, len(now), len(rows)))
            for i, (r, n) in enumerate(zip(rows, now)):
                if n.get("config") != r.get("config"):
                    raise BadInput("%s row %d: %s validate --replay gave config %r, the file %r" %
                                   (path, i + 2, binary, n.get("config"), r.get("config")))
                r["predicted_s"] = n.get("predicted_s", "")
    elif "predicted" in cols and "measured" in cols and "metric" in cols:
        pc, mc, thr = "predicted", "measured", None
    else:
        return fam  # not a table of predictions against measurements
    name = re.sub(r"(-published)?\.csv$", "", base)
    for i, r in enumerate(rows):
        where = "%s row %d" % (path, i + 2)
        if not (r.get(mc) or "").strip():
            continue  # not measured yet
        t = thr if thr is not None else is_throughput(r.get("metric"))
        if t is None:
            continue
        e = step_error_pct(number(r, pc, where), number(r, mc, where), t)
        fam.setdefault(name, []).append((gpus_of(r, path, where), e, r.get("config", "")))
    return fam


def fit(points):
    """Least squares e = a + b log10(n): (b, its standard error or None, a)."""
    xs = [math.log10(n) for n, _, _ in points]
    ys = [e for _, e, _ in points]
    k = len(xs)
    mx, my = sum(xs) / k, sum(ys) / k
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    se = None
    if k > 2:
        ssr = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
        se = math.sqrt(ssr / (k - 2) / sxx)
    return b, se, a


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", metavar="CSV")
    ap.add_argument("--bin", default="bin/podplan")
    ap.add_argument("--limit", type=float, default=3.0, help="points per decade (default 3)")
    ap.add_argument("--min-span", type=float, default=1.0, help="decades of GPUs (default 1)")
    ap.add_argument("--csv", action="store_true", help="one CSV row per family")
    ap.add_argument("--repredict", action="store_true", help="predict the published-runs CSVs now")
    a = ap.parse_args(argv)
    paths = a.files or sorted(glob.glob("models/validation/*-published.csv")) + [
        "models/validation/validation-public.csv"]
    fams = []
    try:
        for p in paths:
            if not os.path.exists(p):
                raise BadInput("%s: no such file" % p)
            for name, pts in families_of(p, a.bin, a.repredict).items():
                fams.append((name, p, pts))
    except BadInput as e:
        print("trend: %s" % e, file=sys.stderr)
        return 2
    out = csv.writer(sys.stdout, lineterminator="\r\n") if a.csv else None
    if out:
        out.writerow(["family", "file", "rows", "gpus_min", "gpus_max", "mean_error_pct",
                      "slope_pts_per_decade", "slope_se", "verdict"])
    else:
        print("%-34s %5s %12s %15s %16s  %s" % ("family", "rows", "GPUs", "mean error",
                                               "slope /decade", "verdict"))
    failed = tested = 0
    for name, p, pts in fams:
        lo, hi = min(n for n, _, _ in pts), max(n for n, _, _ in pts)
        span = math.log10(hi / lo)
        mean = sum(e for _, e, _ in pts) / len(pts)
        rng = "%d-%d" % (lo, hi)
        if span < a.min_span:
            if out:
                out.writerow([name, p, len(pts), lo, hi, "%.4f" % mean, "", "", "skipped"])
                continue
            print("%-34s %5d %12s %+14.1f%% %16s  skipped (spans %.2f of %.2g decades)" %
                  (name[:34], len(pts), rng, mean, "-", span, a.min_span))
            continue
        b, se, _ = fit(pts)
        ok = abs(b) <= a.limit
        tested += 1
        failed += not ok
        if out:
            out.writerow([name, p, len(pts), lo, hi, "%.4f" % mean, "%.4f" % b,
                          "%.4f" % se if se is not None else "", "pass" if ok else "fail"])
            continue
        ses = "+-%.1f" % se if se is not None else "+-?"
        print("%-34s %5d %12s %+14.1f%% %+8.1f %7s  %s" %
              (name[:34], len(pts), rng, mean, b, ses,
               "pass" if ok else "FAIL (beyond +-%g points/decade)" % a.limit))
    if out:
        return 1 if failed else 0
    print("\n%d families span %g decade(s) of GPUs: %d pass, %d fail (signed step-time error, "
          "percent, least squares against log10 GPUs; slope +-standard error)" %
          (tested, a.min_span, tested - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
