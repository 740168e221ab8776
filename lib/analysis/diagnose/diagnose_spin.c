/*
 * diagnose_spin.c - OpenMP workers that spin while no region runs.
 *
 * An OpenMP runtime keeps the idle threads of its team spinning for a
 * while before they sleep (libgomp: GOMP_SPINCOUNT, OMP_WAIT_POLICY; a few
 * milliseconds here), so a worker waiting for the next parallel region is
 * EXECUTING to the kernel.  A serial part between the regions then looks
 * like work on every CPU: the single-thread bottleneck detector sees no
 * waiting thread, and the report shows the workers 90% busy.  The regions
 * of the functions OpenMP outlined (capture/umarks.h names them; record
 * probes their entries and returns) tell the spinning apart: a worker's
 * time on a CPU is inside its instances (the work), around them in a
 * parallel round (before its start, after its finish: barrier-imbalance
 * judges those), or outside every round: between the regions.
 *
 * Judged per process: the workers, its threads other than the main one
 * (tid = pid) with instances of OpenMP regions; their EXECUTING time E and
 * the part of it between the regions B (analysis/report: tl_model_omp_workers()).  Found when B is at least SPIN_PCT of E and reaches the
 * minimum cost.  The cost is B: CPU time, not work (on a machine shared
 * with other programs, theirs to lose).  Regions of the markers are not
 * judged: a thread of the user's may do unmarked work between them.
 *
 * Measured (docs/DIAGNOSE.md): wl_sort --omp 2 (serial fill and merge
 * between the regions) 65-88% of E between; wl_filter --omp 2 inner (3 us
 * regions back to back) 33%; wl_fast and wl_filter outer 3-10%
 * (wl_fast outer static 1.4-18.7% of late, 25% once under load).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diagnose/diagnose_int.h"

#define SPIN_PCT 25.0 /* the workers' time on a CPU between the regions, at least */

int tl_dg_spin(struct tl_dg_ctx *c, const struct tl_process_stats *p)
{
	const struct tl_model *m = c->m;
	struct tl_finding *f;
	struct tl_omp_workers s;

	tl_model_omp_workers(m, p->pid, &s);
	if (!s.threads || tl_dg_pct(s.between_ns, s.exec_ns) < SPIN_PCT || s.between_ns < c->o->min_cost_ns)
		return 0;
	f = tl_dg_new_finding_at(c, TL_FIND_SPIN_WAITING, p->pid, p->name, p->start, p->end, s.between_ns, s.exec_ns);
	if (!f)
		return -1;
	snprintf(f->title, sizeof(f->title),
	         "%d OpenMP worker%s of %s (%d) spun %.0f%% of %s time on a CPU while no parallel region ran",
	         s.threads, s.threads > 1 ? "s" : "", p->name, (int)p->pid, tl_dg_pct(s.between_ns, s.exec_ns),
	         s.threads > 1 ? "their" : "its");
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct tl_thread_stats *t = &m->threads[i];
		uint64_t in, around;

		if (t->pid == p->pid && t->tid == p->pid)
			tl_dg_add_thread(f, t->tid, t->pid, t->name, "main");
		else if (t->pid == p->pid && tl_model_omp_worker(m, t, &in, &around))
			tl_dg_add_thread(f, t->tid, t->pid, t->name, "spinning");
	}
	tl_dg_add_evidence(f, "workers' time on a CPU (EXECUTING)", (double)s.exec_ns, NAN, "ns", 1);
	tl_dg_add_evidence(f, "inside their regions (the work)", (double)s.inside_ns, NAN, "ns", 1);
	tl_dg_add_evidence(f, "around them in a round (the barrier)", (double)s.around_ns, NAN, "ns", 1);
	tl_dg_add_evidence(f, "between the regions (spinning)", (double)s.between_ns,
	                   (double)s.exec_ns * SPIN_PCT / 100, "ns", 1);
	snprintf(f->cause, sizeof(f->cause),
	         "the OpenMP runtime keeps idle workers spinning before they sleep (GOMP_SPINCOUNT, OMP_WAIT_POLICY) "
	         "while the main thread runs alone between the regions: a serial part that the spinning hides (the "
	         "workers look busy), or regions so short and close that the gaps are the runtime's own");
	snprintf(f->fix, sizeof(f->fix),
	         "parallelize the serial part between the regions, or merge consecutive regions into one larger "
	         "parallel region; on a machine shared with other work, OMP_WAIT_POLICY=passive lets the waiting "
	         "workers sleep and free their CPUs");
	return 0;
}
