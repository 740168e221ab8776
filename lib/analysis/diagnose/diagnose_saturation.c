/*
 * diagnose_saturation.c - a program of several processes that wants more
 * CPUs than the machine has.
 *
 * Oversubscription judges each process on its own, so a server of one
 * process per connection (PostgreSQL: pgbench with 8 clients on 2 CPUs,
 * every backend runnable 25-27% of its time and on a CPU 17%), a
 * multiprocessing pool or a `make -j` is never judged as the whole it is.
 * Here the recorded program's processes (all of them: `record -a` records
 * the machine) are summed: R their threads' time on a CPU (EXECUTING,
 * INTERRUPTED), Q their time queued for one (RUNNABLE, READY_PREEMPT,
 * READY_QUANTUM, less the held-back waits of a CPU limit: cpu-throttled's),
 * W the wall time from the first thread's start to the last one's end.
 * Demand D = (R + Q) / W CPUs.  Found when the program has two or more
 * processes that ran, Q is at least R (as oversubscription's sustained
 * form: on average a thread queued behind each running one), D exceeds
 * the CPUs the processes may use (the union of their affinity masks: a
 * container's cpuset, taskset; queueing with less demand is other
 * programs' doing:
 * wl_kernel pingpong beside the recorder built with ASan asked for 1.3
 * CPUs of 2 and queued twice its run), and the cost reaches the minimum.
 * The cost is W Q / (R + Q): the wall time
 * the same work would save if every queued thread had had a CPU (it would
 * take W R / (R + Q): (R + Q) / R times faster), an upper bound on what
 * more CPUs would buy (the work may wait on other things).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diagnose/diagnose_int.h"

#define SAT_QUEUE_PCT 100 /* queued for a CPU per time on one, thread time, at least */

int tl_dg_saturation(struct tl_dg_ctx *c)
{
	const struct tl_model *m = c->m;
	const struct tl_process_stats *first = NULL;
	uint64_t run = 0, queued = 0, start = UINT64_MAX, end = 0, cost;
	size_t nprocs = 0, nthreads = 0;
	struct tl_finding *f;
	double demand;
	int system = m->run->info.target_mode == TL_TARGET_SYSTEM;
	int n = m->program_cpus > 0 ? m->program_cpus : m->ncpus;

	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].is_target && m->procs[i].cpu_ns) {
			nprocs++;
			if (!first || m->procs[i].pid < first->pid)
				first = &m->procs[i];
		}
	if (nprocs < 2)
		return 0;
	c->out->checked[TL_FIND_CPU_SATURATION]++;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct tl_thread_stats *t = &m->threads[i];
		const uint64_t *s = t->state_ns;

		if (!t->is_target || t->end <= t->start)
			continue;
		nthreads++;
		run += s[TL_ST_EXECUTING] + s[TL_ST_INTERRUPTED];
		queued += s[TL_ST_RUNNABLE] + s[TL_ST_READY_PREEMPT] + s[TL_ST_READY_QUANTUM] - t->throttled_ns;
		start = t->start < start ? t->start : start;
		end = t->end > end ? t->end : end;
	}
	if (!run || end <= start || tl_dg_pct(queued, run) < SAT_QUEUE_PCT)
		return 0;
	cost = (uint64_t)((double)(end - start) * (double)queued / ((double)run + (double)queued));
	demand = (double)(run + queued) / (double)(end - start);
	if (cost < c->o->min_cost_ns || demand <= n)
		return 0;
	f = tl_dg_new_finding_at(c, TL_FIND_CPU_SATURATION, system ? 0 : first->pid,
	                         system ? "the machine" : first->name, start, end, cost, end - start);
	if (!f)
		return -1;
	snprintf(f->title, sizeof(f->title),
	         "%s (%zu processes) asked for %.1f CPUs on average and may use %d: queued %.1f s for each second "
	         "on a CPU",
	         system ? "the machine" : "the program", nprocs, demand, n, (double)queued / (double)run);
	/* the processes whose threads queued longest */
	for (int k = 0; k < 3; k++) {
		const struct tl_process_stats *best = NULL;
		uint64_t best_q = 0;

		for (size_t i = 0; i < m->nprocs; i++) {
			const struct tl_process_stats *p = &m->procs[i];
			uint64_t q = p->state_ns[TL_ST_RUNNABLE] + p->state_ns[TL_ST_READY_PREEMPT] +
			             p->state_ns[TL_ST_READY_QUANTUM];
			int named = 0;

			for (size_t j = 0; j < f->nthreads; j++)
				named |= f->threads[j].pid == p->pid;
			if (p->is_target && !named && q > best_q) {
				best = p;
				best_q = q;
			}
		}
		if (best)
			tl_dg_add_thread(f, best->pid, best->pid, best->name, "queued");
	}
	tl_dg_add_evidence(f, "processes that ran", (double)nprocs, NAN, "", 1);
	tl_dg_add_evidence(f, "their threads", (double)nthreads, NAN, "", 1);
	tl_dg_add_evidence(f, "time on a CPU (thread time)", (double)run, NAN, "ns", 1);
	tl_dg_add_evidence(f, "queued for a CPU, % of that", tl_dg_pct(queued, run), SAT_QUEUE_PCT, "%", 1);
	tl_dg_add_evidence(f, "CPUs asked for (on one or queued, per second)", demand, n, "", 1);
	tl_dg_add_evidence(f, "wall time all queued work would save", (double)cost, (double)c->o->min_cost_ns, "ns", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "more processes and threads are busy at once than there are CPUs: each waits in a run queue about "
	         "as long as it runs, so every request or task takes longer by the queueing");
	snprintf(
	        f->fix, sizeof(f->fix),
	        "run fewer at once (clients, connections, worker processes, make -j) to match the %d CPU%s it may use, "
	        "or give it more CPUs: up to %.1f would serve the demand, making it at most %.1fx faster",
	        n, n == 1 ? "" : "s", demand, (double)(run + queued) / (double)run);
	return 0;
}
