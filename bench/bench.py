#!/usr/bin/env python3
"""bench/bench.py - podplan's benchmarks against their targets (issue 19).

Usage: python3 bench/bench.py [--bin bin/podplan] [--ref build/bench/bench_ref]
                              [--only ID[,ID...]] [--targets bench/targets.json]
                              [--instructions]

Every figure is printed twice: in seconds on this machine, and as a ratio to
the reference workload (bench/bench_ref.c, a fixed CPU job that uses no
podplan code) timed in the same run, just before each run of each figure: the
ratio is the median over the runs of run CPU s / reference CPU s. A ratio does not move with the machine's speed or with
the load other jobs put on it as much as seconds do, so figures are
comparable across machines and runs.

Targets (bench/targets.json) are the issues' limits in seconds on the 2-core
build machine; each becomes a ratio limit = limit_s / reference_s, with
reference_s the reference workload's CPU time on that machine (recorded in
the JSON with how it was measured). A target passes when the measured ratio
is within it. Times are the CPU time (user + system) of the podplan
process, median of `repeat` runs; memory is
the peak resident set (absolute: it does not scale with the CPU). Speed-ups
under `mpirun -np N` are wall-clock ratios (serial median over MPI median,
the serial and MPI runs alternated, the MPI command as a user types it),
with the outputs compared byte for byte (JSON timing fields left out), and
beside it the serial CPU time over the busiest rank's CPU time (from further
runs with each rank under `bench.py --wrap`), the speed-up two free cores
would give less MPI's start-up: other jobs on the machine slow the wall
clock of two ranks more than that of one.

With --instructions (`make bench-instr`) each target with a limit runs once
under valgrind's cachegrind instead, with its caches fixed (CACHEGRIND_CACHES:
32 KiB L1s, a 32 MiB last level), and is reported in instructions and
last-level-cache misses: counts that do not depend on the machine's speed or
load, so a reader can tell a slower machine from a slower podplan. Each such
limit (max_ginstr in bench/targets.json, G instructions) is the count the
target's command executed at the commit recorded there ("instructions": the
commit, the date, the margin), times that margin; a target passes when its
count is within it, so a change that makes podplan do more work shows here
on any machine, however fast or loaded.

Both modes print the machine: its CPU model, caches and load average.

Exit status: 0 when every target passes, 1 otherwise, 2 on a setup error.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMING_KEYS = re.compile(r'^\s*"(elapsed_s|candidates_per_s|mc_elapsed_s|serve_elapsed_s)"')


CACHEGRIND_CACHES = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=33554432,16,64"]


def machine():
    """The CPU model, its caches and the load average, in one line each."""
    model, cores = "unknown", 0
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown":
                    model = line.split(":", 1)[1].strip()
                cores += line.startswith("processor")
    except OSError:
        pass
    caches = []
    for name, key in (("L1d", "LEVEL1_DCACHE_SIZE"), ("L2", "LEVEL2_CACHE_SIZE"),
                      ("L3", "LEVEL3_CACHE_SIZE")):
        r = subprocess.run(["getconf", key], capture_output=True, text=True)
        v = r.stdout.strip()
        if r.returncode == 0 and v.isdigit() and int(v) > 0:
            caches.append("%s %s KiB" % (name, int(v) // 1024))
    lines = ["machine: %s, %d logical CPU(s); caches %s" % (model, cores,
                                                            ", ".join(caches) or "not reported")]
    try:
        lines.append("load average: %.2f %.2f %.2f" % os.getloadavg())
    except OSError:
        pass
    return lines


def count_instructions(argv, env):
    """argv run once under cachegrind with CACHEGRIND_CACHES: (instructions, LL misses, rc)."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes"] + CACHEGRIND_CACHES + \
        ["--cachegrind-out-file=/dev/null"] + argv
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT,
                       text=True)
    ir = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
    ll = re.search(r"LL misses:\s+([\d,]+)", p.stderr)
    if not ir or not ll:
        raise RuntimeError("cachegrind printed no counts for %s" % " ".join(argv))
    return int(ir.group(1).replace(",", "")), int(ll.group(1).replace(",", "")), p.returncode


def instructions_mode(spec, b, ref, only, env):
    """--instructions: every target with a limit once under cachegrind; exit status as main."""
    if subprocess.run(["sh", "-c", "command -v valgrind"], capture_output=True).returncode:
        print("bench.py: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="pp-bench.")
    for line in machine():
        print(line)
    ref_ir, ref_ll, _ = count_instructions([ref, "1"], env)
    print("cachegrind, caches fixed: %s (the counts do not depend on the machine)"
          % " ".join(CACHEGRIND_CACHES))
    print("reference workload (bench/bench_ref.c): %.3f G instructions, %d LL misses"
          % (ref_ir / 1e9, ref_ll))
    print()
    fmt = "%-16s %-52s %10s %11s %10s  %s"
    print((fmt % ("id", "what", "G instr", "LL misses", "limit G", "met")).rstrip())
    failed = 0
    for t in spec["targets"]:
        if (only and t["id"] not in only) or t.get("kind", "time") != "time" or \
                t.get("max_s") is None:
            continue
        ir, ll, rc = count_instructions(expand(t["argv"], b, tmp), env)
        if rc != 0:
            raise RuntimeError("%s: exit status %d under cachegrind" % (t["id"], rc))
        lim = t.get("max_ginstr")
        ok = lim is None or ir / 1e9 <= lim
        failed += not ok
        print((fmt % (t["id"], t["what"][:52], "%.3f" % (ir / 1e9), "%d" % ll,
                      "%.2f" % lim if lim is not None else "-",
                      ("yes" if ok else "NO") if lim is not None else "")).rstrip())
    print()
    print("%d target(s) missed" % failed if failed else "every instruction limit met")
    return 1 if failed else 0


def run_once(argv, out_path, env):
    """Runs argv with stdout into out_path; (cpu_s, wall_s, maxrss_kib, rc)."""
    with open(out_path, "wb") as out:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss, p.returncode


def reference(ref, repeats=3):
    """The reference workload's CPU and wall seconds (the fastest of its repeats)."""
    out = subprocess.run([ref, str(repeats)], capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), float(out[1])


def stripped(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [l for l in f if not TIMING_KEYS.match(l)]


def expand(argv, b, tmp):
    return [a.replace("{bin}", b).replace("{tmp}", tmp) for a in argv]


def measure(t, b, tmp, env, ref):
    """Median CPU and wall seconds, the largest RSS of t's command, its output file, and the
    median over its runs of CPU s / the reference's CPU s timed just before that run."""
    cpu, wall, rss, ratio = [], [], 0, []
    out = os.path.join(tmp, t["id"] + ".out")
    for _ in range(t.get("repeat", 3)):
        rf = reference(ref, 1)[0]
        c, w, r, rc = run_once(expand(t["argv"], b, tmp), out, env)
        if rc != 0:
            raise RuntimeError("%s: exit status %d: %s" % (t["id"], rc, " ".join(t["argv"])))
        cpu.append(c)
        wall.append(w)
        ratio.append(c / rf)
        rss = max(rss, r)
    return statistics.median(cpu), statistics.median(wall), rss, out, statistics.median(ratio)


def measure_speedup(t, b, tmp, env, ref):
    """t's command serial and as `mpirun -np N` (what a user types), the two alternated run
    by run (`repeat` pairs, so that a change in the machine's load falls on both), each as
    measure() gives; then `repeat` MPI runs with each rank under `bench.py --wrap` for the
    median over them of the busiest rank's CPU s (a Python start-up per rank: kept out of the
    wall-clock runs)."""
    n = t.get("repeat", 3)
    mpirun = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(t["ranks"])]
    runs = {"serial": [], "mpi": []}
    for _ in range(n):
        for k, argv, tag in (("serial", t["argv"], 1), ("mpi", mpirun + t["argv"], t["ranks"])):
            runs[k].append(measure(dict(t, id="%s.%d" % (t["id"], tag), argv=argv, repeat=1),
                                   b, tmp, env, ref))

    def med(ms):
        return (statistics.median(m[0] for m in ms), statistics.median(m[1] for m in ms),
                max(m[2] for m in ms), ms[0][3], statistics.median(m[4] for m in ms))

    prefix = os.path.join(tmp, t["id"] + ".rank")
    wrapped = dict(t, id=t["id"] + ".wrapped", argv=mpirun + [
        sys.executable, os.path.abspath(__file__), "--wrap", prefix, "--"] + t["argv"])
    busiest = []
    for _ in range(n):
        for r in range(t["ranks"]):  # a rank that writes nothing fails below
            if os.path.exists("%s.%d" % (prefix, r)):
                os.remove("%s.%d" % (prefix, r))
        measure(dict(wrapped, repeat=1), b, tmp, env, ref)
        cpu = []
        for r in range(t["ranks"]):
            with open("%s.%d" % (prefix, r)) as f:
                cpu.append(float(f.read().split()[0]))
        busiest.append(max(cpu))
    return med(runs["serial"]), med(runs["mpi"]), statistics.median(busiest)


def wrap(args):
    """bench.py --wrap PREFIX -- CMD...: run CMD (one MPI rank), write its CPU and wall
    seconds to PREFIX.RANK, exit with its status."""
    prefix, cmd = args[1], args[3:]
    rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))
    t0 = time.monotonic()
    p = subprocess.Popen(cmd)
    _, status, ru = os.wait4(p.pid, 0)
    with open("%s.%s" % (prefix, rank), "w") as f:
        f.write("%.6f %.6f\n" % (ru.ru_utime + ru.ru_stime, time.monotonic() - t0))
    return os.waitstatus_to_exitcode(status)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--wrap"]:
        return wrap(args)

    def opt(name, default):
        if name in args:
            i = args.index(name)
            return args[i + 1]
        return default

    b = opt("--bin", os.path.join(ROOT, "bin", "podplan"))
    ref = opt("--ref", os.path.join(ROOT, "build", "bench", "bench_ref"))
    only = opt("--only", "")
    spec = json.load(open(opt("--targets", os.path.join(ROOT, "bench", "targets.json"))))
    only = set(only.split(",")) if only else None
    for p in (b, ref):
        if not os.access(p, os.X_OK):
            print("bench.py: %s is not built (make bench builds it)" % p, file=sys.stderr)
            return 2
    env = dict(os.environ)
    env.setdefault("PODPLAN_DATA", os.path.join(ROOT, "models"))
    if "--instructions" in args:
        return instructions_mode(spec, b, ref, only, env)
    have_mpi = subprocess.run(["sh", "-c", "command -v mpirun"], capture_output=True).returncode == 0
    ref_idle = spec["reference"]["cpu_s"]
    r0 = reference(ref)
    tmp = tempfile.mkdtemp(prefix="pp-bench.")
    rows, failed = [], 0
    for t in spec["targets"]:
        if only and t["id"] not in only:
            continue
        kind = t.get("kind", "time")
        if kind == "speedup":
            if not have_mpi:
                rows.append((t, None, "skipped: mpirun not found"))
                continue
            ser, par, rank_cpu = measure_speedup(t, b, tmp, env, ref)
            same = stripped(ser[3]) == stripped(par[3])
            rows.append((t, (ser, par, same, rank_cpu), None))
        else:
            rows.append((t, measure(t, b, tmp, env, ref), None))
    r1 = reference(ref)
    print("reference workload (bench/bench_ref.c): %.3f s CPU at the start of this run, %.3f s at "
          "the end, %.3f s on the build machine at its least loaded (bench/targets.json)"
          % (r0[0], r1[0], ref_idle))
    print("figures: median CPU s of the process (user + system), its median wall s, the median "
          "over its runs of CPU s / the reference's CPU s timed just before that run; limit: the "
          "target as a ratio (the issue's seconds / %.3f s)" % ref_idle)
    for line in machine():
        print(line + (" at the end" if line.startswith("load") else ""))
    print()
    fmt = "%-16s %-52s %9s %9s %8s %9s %10s  %s"

    class Hdr:  # the table's format, each line without trailing blanks
        def __mod__(self, cells):
            return (fmt % cells).rstrip()

    hdr = Hdr()
    print(hdr % ("id", "what", "cpu s", "wall s", "ratio", "limit", "target", "met"))
    for t, m, skip in rows:
        what = t["what"][:52]
        if skip:
            print("%-16s %-52s %s" % (t["id"], what, skip))
            continue
        kind = t.get("kind", "time")
        if kind == "speedup":
            ser, par, same, rank_cpu = m
            sp = ser[1] / par[1] if par[1] > 0 else 0
            cp = ser[0] / rank_cpu if rank_cpu > 0 else 0
            ok = sp >= t["min_speedup"] and same
            failed += not ok
            print(hdr % (t["id"], what, "%.3f" % ser[0], "%.3f" % ser[1],
                         "%.4f" % ser[4], "", "", ""))
            print(hdr % ("", "  mpirun -np %d: wall s; speed-up serial/MPI (wall)" % t["ranks"],
                         "", "%.3f" % par[1], "%.2fx" % sp, ">= %.2fx" % t["min_speedup"],
                         "", ("yes" if ok else "NO") + ("" if same else " (output DIFFERS)")))
            print(hdr % ("", "  busiest rank's CPU s; serial CPU s / it (no load)", "%.3f" % rank_cpu,
                         "", "%.2fx" % cp, "", "", ""))
            if same:
                print(hdr % ("", "  output identical to serial (timing fields left out)", "", "",
                             "", "", "", ""))
            continue
        cpu, wall, rss, _, ratio = m
        lim = t.get("max_s")
        ok = True
        if lim is not None:
            ok = ratio <= lim / ref_idle
        cells = [t["id"], what, "%.3f" % cpu, "%.3f" % wall, "%.4f" % ratio,
                 "%.4f" % (lim / ref_idle) if lim is not None else "-",
                 "<= %gs" % lim if lim is not None else "-", ""]
        mem = t.get("max_mib")
        if mem is not None:
            ok = ok and rss / 1024 <= mem
        cells[7] = ("yes" if ok else "NO") if (lim is not None or mem is not None) else ""
        failed += not ok
        print(hdr % tuple(cells))
        if mem is not None:
            print(hdr % ("", "  peak resident set, MiB (absolute)", "", "", "%.1f" % (rss / 1024),
                         "", "<= %g MiB" % mem, ""))
    eng = opt("--engine", os.path.join(ROOT, "build", "bench", "bench_engine"))
    if not only and os.access(eng, os.X_OK):
        print()
        print("engine (build/bench/bench_engine: one pp_predict, median of 15; ratio: seconds per "
              "step / reference CPU s)")
        e = dict(env, PODPLAN_BENCH_REF_S="%.6f" % reference(ref)[0])
        r = subprocess.run([eng], env=e, cwd=ROOT, capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        failed += r.returncode != 0
    print()
    print("%d target(s) missed" % failed if failed else "every target met")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
