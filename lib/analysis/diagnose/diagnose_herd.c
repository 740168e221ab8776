/*
 * diagnose_herd.c - a thundering herd: one thread wakes many waiting
 * threads at once and most of them find nothing to do.
 *
 * Read from the model's `herds` (analysis/herd: bursts of wakeups by one
 * waker, each woken thread's run until it waits for work again; a run is
 * futile when it is short beside the burst's longest).  A waker that is
 * woken in such bursts itself is a peer of the threads it wakes: the last
 * to reach a barrier (wl_kernel oversub: after the first of its two
 * barriers a round, three of the four workers wait again at once), not
 * judged.  Judged per
 * (process, waker) of a recorded process: found when at least HERD_PCT of
 * the threads woken in its bursts of three or more found nothing to do,
 * and the cost reaches the minimum.  The cost is the futile runs' time on
 * a CPU and every woken thread's time queued for a CPU in those bursts (woken
 * at once, they queue for the CPUs, the one with work among them): thread
 * time that waking one thread per item would not spend.
 *
 * Measured (docs/DIAGNOSE.md): wl_pool herd (a broadcast per item to six
 * waiting workers) against wl_pool signal (the same with a signal).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diagnose/diagnose_int.h"

#define HERD_PCT 50.0 /* of the threads woken in bursts, at least this share found nothing */

static const struct tl_process_stats *process(const struct tl_model *m, int32_t pid)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	return NULL;
}

int tl_dg_herds(struct tl_dg_ctx *c)
{
	const struct tl_model *m = c->m;

	for (size_t i = 0; i < m->herds.n; i++) {
		const struct tl_herd *x = &m->herds.items[i];
		const struct tl_process_stats *p = process(m, x->pid);
		struct tl_finding *f;

		if (!p || !p->is_target || x->peer)
			continue; /* a peer: the threads of a barrier, not a herd */
		c->out->checked[TL_FIND_THUNDERING_HERD]++;
		if (tl_dg_pct(x->futile, x->woken) < HERD_PCT || x->futile_ns + x->queued_ns < c->o->min_cost_ns)
			continue;
		f = tl_dg_new_finding_at(c, TL_FIND_THUNDERING_HERD, p->pid, p->name, x->first, x->last,
		                         x->futile_ns + x->queued_ns, x->futile_ns + x->work_ns + x->queued_ns);
		if (!f)
			return -1;
		if (x->bursts == 1) /* "woke 13 threads at once; ...", not "13.0 threads at once 1 times" */
			snprintf(f->title, sizeof(f->title),
			         "%s %d woke %llu threads at once; %.0f%% of them found nothing to do", x->waker_name,
			         (int)x->waker, (unsigned long long)x->woken, tl_dg_pct(x->futile, x->woken));
		else
			snprintf(f->title, sizeof(f->title),
			         "%s %d woke %.1f threads at once, %llu times; %.0f%% of them found nothing to do",
			         x->waker_name, (int)x->waker, (double)x->woken / (double)x->bursts,
			         (unsigned long long)x->bursts, tl_dg_pct(x->futile, x->woken));
		tl_dg_add_thread(f, x->waker, p->pid, x->waker_name, "waker");
		for (size_t k = 0; k < x->nthreads; k++)
			tl_dg_add_thread(f, x->threads[k].tid, p->pid, x->threads[k].name, "woken for nothing");
		tl_dg_add_evidence(f, "bursts: 3 or more threads woken at once", (double)x->bursts, NAN, "", 1);
		tl_dg_add_evidence(f, "threads woken in them", (double)x->woken, NAN, "", 1);
		tl_dg_add_evidence(f, "of them found nothing to do, %", tl_dg_pct(x->futile, x->woken), HERD_PCT, "%",
		                   1);
		tl_dg_add_evidence(f, "their time on a CPU", (double)x->futile_ns, NAN, "ns", 1);
		tl_dg_add_evidence(f, "the others' time on a CPU (the work)", (double)x->work_ns, NAN, "ns", 1);
		tl_dg_add_evidence(f, "all of them queued for a CPU", (double)x->queued_ns, NAN, "ns", 1);
		tl_dg_add_evidence(f, "cost: nothing-to-do runs and queueing", (double)(x->futile_ns + x->queued_ns),
		                   (double)c->o->min_cost_ns, "ns", 1);
		snprintf(f->cause, sizeof(f->cause),
		         "a thundering herd: the waker wakes every waiting thread (pthread_cond_broadcast, notify_all, "
		         "a futex wake of all) when there is work for one; the others run, find the queue empty and "
		         "wait "
		         "again, queueing for the CPUs in front of the one with work");
		snprintf(
		        f->fix, sizeof(f->fix),
		        "wake one waiter per item (pthread_cond_signal, notify_one), or one condition per worker; keep "
		        "the broadcast for changes every waiter must see (shutdown, a barrier)");
	}
	return 0;
}
