/*
 * diagnose_regions.c - the detectors that read the parallel regions of the
 * user's markers and of OpenMP (analysis/regions/regions.h): barrier
 * imbalance, pointless parallelism, and an OpenMP team starved of tasks.
 * docs/DIAGNOSE.md has each rule and its reason.
 *
 * Both look only at parallel rounds (two or more threads, one instance
 * each); a region needs at least MIN_ROUNDS of them, so that one odd round
 * is not a pattern.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose/diagnose_int.h"

#define MIN_ROUNDS 3
#define STARVE_PCT 20.0 /* the team's time in its rounds spent waiting at barriers with no task to run, at least */

static uint64_t sum(const uint64_t st[TL_ST__COUNT])
{
	uint64_t n = 0;

	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		n += st[s];
	return n;
}

static void sum3(uint64_t out[TL_ST__COUNT], const struct tl_region_stats *g)
{
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		out[s] = g->before[s] + g->inside[s] + g->after[s];
}

static const char *process_of(const struct tl_model *m, int32_t pid)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid == pid)
			return m->procs[i].name;
	return "";
}

static int is_target(const struct tl_model *m, int32_t pid)
{
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].pid == pid)
			return 1; /* the model keeps only the threads the run's filters keep */
	return 0;
}

/*
 * Barrier imbalance: over the compared rounds, the doers finish apart (the
 * last END after the mean END) by at least imbalance_pct of the rounds'
 * wall time, and their CPU time inside is uneven by at least imbalance_pct
 * too, as (largest - mean) / largest (work_lost / work_max: the classic
 * load imbalance); both the wall time lost and the uneven work reach
 * min_cost.  Finishing apart alone can be late starts or preemptions;
 * uneven CPU time alone is what a dynamic split does on busy CPUs (the
 * workers that run take more blocks, and all finish together).  The thread
 * whose finishes after the mean add up to the most is the laggard.
 */
static int imbalance(struct tl_dg_ctx *c, const struct tl_region_stats *g)
{
	const struct tl_region_thread *lag = NULL;
	struct tl_finding *f;
	uint64_t waited;

	if (g->rounds_compared < MIN_ROUNDS || tl_dg_pct(g->work_lost_ns, g->work_max_ns) < c->o->imbalance_pct ||
	    tl_dg_pct(g->lost_ns, g->wall_ns) < c->o->imbalance_pct || g->lost_ns < c->o->min_cost_ns ||
	    g->work_lost_ns < c->o->min_cost_ns)
		return 0;
	/* the one whose late finishes cost the most (even rounds' last is a toss-up), then the last most often */
	for (size_t i = 0; i < g->nthreads; i++)
		if (!lag || g->threads[i].late_ns > lag->late_ns ||
		    (g->threads[i].late_ns == lag->late_ns && g->threads[i].last > lag->last))
			lag = &g->threads[i];
	f = tl_dg_new_finding_at(c, TL_FIND_BARRIER_IMBALANCE, g->pid, process_of(c->m, g->pid), g->worst[0],
	                         g->worst[1], g->lost_ns, g->wall_ns);
	if (!f)
		return -1;
	snprintf(f->region, sizeof(f->region), "%s", g->name);
	snprintf(f->title, sizeof(f->title),
	         "%s '%.40s': work split %.0f%% unevenly; %.40s (%d) finishes last in %llu of %llu rounds",
	         tl_region_is_tasks(g) ? "tasks" : "region", g->name, tl_dg_pct(g->work_lost_ns, g->work_max_ns),
	         lag->name, lag->tid, (unsigned long long)lag->last, (unsigned long long)g->rounds_compared);
	tl_dg_add_thread(f, lag->tid, g->pid, lag->name, "laggard");
	for (size_t i = 0; i < g->nthreads; i++)
		if (&g->threads[i] != lag && g->threads[i].instances)
			tl_dg_add_thread(f, g->threads[i].tid, g->pid, g->threads[i].name, "worker");
	tl_dg_add_evidence(f, "CPU time inside, (largest - mean) / largest", tl_dg_pct(g->work_lost_ns, g->work_max_ns),
	                   c->o->imbalance_pct, "%", 1);
	tl_dg_add_evidence(f, "wall time lost (last finish - mean finish)", (double)g->lost_ns,
	                   (double)c->o->min_cost_ns, "ns", 1);
	tl_dg_add_evidence(f, "last finish after the mean, % of the rounds", tl_dg_pct(g->lost_ns, g->wall_ns),
	                   c->o->imbalance_pct, "%", 1);
	tl_dg_add_evidence(f, "CPU time of the laggard beyond the mean", (double)g->work_lost_ns,
	                   (double)c->o->min_cost_ns, "ns", 1);
	tl_dg_add_evidence(f, "rounds compared", (double)g->rounds_compared, MIN_ROUNDS, "", 1);
	tl_dg_add_evidence(f, "time the others sat finished (idle)", (double)g->idle_ns, NAN, "ns", 1);
	waited = g->after[TL_ST_SYNC_WAIT] + g->after[TL_ST_SLEEPING];
	tl_dg_add_evidence(f, "asleep after finishing (SYNC_WAIT, SLEEPING)", tl_dg_pct(waited, sum(g->after)), NAN,
	                   "%", 1);
	if (tl_region_is_tasks(g)) {
		/* the rounds are tasks run side by side: no split to schedule, the tasks themselves differ */
		snprintf(f->cause, sizeof(f->cause),
		         "'%.40s' is an OpenMP task: the tasks that run side by side differ in size, and the "
		         "longest keeps the others waiting at the barrier or taskwait that ends them",
		         g->name);
		snprintf(f->fix, sizeof(f->fix),
		         "split the long tasks into smaller ones (taskloop with a grainsize, or a recursive split "
		         "down to a cut-off), or create the longest first so that short ones fill in behind it");
		return 0;
	}
	snprintf(f->cause, sizeof(f->cause),
	         "the work of each round is split unevenly: the laggard computes longer (a static split of "
	         "uneven blocks), so the others finish early and wait for it at the barrier or join");
	snprintf(f->fix, sizeof(f->fix),
	         "hand out the work dynamically (smaller blocks from a shared counter or queue; OpenMP "
	         "schedule(dynamic) or guided), or balance the static split by the blocks' cost");
	return 0;
}

/*
 * Pointless parallelism: from each round's start to its end, its threads
 * wait for a CPU (RUNNABLE, READY_*) or in sync (SYNC_WAIT, before their
 * instance or inside it; waiting after finishing is imbalance, above) more
 * than overhead_pct of the time they execute.  Cost: how much longer the
 * rounds took, first BEGIN to last END, than their work inside would take
 * one thread (wall - CPU time inside, if positive): what doing it serially
 * would save.
 */
static int pointless(struct tl_dg_ctx *c, const struct tl_region_stats *g)
{
	uint64_t all[TL_ST__COUNT], exec, wait, cost,
	        inside_exec = g->inside[TL_ST_EXECUTING] + g->inside[TL_ST_INTERRUPTED];
	size_t nthreads = 0;
	struct tl_finding *f;

	if (g->rounds_parallel < MIN_ROUNDS)
		return 0;
	sum3(all, g);
	exec = all[TL_ST_EXECUTING] + all[TL_ST_INTERRUPTED];
	wait = tl_regions_ready(all) + g->before[TL_ST_SYNC_WAIT] + g->inside[TL_ST_SYNC_WAIT];
	for (size_t i = 0; i < g->nthreads; i++)
		nthreads += g->threads[i].instances > 0;
	cost = g->wall_ns > inside_exec ? g->wall_ns - inside_exec : 0;
	if (tl_dg_pct(wait, exec) <= c->o->overhead_pct || cost < c->o->min_cost_ns)
		return 0;
	f = tl_dg_new_finding_at(c, TL_FIND_POINTLESS_PARALLEL, g->pid, process_of(c->m, g->pid), g->worst[0],
	                         g->worst[1], cost, g->wall_ns);
	if (!f)
		return -1;
	snprintf(f->region, sizeof(f->region), "%s", g->name);
	snprintf(f->title, sizeof(f->title),
	         "region '%.40s' runs on %zu threads that wait %.0f%% of the time they work (%.0f us of work per "
	         "instance)",
	         g->name, nthreads, tl_dg_pct(wait, exec),
	         g->instances ? (double)inside_exec / (double)g->instances / 1e3 : 0);
	for (size_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].instances)
			tl_dg_add_thread(f, g->threads[i].tid, g->pid, g->threads[i].name, "worker");
	tl_dg_add_evidence(f, "waiting (for a CPU, in sync) per executing", tl_dg_pct(wait, exec), c->o->overhead_pct,
	                   "%", 1);
	tl_dg_add_evidence(f, "rounds' wall time beyond their CPU time", (double)cost, (double)c->o->min_cost_ns, "ns",
	                   1);
	tl_dg_add_evidence(f, "waiting, all its threads", (double)wait, NAN, "ns", 1);
	tl_dg_add_evidence(f, "parallel rounds", (double)g->rounds_parallel, MIN_ROUNDS, "", 1);
	tl_dg_add_evidence(f, "mean round, first begin to last end",
	                   g->rounds_parallel ? (double)g->wall_ns / (double)g->rounds_parallel : 0, NAN, "ns", 1);
	tl_dg_add_evidence(f, "threads executing at once (CPU time / wall)",
	                   g->wall_ns ? (double)inside_exec / (double)g->wall_ns : 0, NAN, "", 1);
	tl_dg_add_evidence(f, "waiting for a CPU", (double)tl_regions_ready(all), NAN, "ns", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "each round's work is small next to what it costs to hand it out and collect it: waking the "
	         "threads, waiting for CPUs, meeting at the barrier or join");
	if (tl_region_is_tasks(g))
		snprintf(f->fix, sizeof(f->fix),
		         "make the tasks '%.40s' larger: below a cut-off run the work inline instead of as a task "
		         "(the if or final clause, a taskloop grainsize)",
		         g->name);
	else
		snprintf(f->fix, sizeof(f->fix),
		         "run this step on one thread, or give each thread much more work per round (merge rounds, "
		         "fewer threads); threads that must meet often can spin briefly before they sleep");
	return 0;
}

/*
 * Task starvation: an OpenMP region whose barriers run tasks (the team
 * runs queued tasks at the barrier that ends a `single` or the region):
 * the time its threads spend in those barriers with no task to run
 * (analysis/regions: top_barrier_ns, asleep or spinning) is at least
 * STARVE_PCT of the team's time in the region's rounds (wall x threads),
 * and its share per thread reaches min_cost.  Cost: that idle time over
 * the threads, the wall time an even spread of the tasks would save.  A
 * process whose tasks already have a barrier-imbalance finding (tasks run
 * side by side, uneven) is not judged again: the same time.
 */
static int starvation(struct tl_dg_ctx *c, const struct tl_region_stats *g)
{
	uint64_t idle = 0, cost, team;
	size_t n = 0;
	struct tl_finding *f;

	if (!g->tasks_in_barrier || !g->rounds_parallel)
		return 0;
	for (size_t i = 0; i < c->out->n; i++)
		if (c->out->items[i].kind == TL_FIND_BARRIER_IMBALANCE && c->out->items[i].pid == g->pid)
			return 0;
	for (size_t i = 0; i < g->nthreads; i++) {
		n += g->threads[i].instances > 0;
		idle += g->threads[i].top_barrier_ns;
	}
	team = g->wall_ns * n;
	cost = n ? idle / n : 0;
	if (!n || tl_dg_pct(idle, team) < STARVE_PCT || cost < c->o->min_cost_ns)
		return 0;
	f = tl_dg_new_finding_at(c, TL_FIND_TASK_STARVATION, g->pid, process_of(c->m, g->pid), g->worst[0], g->worst[1],
	                         cost, g->wall_ns);
	if (!f)
		return -1;
	snprintf(f->region, sizeof(f->region), "%s", g->name);
	snprintf(f->title, sizeof(f->title),
	         "region '%.40s': its %zu threads wait %.0f%% of their time in it at barriers with no task left to run",
	         g->name, n, tl_dg_pct(idle, team));
	for (size_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].instances)
			tl_dg_add_thread(f, g->threads[i].tid, g->pid, g->threads[i].name,
			                 g->threads[i].top_barrier_ns ? "waiting" : "worker");
	tl_dg_add_evidence(f, "idle at barriers with no task, % of team time", tl_dg_pct(idle, team), STARVE_PCT, "%",
	                   1);
	tl_dg_add_evidence(f, "that time over the threads", (double)cost, (double)c->o->min_cost_ns, "ns", 1);
	tl_dg_add_evidence(f, "the team's time in its rounds (wall x threads)", (double)team, NAN, "ns", 1);
	tl_dg_add_evidence(f, "parallel rounds", (double)g->rounds_parallel, NAN, "", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "the region's work comes as OpenMP tasks, run by the team at the barrier that ends the region or "
	         "its single: at the end of each round some threads find no task left while others finish theirs "
	         "(fewer tasks than threads, or a long one last)");
	snprintf(f->fix, sizeof(f->fix),
	         "create more, smaller tasks (taskloop with a grainsize, or a recursive split down to a cut-off) and "
	         "the longest first, so that the threads finish together");
	return 0;
}

int tl_dg_rsync_init(struct tl_dg_ctx *c)
{
	const struct tl_model *m = c->m;

	if (!(c->rsync = calloc(m->nthreads ? m->nthreads : 1, sizeof(*c->rsync))))
		return -1;
	for (size_t r = 0; r < m->regions.n; r++) {
		const struct tl_region_stats *g = &m->regions.regions[r];

		for (size_t k = 0; k < g->nthreads; k++)
			for (size_t i = 0; i < m->nthreads; i++)
				if (m->threads[i].tid == g->threads[k].tid && m->threads[i].pid == g->pid)
					c->rsync[i] += g->threads[k].par_sync_ns;
	}
	return 0;
}

uint64_t tl_dg_rsync(const struct tl_dg_ctx *c, const struct tl_thread_stats *t)
{
	size_t i = (size_t)(t - c->m->threads);

	return c->rsync && i < c->m->nthreads ? c->rsync[i] : 0;
}

int tl_dg_regions(struct tl_dg_ctx *c)
{
	const struct tl_regions_result *r = &c->m->regions;

	for (size_t i = 0; i < r->n; i++) {
		if (!is_target(c->m, r->regions[i].pid))
			continue;
		c->out->checked[TL_FIND_BARRIER_IMBALANCE]++;
		c->out->checked[TL_FIND_POINTLESS_PARALLEL]++;
		if (imbalance(c, &r->regions[i]) < 0 || pointless(c, &r->regions[i]) < 0)
			return -1;
	}
	/* after every imbalance is known: uneven tasks side by side are that finding's */
	for (size_t i = 0; i < r->n; i++) {
		if (!is_target(c->m, r->regions[i].pid))
			continue;
		c->out->checked[TL_FIND_TASK_STARVATION]++;
		if (starvation(c, &r->regions[i]) < 0)
			return -1;
	}
	if (!r->n) {
		snprintf(c->out->skipped[TL_FIND_BARRIER_IMBALANCE], sizeof(c->out->skipped[0]),
		         "no parallel regions: mark them with tl_region_begin/end");
		snprintf(c->out->skipped[TL_FIND_POINTLESS_PARALLEL], sizeof(c->out->skipped[0]),
		         "no parallel regions: mark them with tl_region_begin/end");
		snprintf(c->out->skipped[TL_FIND_TASK_STARVATION], sizeof(c->out->skipped[0]),
		         "no OpenMP regions (record probes them) and so no tasks");
	}
	return 0;
}
