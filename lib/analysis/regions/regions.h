/*
 * regions.h - parallel regions from the user's markers (tl_region_begin /
 * tl_region_end): for each region name of a process, how its instances on
 * the threads line up in rounds, how evenly the threads finish each round,
 * and how the threads' time went from a round's start to its end.
 *
 * A round is a group of instances of one region (same name, same process)
 * between two moments when none is open: the first BEGIN after every
 * earlier instance ended starts a new round, unless it carries the round's
 * frame id and its thread has no instance in the round yet (tl_frame_join:
 * a pool worker that starts its share of frame n after another finished
 * its own is still in frame n's round; a second pass over frame n is a
 * round of its own).  Workers
 * that meet at a barrier (or a join) begin round k+1 only after the last
 * one finished round k, so each round is one pass of the parallel loop.
 * A round is
 *   - parallel: at least two threads, each with one instance;
 *   - serial: one instance;
 *   - dynamic: a thread began the region again, or nested it, while the
 *     round was open (a task pool, or threads that never meet): its
 *     instances do not line up, and only its counts are kept.
 *
 * For every thread of a parallel round the collector splits its time from
 * the round's start to its end by state, in three parts: `before` (from
 * the round's first BEGIN to its own: waiting to be woken, or to run),
 * `inside` (its instance) and `after` (from its END to the round's last
 * END: waiting for the others, at the barrier).  The split is exact: the
 * state machine's running totals read at each marker (tl_thread_totals()).
 *
 * Imbalance is measured among a round's doers: instances EXECUTING at
 * least half of the time they were not waiting for a CPU.  A fork-join
 * parent that marks the region around its dispatch and join sleeps inside
 * its instance: it takes part in the round (its waits count) but is not
 * compared.
 *   lost_ns      = sum over rounds of (last doer's END - the doers' mean
 *                  END): the wall time an even finish would save;
 *   work_lost_ns = sum over rounds of (the doers' largest CPU time inside
 *                  - their mean): the part of it that uneven work explains
 *                  (the rest is late starts and waiting for CPUs);
 *                  over work_max_ns (the largest, summed) it is the load
 *                  imbalance of the work itself, (max - mean) / max;
 *   idle_ns      = sum over rounds and doers of (last doer's END - its END).
 *
 * The collector rides on one walk (the report's, like the self-check):
 * tl_regions_event() for every event, tl_regions_span() for every span.
 * Memory: per region, its threads (at most TL_REGION_MAX_THREADS are
 * followed, the others counted) and the open round's instances; nothing
 * per closed round.  Instances cut by the window or the trace's end, and
 * ENDs without a BEGIN in the window, are counted, not used.
 */
#ifndef TL_REGIONS_H
#define TL_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "output/json.h"
#include "timeline/spans.h"
#include "timeline/state_machine.h"

#define TL_REGION_MAX_THREADS 64
#define TL_REGION_MAX 1024 /* region names (per process) followed; more are counted in `dropped` */

/* One thread's part in a region. */
struct tl_region_thread {
	int32_t tid;
	char name[TL_NAME_MAX];
	uint64_t instances;
	uint64_t last;                 /* parallel rounds in which it was the last doer to finish */
	uint64_t late_ns;              /* summed (its END - the doers' mean END) where positive */
	uint64_t inside[TL_ST__COUNT]; /* its time in each state inside its instances (all rounds) */
	uint64_t before[TL_ST__COUNT]; /* parallel rounds: round start -> its BEGIN */
	uint64_t after[TL_ST__COUNT];  /* parallel rounds: its END -> the round's last END */
	uint64_t par_sync_ns;          /* SYNC_WAIT inside its instances of parallel rounds, and from each such END to
	                       * its next BEGIN of the region (the barrier, then waiting for the next round) */
	/*
	 * OpenMP regions (capture/umarks.h names them): `nested` counts the
	 * instances it began inside another OpenMP instance of its own (a task
	 * run inside its team's region, an inner team's region); the top_ sums
	 * are EXECUTING inside and around (before + after) the others only, so
	 * that a thread's sums over all regions count each moment once.
	 */
	uint64_t nested;
	uint64_t top_inside_exec, top_around_exec;
	uint64_t top_barrier_exec; /* of top_inside_exec, inside the runtime's barriers that cut no part, less
	                            * the tasks run there: waiting (spinning) for the team or for tasks */
	uint64_t top_barrier_ns;   /* the same in wall time, whatever the state (spinning or asleep) */
};

struct tl_region_stats {
	int32_t pid;
	uint32_t name_id; /* the trace's string id */
	char name[TL_NAME_MAX];
	uint64_t instances;   /* that ended inside the window */
	uint64_t barriers;    /* OpenMP: calls of the runtime's barrier inside them that ended a part (regions.c) */
	int tasks_in_barrier; /* OpenMP: a task ran inside one of those barriers: they end no part (regions.c) */
	uint64_t rounds_parallel, rounds_serial, rounds_dynamic;
	uint64_t rounds_compared; /* parallel rounds with at least two doers: lost/idle come from these */
	uint64_t wall_ns;         /* parallel rounds: summed extent, first BEGIN to last END */
	uint64_t lost_ns, work_lost_ns, idle_ns;
	uint64_t work_max_ns; /* compared rounds: the doers' largest CPU time inside, summed */
	uint64_t worst[2];    /* absolute ns: the compared round that lost the most */
	uint64_t worst_lost_ns;
	/* all threads of its parallel rounds, summed: before + inside + after, by state */
	uint64_t before[TL_ST__COUNT], inside[TL_ST__COUNT], after[TL_ST__COUNT];
	struct tl_region_thread *threads; /* by first appearance */
	size_t nthreads;
	uint64_t threads_over; /* instances of threads beyond TL_REGION_MAX_THREADS (not followed) */
};

struct tl_regions_result {
	struct tl_region_stats *regions; /* sorted by pid, then name */
	size_t n;
	uint64_t dropped;    /* instances of region names beyond TL_REGION_MAX */
	uint64_t unmatched;  /* ENDs with no BEGIN in the window */
	uint64_t incomplete; /* instances still open at the end, and the rounds they were in */
};

struct tl_regions;

/* The walk's state machine (for the threads' totals).  NULL with tl_error set. */
struct tl_regions *tl_regions_new(struct tl_sched *sched);

/*
 * Every event applied inside the window (REGION_BEGIN, and FUNC_ENTRY/EXIT
 * of an OpenMP runtime's barrier are used), with its thread and its name's
 * string (or NULL).
 */
void tl_regions_event(struct tl_regions *r, struct tl_thread *th, const struct tl_event *ev, const char *name);

/* Every span that ended (REGION spans are used). */
void tl_regions_span(struct tl_regions *r, const struct tl_span *sp, const char *name);

/* Close the open rounds and move the statistics to *out.  0, or -1 with tl_error set. */
int tl_regions_finish(struct tl_regions *r, struct tl_regions_result *out);

void tl_regions_free(struct tl_regions *r);

/* The regions as a JSON array (docs/JSON.md, the report's `regions`); times relative to trace_start. */
void tl_regions_write_json(struct tl_json *j, const struct tl_regions_result *res, uint64_t trace_start);
void tl_regions_release(struct tl_regions_result *res);

/*
 * 1 if g is the function of an OpenMP task, not a region: every instance
 * of its followed threads began inside another OpenMP instance of the
 * thread (GCC outlines `omp task` bodies like regions, and the team runs
 * them inside its region).  Its rounds are the tasks that ran side by side.
 */
static inline int tl_region_is_tasks(const struct tl_region_stats *g)
{
	uint64_t n = 0, nested = 0;

	for (size_t i = 0; i < g->nthreads; i++) {
		n += g->threads[i].instances;
		nested += g->threads[i].nested;
	}
	return n && nested == n;
}

/* Sums of a state split: waiting for a CPU (RUNNABLE, READY_*), and EXECUTING. */
uint64_t tl_regions_ready(const uint64_t st[TL_ST__COUNT]);

#endif
