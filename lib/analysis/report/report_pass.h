/*
 * report_pass.h - the report's walk (report.c) and the model built from its
 * sums (report_model.c) share these; no other file includes it.
 *
 * Invariants: every thread ever seen has one acc, in accs in the order the
 * walk met it; a thread's acc holds its sums clipped to the window.
 */
#ifndef TL_REPORT_PASS_H
#define TL_REPORT_PASS_H

#include <stdint.h>
#include <stdlib.h>

#include "analysis/report/report.h"

struct tl_sched;
struct tl_walk_result;
struct tl_kcheck;
struct tl_regions;
struct tl_load;
struct tl_inversions;
struct tl_confine;
struct tl_lockhold;
struct tl_locks;
struct tl_report_filt;

/* Per-thread accumulator: the public stats plus what is needed to finish them. */
struct acc {
	struct tl_thread_stats st;
	int32_t parent_tgid; /* process that created this thread's process (for leaders) */
	int32_t parent_tid;
	int cpus_allowed;
	uint64_t *aff;  /* the union of its AFFINITY masks (format 1.3), (ncpus + 63) / 64 words; NULL if none */
	int kept;       /* in the model (the process's union takes kept threads only) */
	uint64_t burst; /* on-CPU time of the current run so far */
	uint64_t burst_start;
	uint64_t *cpu_ns; /* per-CPU EXECUTING + INTERRUPTED time in the window */
	size_t wakers_cap, preemptors_cap, lock_wakers_cap;
	int ended;
	uint64_t exited_at;       /* its EXIT event, 0 before */
	int lock_wait;            /* its current or next SYNC_WAIT is a lock's (event.h, TL_EVF_WAIT_LOCK) */
	uint64_t futex_word;      /* and the futex word it waits on (FUTEX_WAIT, FUTEX_ENTER), 0 unknown */
	struct tl_yspin_run yrun; /* its open run of sched_yield calls (YIELD_ENTER: the perf back end) */
	int outsider;             /* not a recorded thread of a filtered trace: left out */
};

struct pass {
	const struct tl_run *run;
	struct tl_sched *sched;
	const struct tl_walk_result *r; /* the window: r->win_start, r->win_end (absolute) */
	int ncpus;
	struct acc **accs; /* all threads ever seen, by serial order */
	size_t naccs, cap;
	struct tl_cpu_stats *cpus;
	struct tl_kcheck *kc;        /* the self-check rides on this walk */
	struct tl_regions *rg;       /* so do the parallel regions (analysis/regions) */
	struct tl_load *load;        /* and each process's demand for CPUs (analysis/load) */
	struct tl_inversions *inv;   /* and priority inversions (analysis/inversion) */
	struct tl_herds *herd;       /* and wakeups that find nothing to do (analysis/herd) */
	struct tl_confine *cf;       /* and waits beside idle CPUs the mask excludes (analysis/confine) */
	struct tl_lockhold *lh;      /* and what lock holders did while others waited (analysis/lockhold) */
	struct tl_locks *locks;      /* and the waits per lock (analysis/locks) */
	struct tl_report_filt *filt; /* a filtered recording's kernel totals (report_filtered.c) */
	int yield_calls;             /* a YIELD_ENTER seen (the perf back end): a switch ends a run of them */
	int oom;
};

/* qsort() must not see a NULL base, even for no elements. */
static inline void sort_n(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/*
 * Fill m from the pass's sums: the kept threads (by the run's filters),
 * their processes, the per-CPU process shares.  Moves the threads' lists
 * and p->cpus into m.  0, or -1 with tl_error set.
 */
int tl_report_build_model(struct pass *p, struct tl_model *m);

#endif
