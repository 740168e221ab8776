#!/usr/bin/env python3
"""check_truth.py - compare a threadlens report with a workload's ground truth.

    check_truth.py TRUTH.json REPORT.json

TRUTH is what tests/live/wl_states wrote: per thread (by name, with its
tid) the time it must have spent in some states, measured from inside the
workload.  REPORT is `threadlens report --json` of a recording of that run
(schema: docs/JSON.md).  The checks:

  * every truth thread is in the report (matched by tid, name must agree);
  * each expectation "<STATE>_ns" (or "<S1>+<S2>_ns": the sum of states)
    agrees within the scenario's tolerance, by default max(5 %, 2 ms);
  * in every thread of the report the states sum to lifetime_ns;
  * no events were lost and the trace is complete.

Prints one line per check that failed (indented, for the caller to show
under the test's name) and, with -v, the ones that passed.  Exit status 0
when everything agrees, 1 otherwise, 2 on bad input.  The tolerances and
why they are what they are: docs/TESTING.md.
"""
import json
import sys

MS = 1_000_000

# (relative, absolute ns): a value passes when
#   |report - truth| <= max(rel * truth, abs) + steal
# where steal is the hypervisor's steal time during the run (truth
# "steal_ns"): a trace sees a stolen vCPU as running, the CPU clock does not.
DEFAULT_TOL = (0.05, 2 * MS)

# Per (scenario, thread, key) overrides; "*" matches any thread.  Each one
# needs a reason in docs/TESTING.md.
TOLERANCES = {}

# The kernel's CPU clock of a thread and the trace's switch timestamps do not
# agree exactly at a switch: the scheduler may charge a thread from a run-queue
# clock read before the switch (the clock update is skipped on the yield path,
# and an idle CPU woken by an IPI charges the woken thread from the wakeup).
# Measured on the test VM: about 32 us per switch through sched_yield (4.9 ms
# over 155 switches, with the two threads' sum agreeing to 0.6 ms) and about
# 13 us per wakeup onto an idle CPU (3.2 ms over 256 wakeups, with
# EXECUTING+RUNNABLE agreeing with CPU time + run-queue wait to 0.2 ms).  The
# trace's switch times are the truth for when a thread held the CPU, so every
# comparison allows this much per switch of the thread (schedstat_slices).
ACCOUNTING_NS_PER_SWITCH = 40_000


def tolerance(scenario, thread, key, exp=None):
    for k in ((scenario, thread, key), (scenario, "*", key)):
        if k in TOLERANCES:
            return TOLERANCES[k]
    if exp:
        switches = exp.get("schedstat_slices", 0)
        return (DEFAULT_TOL[0], DEFAULT_TOL[1] + ACCOUNTING_NS_PER_SWITCH * switches)
    return DEFAULT_TOL


def fmt_ms(ns):
    return "%.3f ms" % (ns / MS)


def thread_summary(t, states):
    """The non-zero states of a report thread, for failure messages."""
    parts = ["%s=%s" % (s, fmt_ms(t["state_ns"].get(s, 0)))
             for s in states if t["state_ns"].get(s, 0)]
    return "lifetime %s: %s" % (fmt_ms(t.get("lifetime_ns", 0)), ", ".join(parts) or "nothing")


def check(truth, report, verbose=False):
    """Returns (failures, passes): lists of message lines."""
    fails, passes = [], []
    scenario = truth.get("scenario", "?")
    states = report.get("states") or []
    by_tid = {t["tid"]: t for t in report.get("threads", [])}

    lost = report.get("lost_events", {}).get("total", 0)
    if lost:
        fails.append("lost_events.total is %d (per CPU: %s)" % (lost, report["lost_events"].get("per_cpu")))
    trace = report.get("trace", {})
    if not trace.get("complete", False):
        fails.append("trace is not complete; warnings: %s" % trace.get("warnings"))

    for t in report.get("threads", []):
        total = sum(t.get("state_ns", {}).values())
        if total != t.get("lifetime_ns"):
            fails.append("thread %d '%s': states sum to %d ns, lifetime_ns is %s (%s)" %
                         (t["tid"], t.get("name"), total, t.get("lifetime_ns"), thread_summary(t, states)))
        missing = [s for s in states if s not in t.get("state_ns", {})]
        if missing:
            fails.append("thread %d '%s': state_ns lacks %s" % (t["tid"], t.get("name"), ", ".join(missing)))

    for name, exp in truth.get("threads", {}).items():
        t = by_tid.get(exp.get("tid"))
        if t is None:
            fails.append("thread '%s' (tid %s) is not in the report" % (name, exp.get("tid")))
            continue
        if t.get("name") != name:
            fails.append("thread %s is named '%s' in the report, not '%s'" % (exp.get("tid"), t.get("name"), name))
        shown = False
        for key, want in exp.items():
            if not key.endswith("_ns"):
                continue
            parts = key[:-3].split("+")
            if not all(p in states for p in parts):
                continue  # information, not an expectation (cpu_ns, window_wall_ns...)
            got = sum(t["state_ns"].get(p, 0) for p in parts)
            rel, absolute = tolerance(scenario, name, key[:-3], exp)
            steal = truth.get("steal_ns", 0)
            tol = max(rel * want, absolute) + steal
            line = "%s %s: report %s, truth %s, diff %+.3f ms, tolerance %s%s" % (
                name, key[:-3], fmt_ms(got), fmt_ms(want), (got - want) / MS, fmt_ms(tol),
                " (incl. %s of steal)" % fmt_ms(steal) if steal else "")
            if abs(got - want) <= tol:
                passes.append(line)
            else:
                if not shown:
                    info = ", ".join("%s=%s" % (k, v) for k, v in exp.items()
                                     if k != "tid" and not (k.endswith("_ns") and
                                                            all(p in states for p in k[:-3].split("+"))))
                    fails.append("%s (tid %d): %s; workload: %s" % (name, t["tid"], thread_summary(t, states), info))
                    shown = True
                fails.append(line)
    return fails, passes


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv[1:] if a != "-v"]
    if len(args) != 2:
        print("usage: check_truth.py [-v] TRUTH.json REPORT.json", file=sys.stderr)
        return 2
    try:
        with open(args[0]) as f:
            truth = json.load(f)
        with open(args[1]) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print("check_truth: cannot read input: %s" % e, file=sys.stderr)
        return 2
    if report.get("schema") != "threadlens-report":
        print("  '%s' is not a threadlens report (schema %r)" % (args[1], report.get("schema")))
        return 1
    fails, passes = check(truth, report)
    if verbose:
        for line in passes:
            print("  pass: " + line)
    for line in fails:
        print("  " + line)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
