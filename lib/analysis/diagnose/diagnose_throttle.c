/*
 * diagnose_throttle.c - a process held off idle CPUs: a CPU limit ran out.
 *
 * A runnable thread leaves its CPU and the CPU goes idle: no other task
 * was there to run, yet the kernel did not let this one go on.  That is a
 * CPU bandwidth limit: a cgroup's quota (cgroup v2 cpu.max, v1
 * cpu.cfs_quota_us; a container's CPU limit, systemd's CPUQuota=) spent
 * for the current period, after which the group's threads wait until the
 * period ends (100 ms by default), or RT throttling of real-time threads.
 * The report counts each thread's such waits (report.h: throttles,
 * throttled_ns: READY_QUANTUM with no next task); the scheduler shows
 * them nowhere else (perf sched shows a preemption by the idle task).
 *
 * Judged per process (a limit is set on a group of processes; each is
 * judged on its own): found when the held-back time T of its threads is at
 * least throttle_pct of the time they wanted a CPU (on one: EXECUTING,
 * INTERRUPTED; waiting for one: RUNNABLE, READY_*) and reaches the minimum
 * cost.  The cost is T, thread time: the waits the limit added.  Healthy
 * programs have none: 0 held-back waits in the 14 wl_kernel scenarios and
 * in a system-wide recording of 2 s (docs/DIAGNOSE.md), so the threshold
 * only keeps out a limit that barely bites.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose/diagnose_int.h"

static int cmp_held(const void *a, const void *b)
{
	const struct tl_thread_stats *x = *(const struct tl_thread_stats *const *)a;
	const struct tl_thread_stats *y = *(const struct tl_thread_stats *const *)b;

	if (x->throttled_ns != y->throttled_ns)
		return x->throttled_ns < y->throttled_ns ? 1 : -1;
	return x->tid - y->tid;
}

int tl_dg_throttle(struct tl_dg_ctx *c, const struct tl_process_stats *p)
{
	const struct tl_model *m = c->m;
	const struct tl_thread_stats *held[TL_FINDING_MAX_THREADS];
	uint64_t ns = 0, want = 0, waits = 0, longest = 0, oncpu = 0;
	size_t nheld = 0, nthreads = 0;
	struct tl_finding *f;

	for (size_t i = 0; i < m->nthreads; i++) {
		const struct tl_thread_stats *t = &m->threads[i];

		if (t->pid != p->pid)
			continue;
		want += tl_dg_wanting(t);
		oncpu += t->state_ns[TL_ST_EXECUTING] + t->state_ns[TL_ST_INTERRUPTED];
		if (!t->throttled_ns)
			continue;
		ns += t->throttled_ns;
		waits += t->throttles;
		if (t->throttled_max_ns > longest)
			longest = t->throttled_max_ns;
		nthreads++;
		tl_dg_keep_top(held, &nheld, t, cmp_held);
	}
	if (!ns || tl_dg_pct(ns, want) < c->o->throttle_pct || ns < c->o->min_cost_ns)
		return 0;
	f = tl_dg_new_finding_at(c, TL_FIND_CPU_THROTTLED, p->pid, p->name, p->start, p->end, ns, want);
	if (!f)
		return -1;
	snprintf(f->title, sizeof(f->title),
	         "%s (%d) was held off idle CPUs: %zu thread%s waited %.0f%% of the time %s wanted a CPU (%llu waits)",
	         p->name, (int)p->pid, nthreads, nthreads > 1 ? "s" : "", tl_dg_pct(ns, want),
	         nthreads > 1 ? "they" : "it", (unsigned long long)waits);
	for (size_t i = 0; i < nheld; i++)
		tl_dg_add_thread(f, held[i]->tid, held[i]->pid, held[i]->name, "held back");
	tl_dg_add_evidence(f, "held back, % of the time wanting a CPU", tl_dg_pct(ns, want), c->o->throttle_pct, "%",
	                   1);
	tl_dg_add_evidence(f, "time held back (thread time)", (double)ns, (double)c->o->min_cost_ns, "ns", 1);
	tl_dg_add_evidence(f, "waits held back", (double)waits, NAN, "", 1);
	tl_dg_add_evidence(f, "longest wait held back", (double)longest, NAN, "ns", 1);
	if (p->end > p->start)
		tl_dg_add_evidence(f, "CPUs it got: CPU time per second", (double)oncpu / (double)(p->end - p->start),
		                   NAN, "", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "a CPU limit ran out: runnable threads left their CPU and it went idle, nothing else to run, so the "
	         "kernel withheld it. A cgroup's CPU quota (cpu.max, cpu.cfs_quota_us: a container's CPU limit, "
	         "systemd CPUQuota=) is spent for the period and its threads wait for the next; or RT throttling");
	snprintf(f->fix, sizeof(f->fix),
	         "raise or remove the limit (cpu.max, docker --cpus, Kubernetes limits.cpu), or ask for less at once: "
	         "N busy threads spend a quota N times as fast and then all stall until the period ends (100 ms by "
	         "default: latency spikes); fewer threads, or a shorter period (cpu.max's second field)");
	return 0;
}
