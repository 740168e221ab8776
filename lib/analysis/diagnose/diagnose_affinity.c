/*
 * diagnose_affinity.c - threads kept off idle CPUs by their affinity masks.
 *
 * A thread may run only on the CPUs of its mask.  Pinning code that puts
 * several busy threads on one CPU (a CPU number computed from the wrong
 * count, every thread pinned like the first), a launcher's mask that every
 * thread inherits (taskset, numactl, OMP_PLACES, a container's cpuset)
 * make threads queue for the CPUs they may use while others sit idle:
 * the program runs as if the machine had fewer CPUs, and nothing but the
 * masks says why (perf and the states show a run queue, READY_QUANTUM).
 * The report sums each thread's waits for a CPU beside an idle CPU its
 * mask leaves out (report.h: confined, confined_ns; analysis/confine).
 *
 * Judged per process: found when that time C of its threads is at least
 * affinity_pct of the time they wanted a CPU (on one: EXECUTING,
 * INTERRUPTED; waiting for one: RUNNABLE, READY_*) and reaches the
 * minimum cost.  The cost is C, thread time: the waits a wider mask would
 * have saved (an idle CPU was there to take them).  Threads that are not
 * pinned never count (their masks exclude no CPU), nor does a pinned
 * thread that has its CPU to itself (it does not wait).  Per-CPU kernel
 * threads (named after their CPU: kworker/0:1, ksoftirqd/1) are bound to
 * it by design and are not judged.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose/diagnose_int.h"

static int cmp_confined(const void *a, const void *b)
{
	const struct tl_thread_stats *x = *(const struct tl_thread_stats *const *)a;
	const struct tl_thread_stats *y = *(const struct tl_thread_stats *const *)b;

	if (x->confined_ns != y->confined_ns)
		return x->confined_ns < y->confined_ns ? 1 : -1;
	return x->tid - y->tid;
}

/* A per-CPU kernel thread's name: "kworker/0:1", "ksoftirqd/1", "migration/0". */
static int per_cpu_kthread(const char *name)
{
	const char *slash = strchr(name, '/');

	return slash && isdigit((unsigned char)slash[1]);
}

int tl_dg_affinity(struct tl_dg_ctx *c, const struct tl_process_stats *p)
{
	const struct tl_model *m = c->m;
	const struct tl_thread_stats *kept[TL_FINDING_MAX_THREADS];
	uint64_t ns = 0, want = 0, waits = 0, oncpu = 0;
	size_t nkept = 0, nthreads = 0;
	int most = 0;
	struct tl_finding *f;

	if (per_cpu_kthread(p->name))
		return 0;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct tl_thread_stats *t = &m->threads[i];

		if (t->pid != p->pid)
			continue;
		want += tl_dg_wanting(t);
		oncpu += t->state_ns[TL_ST_EXECUTING] + t->state_ns[TL_ST_INTERRUPTED];
		if (!t->confined_ns)
			continue;
		ns += t->confined_ns;
		waits += t->confined;
		most = t->confined_cpus > most ? t->confined_cpus : most;
		nthreads++;
		tl_dg_keep_top(kept, &nkept, t, cmp_confined);
	}
	if (!ns || tl_dg_pct(ns, want) < c->o->affinity_pct || ns < c->o->min_cost_ns)
		return 0;
	f = tl_dg_new_finding_at(c, TL_FIND_AFFINITY_BOUND, p->pid, p->name, p->start, p->end, ns, want);
	if (!f)
		return -1;
	snprintf(f->title, sizeof(f->title),
	         "%.40s (%d) kept off idle CPUs by affinity: %d thread%s on %d of %d CPUs waited %d%% of the time %s "
	         "wanted one",
	         p->name, (int)p->pid, (int)(nthreads % 100000), nthreads > 1 ? "s" : "", most % 10000,
	         m->ncpus % 10000, (int)(tl_dg_pct(ns, want) + 0.5), nthreads > 1 ? "they" : "it");
	for (size_t i = 0; i < nkept; i++)
		tl_dg_add_thread(f, kept[i]->tid, kept[i]->pid, kept[i]->name, "kept off idle CPUs");
	tl_dg_add_evidence(f, "waiting beside an idle CPU, % of wanting a CPU", tl_dg_pct(ns, want), c->o->affinity_pct,
	                   "%", 1);
	tl_dg_add_evidence(f, "time waiting so (thread time)", (double)ns, (double)c->o->min_cost_ns, "ns", 1);
	tl_dg_add_evidence(f, "waits", (double)waits, NAN, "", 1);
	tl_dg_add_evidence(f, "CPUs their masks allow (the most)", (double)most, NAN, "", 1);
	tl_dg_add_evidence(f, "CPUs of the machine", (double)m->ncpus, NAN, "", 1);
	if (p->end > p->start)
		tl_dg_add_evidence(f, "CPUs it got: CPU time per second", (double)oncpu / (double)(p->end - p->start),
		                   NAN, "", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "the threads' affinity masks keep them off CPUs that sat idle while they queued for the ones they may "
	         "use: several busy threads pinned to the same CPUs (sched_setaffinity, pthread_setaffinity_np), or a "
	         "narrow mask every thread inherited (taskset, numactl, OMP_PLACES/GOMP_CPU_AFFINITY, a container's "
	         "cpuset)");
	snprintf(f->fix, sizeof(f->fix),
	         "widen the masks to take in the idle CPUs, or pin at most one busy thread per CPU (check the CPU "
	         "numbers the pinning code computes, and the count it divides by); remove a launcher's taskset or "
	         "numactl, or let the container use more CPUs");
	return 0;
}
