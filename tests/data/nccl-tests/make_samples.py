#!/usr/bin/env python3
"""Write the sample nccl-tests logs of this folder, in nccl-tests' exact
output formats (three generations of src/common.cu and src/util.cu printf
formats), for tests/test_ncclimport.c.

The figures are synthetic (a latency + bandwidth model with fixed jitter),
shaped like H100 pods; the formats are what matters. Regenerate with
  python3 tests/data/nccl-tests/make_samples.py
and read the diff."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def float_str(value, width):
    """nccl-tests' getFloatStr (util.cu)."""
    power = 0
    val = 1
    while value >= val:
        power += 1
        val *= 10
    if power < width - 2:
        return "%*.2f" % (width, value)
    if power < width - 1:
        return "%*.1f" % (width, value)
    if power < width + 1:
        return "%*.0f" % (width, value)
    return "%*.1e" % (width, value)


def old_time_str(t):
    """common.cu before util.cu: %7.0f / %7.1f / %7.2f."""
    if t >= 10000.0:
        return "%7.0f" % t
    if t >= 100.0:
        return "%7.1f" % t
    return "%7.2f" % t


def busbw_factor(op, n):
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "alltoall"):
        return (n - 1) / n
    return 1.0


def sizes(lo, hi, f):
    s = lo
    while s <= hi:
        yield s
        s *= f


def counts(op, size, ws, n):
    """(printed size, printed count) as nccl-tests' getCollByteCount gives them."""
    count = size // ws
    if op in ("all_gather", "reduce_scatter", "alltoall"):
        per = count // n
        return per * n * ws, per
    return count * ws, count


def model_time(op, nbytes, n, lat_us, bw_GBps, jitter):
    # busbw approaches bw_GBps for large messages
    return lat_us + nbytes * busbw_factor(op, n) / (bw_GBps * 1e3) * (1.0 + jitter)


def jit(i, k):
    return ((i * 37 + k * 11) % 7 - 3) * 0.004


def rows(op, typ, ws, redop, root, n, lo, hi, f, lat, bw, style, inplace=True, check=True):
    out = []
    bws = []
    for i, s in enumerate(sizes(lo, hi, f)):
        size, count = counts(op, s, ws, n)
        if count == 0:
            continue
        if style == "new":
            line = "%12li  %12li  %8s  %6s  %6s" % (size, count, typ, redop, "%6i" % root)
        elif style == "mid":
            line = "%12li  %12li  %8s  %6s  %6i" % (size, count, typ, redop, root)
        else:
            line = "%12li  %12li  %6s  %6s" % (size, count, typ, redop)
        for g in (0, 1) if inplace else (0,):
            t = model_time(op, size, n, lat, bw, jit(i, g))
            algbw = size / 1e3 / t
            busbw = algbw * busbw_factor(op, n)
            bws.append(busbw)
            if style == "new":
                if check:
                    line += "  %7s  %6s  %6s  %6g" % (float_str(t, 7), float_str(algbw, 6), float_str(busbw, 6), 0)
                else:
                    line += "  %7s  %6s  %6s    N/A" % (float_str(t, 7), float_str(algbw, 6), float_str(busbw, 6))
            elif style == "mid":
                line += "  %7s  %6.2f  %6.2f  %5s" % (old_time_str(t), algbw, busbw, "0" if check else "N/A")
            else:
                line += "  %7s  %6.2f  %6.2f  %5.0le" % (old_time_str(t), algbw, busbw, 0.0)
        out.append(line)
    return out, sum(bws) / len(bws)


def devices(style, hosts, per_host, name, pid0):
    out = []
    r = 0
    for h in hosts:
        for d in range(per_host):
            bus = [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb][d % 8]
            if style == "new":
                out.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s" %
                           (r, 0, pid0 if per_host * len(hosts) == per_host else pid0 + r, h, d, 0, bus, 0, name))
            else:
                out.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x%02x] %s" %
                           (r, 0, pid0 + r, h, d, bus, name))
            r += 1
    return out


def new_header(inplace=True):
    if inplace:
        return ["#",
                "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
                "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
                    "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                    "time", "algbw", "busbw", "#wrong", 0, ""),
                "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
                    "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                    "(GB/s)", "", 0, "")]
    return ["#",
            "# %10s  %12s  %8s  %6s  %6s           out-of-place          " % ("", "", "", "", ""),
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
                "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", 0, ""),
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
                "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", 0, "")]


def new_section(prog, ngpus, nthreads, lo, hi, f, check, devs, body, avg, inplace=True):
    out = ["# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803",
           "# Collective test starting: %s" % prog,
           "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d unalign: %d" %
           (nthreads, ngpus, lo, hi, f, "factor", 5, 20, 1, check, 0, 0),
           "#",
           "# Using devices"]
    out += devs
    out += new_header(inplace)
    out += body
    out += ["# %-20s : %d %s" % ("Out of bounds values", 0, "OK"),
            "# %-20s : %g %s" % ("Avg bus bandwidth", avg, ""),
            "#",
            "# Collective test concluded: %s" % prog,
            "#",
            ""]
    return out


def write(name, lines):
    with open(os.path.join(HERE, name), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def main():
    h100 = "NVIDIA H100 80GB HBM3"
    # 1. all_reduce, one process driving 8 GPUs, newest format.
    body, avg = rows("all_reduce", "float", 4, "sum", -1, 8, 8, 128 << 20, 2, 22.0, 360.0, "new")
    write("all_reduce_perf_8gpu.log",
          new_section("all_reduce_perf", 8, 1, 8, 128 << 20, 2, 1,
                      devices("new", ["dgx-h100-01"], 8, h100, 412877), body, avg))

    # 2. all_gather, 16 MPI ranks on 2 nodes, 2022-era format ([0x..] bus ids, root column,
    #    %6.2f bandwidths), NCCL INFO chatter at the top; the name comes from the file.
    body, avg = rows("all_gather", "float", 4, "none", -1, 16, 1024, 1 << 30, 4, 35.0, 46.0, "mid")
    lines = ["node01:9912:9912 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
             "node01:9912:9912 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>",
             "node01:9912:9912 [0] NCCL INFO cudaDriverVersion 12020",
             "NCCL version 2.18.5+cuda12.2",
             "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1073741824 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
             "#",
             "# Using devices"]
    lines += devices("mid", ["node01", "node02"], 8, h100, 9912)
    lines += ["#",
              "#                                                              out-of-place                       in-place          ",
              "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]
    lines += body
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %g " % avg, "#", ""]
    write("all_gather_perf.16ranks.2nodes.log", lines)

    # 3. reduce_scatter over 16 ranks in the oldest format (no root column, a max-error
    #    column); the file name does not say which collective: the columns do.
    body, avg = rows("reduce_scatter", "half", 2, "sum", -1, 16, 1 << 20, 1 << 30, 2, 40.0, 44.0, "old")
    lines = ["# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 50 validation: 1 ",
             "#",
             "# Using devices"]
    lines += devices("mid", ["gpu-a17", "gpu-a18"], 8, "NVIDIA A100-SXM4-80GB", 31000)
    lines += ["#",
              "#                                                     out-of-place                       in-place          ",
              "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
              "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]
    lines += body
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %g " % avg, "#", ""]
    write("nccl16.log", lines)

    # 4. alltoall with only out-of-place columns, data check off (#wrong N/A).
    body, avg = rows("alltoall", "float", 4, "none", -1, 8, 64, 1 << 30, 2, 30.0, 340.0, "new",
                     inplace=False, check=False)
    write("alltoall_perf_8gpu_outofplace.log",
          new_section("alltoall_perf", 8, 1, 64, 1 << 30, 2, 0,
                      devices("new", ["dgx-h100-02"], 8, h100, 55120), body, avg, inplace=False))

    # 5. Two programs' output in one file: broadcast then sendrecv.
    b1, a1 = rows("broadcast", "float", 4, "none", 0, 8, 1 << 20, 1 << 30, 4, 25.0, 350.0, "new")
    b2, a2 = rows("sendrecv", "float", 4, "none", -1, 8, 1 << 20, 1 << 30, 4, 12.0, 370.0, "new")
    devs = devices("new", ["dgx-h100-03"], 8, h100, 7001)
    write("broadcast_sendrecv_8gpu.log",
          new_section("broadcast_perf", 8, 1, 1 << 20, 1 << 30, 4, 1, devs, b1, a1)[:-1] +
          new_section("sendrecv_perf", 8, 1, 1 << 20, 1 << 30, 4, 1, devs, b2, a2))


if __name__ == "__main__":
    main()
