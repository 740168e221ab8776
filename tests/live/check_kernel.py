#!/usr/bin/env python3
"""check_kernel.py - the self-check as a test oracle: the report's state
times against the kernel's own accounting of the same threads.

    check_kernel.py TRUTH.json REPORT.json
    check_kernel.py --all REPORT.json

TRUTH names the workload's threads (tests/live/wl_states); REPORT is
`threadlens report --json` of its recording, whose "kernel_check" holds,
per thread, the trace's on-CPU time, run-queue wait and switch counts next
to the kernel's (schedstat / taskstats readings stored in the trace by
record; docs/REPORT.md, "Self-check").  The checks, per truth thread:

  * it was checked (the trace holds both readings);
  * on-CPU time and run-queue wait within max(1% of its window, 1 ms),
    switch counts within max(1%, 1): the targets of the "Numbers you can
    trust" issue, the same rule as the report's verdict ("ok"): dated as
    the kernel dates when the trace has the recorded clock lags (format
    1.6; dated_run_ns, dated_wait_ns), else with the estimated allowances.

With --all (no truth: a recorded shell pipeline), every thread the report
could check is held to the rule, and there must be at least one.

Prints one line per failed check (indented) and, with -v, the passes.
Exit 0 when all agree, 1 otherwise, 2 on bad input.
"""
import json
import sys

MS = 1_000_000


def pct(d, w):
    return 100.0 * d / w if w else 0.0


def describe(t):
    w = t["to_ns"] - t["from_ns"]
    tr, k = t["trace"], t["kernel"]
    parts = ["on-CPU %.3f ms vs kernel %.3f ms (%+.2f%% of %.1f ms)" %
             (tr["run_ns"] / MS, k["run_ns"] / MS, pct(tr["run_ns"] - k["run_ns"], w), w / MS)]
    if k.get("wait_ns") is not None:
        parts.append("run-queue wait %.3f ms vs %.3f ms (%+.2f%%)" %
                     (tr["wait_ns"] / MS, k["wait_ns"] / MS, pct(tr["wait_ns"] - k["wait_ns"], w)))
    if t.get("dated_run_ns") is not None:
        # the recorded clock lags: what the report judged, dated as the kernel dates
        parts.append("dated on-CPU %+.2f%%" % pct(tr["run_ns"] + t["dated_run_ns"] - k["run_ns"], w))
        if t.get("dated_wait_ns") is not None:
            parts.append("dated wait %+.2f%%" % pct(tr["wait_ns"] + t["dated_wait_ns"] - k["wait_ns"], w))
    if k.get("voluntary") is not None:
        parts.append("switches vol %d vs %d, invol %d vs %d (%d unseen)" %
                     (tr["voluntary"], k["voluntary"], tr["involuntary"], k["involuntary"],
                      t.get("unseen_switches", 0)))
    return "; ".join(parts)


def main(argv):
    verbose = "-v" in argv
    everyone = "--all" in argv
    args = [a for a in argv[1:] if a not in ("-v", "--all")]
    if len(args) != (1 if everyone else 2):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        truth = {} if everyone else json.load(open(args[0]))
        report = json.load(open(args[-1]))
    except (OSError, ValueError) as e:
        print("  cannot read input: %s" % e)
        return 2
    kc = report.get("kernel_check")
    if kc is None:
        print("  the report has no kernel_check")
        return 1
    by_tid = {t["tid"]: t for t in kc.get("threads", [])}
    fails = []
    if everyone:
        names = {t["tid"]: t.get("name", "?") for t in report.get("threads", [])}
        truth = {"threads": {"%s/%d" % (names.get(tid, "?"), tid): {"tid": tid} for tid in by_tid}}
        if not by_tid:
            fails.append("no thread was checked against the kernel (%d unchecked)" % kc.get("unchecked", 0))
    for name, exp in truth.get("threads", {}).items():
        t = by_tid.get(exp.get("tid"))
        if t is None:
            fails.append("thread '%s' (tid %s) was not checked against the kernel (%d checked, %d unchecked)" %
                         (name, exp.get("tid"), kc.get("checked", 0), kc.get("unchecked", 0)))
        elif not t.get("ok"):
            fails.append("%s: %s" % (name, describe(t)))
        elif verbose:
            print("  ok %s: %s" % (name, describe(t)))
    for f in fails:
        print("  " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
