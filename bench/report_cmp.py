#!/usr/bin/env python3
"""report_cmp.py - `threadlens report --all TRACE` wall and CPU time, builds in turn.

    bench/report_cmp.py N TRACE BINARY [BINARY...]

Runs each BINARY's report of TRACE N times, the binaries taking turns (so
a slow minute of a noisy host hits them alike), and prints per binary the
median and least wall time (time.perf_counter) and CPU time (the child's
user + system), in seconds.  Used in bench/RESULTS.md section 24.
"""
import os
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    n, trace, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    res = {b: [] for b in bins}
    for _ in range(n):
        for b in bins:
            t, r0 = time.perf_counter(), os.times()
            subprocess.run([b, "report", "--all", trace], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True)
            r1 = os.times()
            res[b].append((time.perf_counter() - t,
                           r1.children_user - r0.children_user + r1.children_system - r0.children_system))
    for b in bins:
        wall, cpu = [x[0] for x in res[b]], [x[1] for x in res[b]]
        print("%-40s wall median %.3f min %.3f  cpu median %.3f min %.3f" %
              (b, statistics.median(wall), min(wall), statistics.median(cpu), min(cpu)))


if __name__ == "__main__":
    main()
