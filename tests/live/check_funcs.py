#!/usr/bin/env python3
"""check_funcs.py - compare a `threadlens record --func` recording of wl_funcs
with the workload's own truth.

    check_funcs.py [-v] TRUTH.json DUMP.txt LIBC_LABEL

DUMP.txt is `threadlens dump --type func_entry,func_exit` of the trace.
Only the workload's threads count (a probe on a library fires in every
process that runs it).  Checks, per thread:
  - every exit closes the innermost open entry of the same function (the
    probes pair up, recursion included) and nothing is left open;
  - the number of calls of each function is exactly the truth's
    (calls_<function>; calls_usleep is LIBC_LABEL's, e.g. libc.so.6:usleep),
    the entries of inlined copies (dump: "inlined", no exit) included, and
    of those exactly calls_inlined_<function>;
  - the mean duration of wlf_spin and wlf_outer is within 5% + PROBE_US of
    the truth, which the caller measured around the calls: the trace's
    entry and return times bracket nearly the same interval, the probes'
    own cost included (measured: within 2 us of each other).
Prints nothing and exits 0 when all holds; else one line per problem
(with -v also what passed) and exits 1.
"""
import json
import re
import sys

PROBE_US = 60.0  # upper bound of one entry + return probe hit, in us (25-30 us measured on a Firecracker VM)
LINE = re.compile(r"^\s*(-?\d+)\.(\d{9})\s+(?:\[\d+\]|-)\s+(func_entry|func_exit)\s+tid=(\d+)(?:\(.*\))?\s+func=(\S+)( inlined)?\s*$")


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    if len(args) != 3:
        print("usage: check_funcs.py [-v] TRUTH.json DUMP.txt LIBC_LABEL")
        return 2
    truth = json.load(open(args[0]))
    libc_label = args[2]
    tids = {th["tid"]: name for name, th in truth["threads"].items()}
    pid = truth["pid"]
    stacks = {t: [] for t in tids}
    calls = {t: {} for t in tids}
    durs = {t: {} for t in tids}
    problems, info = [], []
    main_events = 0
    for line in open(args[1]):
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            continue
        sec, ns, kind, tid, func, inlined = m.groups()
        tid = int(tid)
        ts = int(sec) * 1000000000 + int(ns)
        if tid == pid:
            main_events += 1
        if tid not in tids:
            continue
        st = stacks[tid]
        if inlined:  # an inlined copy's entry: a call with no exit
            calls[tid][func] = calls[tid].get(func, 0) + 1
            calls[tid]["inlined_" + func] = calls[tid].get("inlined_" + func, 0) + 1
            continue
        if kind == "func_entry":
            st.append((func, ts))
            continue
        if not st or st[-1][0] != func:
            problems.append("%s: exit of %s while %s is the innermost open call"
                            % (tids[tid], func, st[-1][0] if st else "nothing"))
            continue
        _, t0 = st.pop()
        calls[tid][func] = calls[tid].get(func, 0) + 1
        durs[tid].setdefault(func, []).append(ts - t0)
    if main_events:
        problems.append("main thread: %d function events, expected none" % main_events)
    for tid, name in tids.items():
        th = truth["threads"][name]
        if stacks[tid]:
            problems.append("%s: %d calls never returned (%s)" % (name, len(stacks[tid]),
                                                                   ", ".join(f for f, _ in stacks[tid][:5])))
        for key, want in th.items():
            if not key.startswith("calls_"):
                continue
            func = key[len("calls_"):]
            label = libc_label if func == "usleep" else func
            got = calls[tid].get(label, 0)
            line = "%s: %s called %d times, truth %d" % (name, label, got, want)
            (info if got == want else problems).append(line)
        for func in ("wlf_spin", "wlf_outer"):
            n = th.get("calls_" + func, 0)
            d = durs[tid].get(func, [])
            if not n or not d:
                continue
            want = th["total_ns_" + func] / n / 1000.0
            got = sum(d) / len(d) / 1000.0
            tol = 0.05 * want + PROBE_US
            line = "%s: %s mean %.1f us, truth %.1f us (tolerance %.1f us)" % (name, func, got, want, tol)
            (info if abs(got - want) <= tol else problems).append(line)
    for p in problems:
        print("  " + p)
    if verbose:
        for i in info:
            print("  ok: " + i)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
