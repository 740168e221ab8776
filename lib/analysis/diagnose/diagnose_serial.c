/*
 * diagnose_serial.c - serialized threads: threads of one process that
 * compute, but one at a time, while a CPU is idle.
 *
 * The pattern of Python's global interpreter lock, of a global mutex or a
 * condition variable held around the work, and of a hand-off where each
 * thread waits for the other's result: each thread runs a good share of
 * its life and waits in SYNC_WAIT much of the rest, yet the process
 * seldom has two threads wanting a CPU at once, and a CPU it may use sits
 * idle meanwhile.  Lock waits are left to lock-contention (they name the
 * holder), and SYNC_WAIT that the parallel regions explain (barriers) to
 * the region detectors.  Who ended the waits is not asked: Python's
 * threads wake on their own 5 ms timeouts to ask for the lock.
 *
 * Judged per process (its load, analysis/load): the members, threads
 * with on-CPU time at least SERIAL_RUN_PCT and unexplained condition
 * waits at least SERIAL_SYNC_PCT of their lives, at least two; their
 * on-CPU time R; the time at least two threads of the process wanted a
 * CPU, at most SERIAL_OVERLAP_PCT of R (so they seldom ran at once); the
 * time one thread of it ran with a CPU idle, at least SERIAL_IDLE_PCT of R.
 * The cost is what running them side by side on the c = min(members,
 * CPUs it may use) CPUs would save, R (1 - 1/c), bounded by the idle CPU
 * time that was there to take it (idle_spare_ns).
 *
 * Measured (docs/DIAGNOSE.md): three Python threads in a loop, 12-20% of
 * R at two or more and one with a CPU idle 100% of R; wl_kernel baton,
 * 1.1-1.5% and 99-100%.  Two threads side by side show 50%.  The live
 * scenarios that must not be found: wl_kernel oversub, tiny and pipeline
 * 41-141% of R at two or more; pingpong and contend have no members.
 */
#include <math.h>
#include <stdio.h>

#include "analysis/diagnose/diagnose_int.h"
#include "analysis/load/load.h"

#define SERIAL_RUN_PCT 15.0     /* a member's on-CPU share of its life, at least */
#define SERIAL_SYNC_PCT 15.0    /* its condition waits (not locks, not barriers), at least */
#define SERIAL_OVERLAP_PCT 25.0 /* two or more of the process wanting a CPU, at most, of R */
#define SERIAL_IDLE_PCT 50.0    /* one of it running with a CPU idle, at least, of R */

static uint64_t run_ns(const struct tl_thread_stats *t)
{
	return t->state_ns[TL_ST_EXECUTING] + t->state_ns[TL_ST_INTERRUPTED];
}

/* A thread that computes and waits on its siblings' conditions. */
static int member(const struct tl_dg_ctx *c, const struct tl_thread_stats *t, int32_t pid)
{
	uint64_t life = tl_dg_lifetime(t), sync = t->state_ns[TL_ST_SYNC_WAIT], rs = tl_dg_rsync(c, t);

	sync = sync > rs ? sync - rs : 0;
	sync = sync > t->lock_wait_ns ? sync - t->lock_wait_ns : 0;
	return t->pid == pid && tl_dg_pct(run_ns(t), life) >= SERIAL_RUN_PCT &&
	       tl_dg_pct(sync, life) >= SERIAL_SYNC_PCT;
}

int tl_dg_serialized(struct tl_dg_ctx *c, const struct tl_process_stats *p)
{
	const struct tl_load_proc *l = tl_load_find(&c->m->load, p->pid);
	const struct tl_model *m = c->m;
	uint64_t run = 0, over = 0, cost;
	int n = p->available_cpus > 0 ? p->available_cpus : m->ncpus, members = 0, cpus;
	struct tl_finding *f;

	if (!l || n < 2)
		return 0;
	for (size_t i = 0; i < m->nthreads; i++)
		if (member(c, &m->threads[i], p->pid)) {
			run += run_ns(&m->threads[i]);
			members++;
		}
	for (int k = 2; k < TL_LOAD_LEVELS; k++)
		over += l->at_level[k];
	if (members < 2 || tl_dg_pct(over, run) > SERIAL_OVERLAP_PCT ||
	    tl_dg_pct(l->idle_under_ns, run) < SERIAL_IDLE_PCT)
		return 0;
	cpus = members < n ? members : n;
	cost = run - run / (uint64_t)cpus;
	if (cost > l->idle_spare_ns)
		cost = l->idle_spare_ns;
	if (cost < c->o->min_cost_ns)
		return 0;
	f = tl_dg_new_finding_at(c, TL_FIND_SERIALIZED, p->pid, p->name, p->start, p->end, cost, p->end - p->start);
	if (!f)
		return -1;
	snprintf(f->title, sizeof(f->title), "%d threads of %s (%d) computed one at a time while a CPU was idle",
	         members, p->name, (int)p->pid);
	for (size_t i = 0; i < m->nthreads; i++)
		if (member(c, &m->threads[i], p->pid))
			tl_dg_add_thread(f, m->threads[i].tid, p->pid, m->threads[i].name, "taking turns");
	tl_dg_add_evidence(f, "threads that compute and wait on each other", members, 2, "", 1);
	tl_dg_add_evidence(f, "their time on a CPU", (double)run, NAN, "ns", 1);
	tl_dg_add_evidence(f, "time two or more of the process wanted a CPU", (double)over,
	                   (double)run * SERIAL_OVERLAP_PCT / 100, "ns", 0);
	tl_dg_add_evidence(f, "time one wanted a CPU while a CPU was idle", (double)l->idle_under_ns,
	                   (double)run * SERIAL_IDLE_PCT / 100, "ns", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "the threads take turns: each computes, then waits on a condition until another hands over, so the "
	         "process never uses a second CPU for this work (a lock held while computing, as Python's global "
	         "interpreter lock, or a hand-off where each waits for the other's result)");
	snprintf(f->fix, sizeof(f->fix),
	         "let the work run side by side: separate processes instead of threads in Python (multiprocessing), "
	         "release the lock around the computation (finer locks, a C extension that drops the GIL), or "
	         "overlap the hand-off (double buffering, a queue deeper than one item)");
	return 0;
}
