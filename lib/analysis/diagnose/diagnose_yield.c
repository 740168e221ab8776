/*
 * diagnose_yield.c - a thread that waits by calling sched_yield in a loop.
 *
 * `while (!ready) sched_yield();` waits for another thread on a CPU: with
 * a CPU free, each call returns at once and the thread spins; with none
 * free, it hands its CPU to whatever task wants it at each call and comes
 * back at once.  The kernel shows nothing of it (no switch, a thread 100%
 * on a CPU: the report says it works), and the CPU it burns is lost to
 * the other threads, to other programs and to the CPU's idle power
 * states.  The report counts each thread's runs of calls that spun
 * (report.h: yield_spin; analysis/yspin: calls at most 10 us apart on
 * average, no switch between them).
 *
 * Judged per thread: found when the runs take at least yield_spin_pct of
 * its time on a CPU (EXECUTING, INTERRUPTED) and reach the minimum cost.
 * The cost is their time: CPU time burned waiting (the share is capped
 * at 100%: see tl_dg_yield()).  Yields between pieces
 * of real work (a few a millisecond) are no spin, and a thread that spins
 * for a few microseconds before it blocks stays far under the minimum.
 */
#include <math.h>
#include <stdio.h>

#include "analysis/diagnose/diagnose_int.h"

int tl_dg_yield(struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	const struct tl_yspin_sum *y = &t->yield_spin;
	uint64_t oncpu = t->state_ns[TL_ST_EXECUTING] + t->state_ns[TL_ST_INTERRUPTED];
	/*
	 * Over 100% when the states miss some of its time on a CPU that the
	 * kernel saw it yield in: a thread already running when a -p or -a
	 * recording starts is not known to hold its CPU until an event says so.
	 */
	double share = fmin(tl_dg_pct(y->ns, oncpu), 100);
	struct tl_finding *f;

	if (!y->runs || share < c->o->yield_spin_pct || y->ns < c->o->min_cost_ns)
		return 0;
	if (!(f = tl_dg_new_finding(c, TL_FIND_YIELD_SPIN, t, y->ns)))
		return -1;
	snprintf(f->title, sizeof(f->title),
	         "%s (%d) spun in sched_yield %.0f%% of its time on a CPU: %llu calls in %llu run%s", t->name, t->tid,
	         share, (unsigned long long)y->calls, (unsigned long long)y->runs, y->runs > 1 ? "s" : "");
	tl_dg_add_thread(f, t->tid, t->pid, t->name, "spinner");
	tl_dg_add_evidence(f, "share of its time on a CPU spent yielding", share, c->o->yield_spin_pct, "%", 1);
	tl_dg_add_evidence(f, "time in runs of sched_yield calls", (double)y->ns, (double)c->o->min_cost_ns, "ns", 1);
	tl_dg_add_evidence(f, "sched_yield calls in them", (double)y->calls, NAN, "", 1);
	tl_dg_add_evidence(f, "mean time from one call to the next",
	                   y->calls > y->runs ? (double)y->ns / (double)(y->calls - y->runs) : NAN, TL_YSPIN_LOOP_NS,
	                   "ns", 0);
	tl_dg_add_evidence(f, "runs (no switch, calls at most 1 ms apart)", (double)y->runs, NAN, "", 1);
	tl_dg_add_evidence(f, "yields that gave its CPU away (READY_YIELD)", (double)t->entries[TL_ST_READY_YIELD], NAN,
	                   "", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "it waits for another thread by calling sched_yield in a loop: with a CPU free each call returns at "
	         "once, so the wait keeps a CPU busy doing nothing (with none free, it hands its CPU over and takes "
	         "it back at each call)");
	snprintf(f->fix, sizeof(f->fix),
	         "block until the other thread signals: a condition variable, a semaphore, a futex (C++20 "
	         "std::atomic::wait); or spin a few microseconds at most, then block");
	return 0;
}
