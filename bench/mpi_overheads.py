#!/usr/bin/env python3
"""bench/mpi_overheads.py - what podplan's two Open MPI settings save under
`mpirun -np 2` (sim/core/dist.c): TCP_NODELAY on Open MPI's sockets after
MPI_Init (PODPLAN_MPI_NODELAY=0 leaves them as Open MPI opens them) and rank
0's terminal stdout without output processing (PODPLAN_MPI_RAW_STDOUT=0
leaves it on).

Usage: python3 bench/mpi_overheads.py [--runs N] [--bin bin/podplan]

Runs `mpirun -np 2 podplan size bench/bench_size.json --json` under each of
the four settings, the settings alternated run by run, and prints the
median wall seconds of each and its difference from both settings on.
"""
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    args = sys.argv[1:]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 5
    b = args[args.index("--bin") + 1] if "--bin" in args else os.path.join(ROOT, "bin", "podplan")
    if not os.access(b, os.X_OK):
        print("mpi_overheads.py: %s is not built (make)" % b, file=sys.stderr)
        return 2
    cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2", b, "size",
           os.path.join(ROOT, "bench", "bench_size.json"), "--json"]
    settings = [("both on (podplan's default)", "1", "1"),
                ("PODPLAN_MPI_NODELAY=0", "0", "1"),
                ("PODPLAN_MPI_RAW_STDOUT=0", "1", "0"),
                ("both off", "0", "0")]
    wall = {s[0]: [] for s in settings}
    for i in range(runs):
        for name, nodelay, raw in settings:
            env = dict(os.environ, PODPLAN_MPI_NODELAY=nodelay, PODPLAN_MPI_RAW_STDOUT=raw)
            env.setdefault("PODPLAN_DATA", os.path.join(ROOT, "models"))
            t0 = time.monotonic()
            p = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            wall[name].append(time.monotonic() - t0)
            if p.returncode != 0:
                print("mpi_overheads.py: %s: exit status %d" % (" ".join(cmd), p.returncode),
                      file=sys.stderr)
                return 1
        print("run %d of %d" % (i + 1, runs), file=sys.stderr)
    base = statistics.median(wall[settings[0][0]])
    print("mpirun -np 2 podplan size bench/bench_size.json --json: median wall s of %d runs"
          % runs)
    for name, _, _ in settings:
        m = statistics.median(wall[name])
        print("  %-30s %7.3f s  %+7.3f s" % (name, m, m - base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
