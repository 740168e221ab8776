#!/usr/bin/env python3
"""check_truth.py - compare a threadlens report with a workload's ground truth.

    check_truth.py TRUTH.json REPORT.json

TRUTH is what tests/live/wl_states wrote: per thread (by name, with its
tid) the time it must have spent in some states, measured from inside the
workload.  REPORT is `threadlens report --json` of a recording of that run
(schema: docs/JSON.md).  The checks:

  * every truth thread is in the report (matched by tid, name must agree);
  * each expectation "<STATE>_ns" (or "<S1>+<S2>_ns": the sum of states)
    agrees within max(1 % of the thread's lifetime, 1 ms), the targets of
    the "Numbers you can trust" issue, plus what the trace measured that a
    workload's clock counts differently (see tolerance());
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

# (share of the thread's lifetime, absolute ns): the targets.
DEFAULT_TOL = (0.01, 1 * MS)

WAIT_STATES = ("SLEEPING", "SYNC_WAIT", "IO_WAIT", "BLOCKED")


ONCPU_STATES = ("EXECUTING", "INTERRUPTED")


def dated(report_thread, key, check):
    """The report's time in the states of key, and how the kernel dates it.

    A workload's CPU clock is the kernel's accounting: for a sum of on-CPU
    states, with the lags recorded (format 1.6), the trace's time is moved
    where the kernel dates it (the report's kernel_check dated_run_ns), and
    no lag is allowed then (tolerance(), dated=True)."""
    got = sum(report_thread["state_ns"].get(p, 0) for p in key.split("+"))
    if check.get("dated_run_ns") is not None and all(p in ONCPU_STATES for p in key.split("+")):
        return got + check["dated_run_ns"], True
    return got, False


def tolerance(report_thread, key, check, steal, dated=False):
    """The tolerance of one comparison, and what it is made of.

    max(1 % of the thread's lifetime, 1 ms), plus allowances the trace
    itself measured, never a constant per switch:
      * the clock lag of the thread's switches: the CPU clock a workload
        reads is the kernel's, which dates a switch from its CPU's last
        clock update, not from the switch (lib/analysis/kcheck/kcheck.h).
        With the lags recorded (format 1.6, the report's kernel_check
        dated_run_ns, dated_wait_ns): none for on-CPU time, which is then
        compared dated (dated()), else the exact shifts of its run and its
        wait; without them the estimates (clock_lag_in/out/end_ns);
      * for a wait state, the thread's RUNNABLE time: a workload that times
        its own wait (around nanosleep, a lock, a read) counts the wait for
        a CPU after the wakeup too;
      * the hypervisor's steal time during the run (truth "steal_ns"): a
        trace sees a stolen vCPU as running, the CPU clock does not;
      * the thread's UNKNOWN time: what the trace says it cannot tell (a
        switch the kernel did not report, lost events) may hide any state
        (seen: a victim's 8.5 ms UNKNOWN after an inferred switch, its
        EXECUTING 9.9 ms short dated).
    """
    base = max(DEFAULT_TOL[0] * report_thread.get("lifetime_ns", 0), DEFAULT_TOL[1])
    if dated:
        lag = 0
    elif check.get("dated_run_ns") is not None:
        lag = abs(check["dated_run_ns"]) + abs(check.get("dated_wait_ns") or 0)
    else:
        lag = sum(check.get(k, 0) for k in ("clock_lag_in_ns", "clock_lag_out_ns", "clock_lag_end_ns"))
    runnable = report_thread["state_ns"].get("RUNNABLE", 0) if any(
        p in WAIT_STATES for p in key.split("+")) else 0
    unknown = report_thread["state_ns"].get("UNKNOWN", 0)
    return base + lag + runnable + steal + unknown


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
    checks = {t["tid"]: t for t in report.get("kernel_check", {}).get("threads", [])}

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
            got, is_dated = dated(t, key[:-3], checks.get(t["tid"], {}))
            steal = truth.get("steal_ns", 0)
            tol = tolerance(t, key[:-3], checks.get(t["tid"], {}), steal, is_dated)
            line = "%s %s%s: report %s, truth %s, diff %+.3f ms, tolerance %s%s" % (
                name, key[:-3], " (dated)" if is_dated else "", fmt_ms(got), fmt_ms(want), (got - want) / MS,
                fmt_ms(tol),
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
