/*
 * predict.h - `threadlens predict`: the parallel execution time of a
 * sequential program for 1..N cores, from a trace of one sequential run
 * whose tasks are marked (tl_task_begin/end) and a file of OpenMP-like
 * directives that say which tasks would be parallel regions, loops,
 * critical sections... (Parana, seed 001, chapter 5).
 *
 * The model (docs/PREDICT.md says each choice and why):
 *  - The tasks of the one thread that made them form a tree (a task's
 *    children are the tasks that ran inside it).  The root covers the
 *    first task's begin to the last task's end; the time between a task's
 *    children is its own code (segments).
 *  - A task without a directive runs where it is: on the master core
 *    outside parallel regions (sequential), on every thread of the team
 *    inside one (replicated, as OpenMP runs code outside work-sharing).
 *  - `parallel [num_threads(k)]`: a team of min(k, cores) threads (k
 *    absent: all cores) forks, runs the task's body, joins (the fork/join
 *    costs of the platform, Algorithm 5.3's steps); a parallel task inside
 *    a region runs as if not parallel (OpenMP's nesting is off).
 *  - `for [schedule(static|dynamic|guided[, c])]` (or `parallel for`):
 *    the task's children are the iterations, shared by the team; the
 *    loop's own code between two iterations goes with the later one.
 *    static without c: contiguous blocks of ceil(m / threads); static,c:
 *    chunks dealt in turn; dynamic,c (c = 1 by default): the next chunk to
 *    the first thread free (ties: the lowest thread); guided,c: chunks of
 *    max(c, ceil(remaining / threads)), dynamically.  An implicit barrier
 *    ends the loop.
 *  - `critical`: one thread at a time; `barrier`: all threads meet there;
 *    `single`: the first thread to arrive runs it, then a barrier.
 *  - Every thread runs its pieces in time order; the simulation advances
 *    the thread that is earliest (ties: the lowest) up to its next lock or
 *    chunk, so locks and dynamic loops are served in the order they would
 *    be (between two, a thread's work touches no other thread).
 *
 * Core time: every core is accounted for during the whole predicted run,
 * in exactly one category, so the categories sum to cores x time, exactly
 * (integer ns): SEQUENTIAL (the master outside regions), PARALLEL (a team
 * thread running the program's code), IMBALANCE (a thread that had work
 * waiting at a barrier or the join), LIMITED (a core outside the team, or
 * a team thread that got no iteration of a loop, waiting), OVERHEAD (the
 * runtime's costs, waits for the fork and the lock), IDLE (the other cores
 * outside regions).
 */
#ifndef TL_PREDICT_H
#define TL_PREDICT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "timeline/run.h"

#define TL_PREDICT_MAX_CORES 256

/* ---- directives ---- */

enum tl_dir {
	TL_DIR_PARALLEL = 1,
	TL_DIR_FOR = 2,
	TL_DIR_CRITICAL = 4,
	TL_DIR_BARRIER = 8,
	TL_DIR_SINGLE = 16,
};

enum tl_schedule { TL_SCHED_STATIC = 0, TL_SCHED_DYNAMIC, TL_SCHED_GUIDED };

struct tl_directive {
	char task[64];   /* the task's label */
	unsigned kinds;  /* enum tl_dir, or-ed ("parallel for": both) */
	int num_threads; /* parallel: 0 = as many as cores */
	int schedule;    /* for: enum tl_schedule */
	int chunk;       /* for: 0 = the schedule's default */
	int line;        /* where it was written */
};

struct tl_directives {
	struct tl_directive *d;
	size_t n;
};

/*
 * Parse a directives file's text: one "TASK = DIRECTIVE" a line, '#'
 * comments, an optional "#pragma omp" before the directive:
 *   decode = parallel num_threads(4)
 *   rows   = for schedule(dynamic, 2)
 *   detect = parallel for schedule(static)
 *   total  = critical
 * 0, or -1 with tl_error set to "FILE:LINE: what is wrong".
 */
int tl_directives_parse(const char *text, const char *file, struct tl_directives *out);
int tl_directives_load(const char *path, struct tl_directives *out);
const struct tl_directive *tl_directives_find(const struct tl_directives *ds, const char *task);
void tl_directives_release(struct tl_directives *ds);

/* ---- the platform's runtime costs (ns; threadlens calibrate measures them) ---- */

enum tl_cost {
	TL_COST_PAR_OPEN = 0,  /* open a parallel region (master) */
	TL_COST_PAR_CLOSE,     /* close it (master) */
	TL_COST_THR_CREATE,    /* a worker starts (on the worker) */
	TL_COST_THR_LAUNCH,    /* the master launches one worker */
	TL_COST_LAUNCH_MASTER, /* the master joins its team */
	TL_COST_THR_PROLOGUE,  /* each thread, before the body */
	TL_COST_THR_EPILOGUE,  /* each thread, after it */
	TL_COST_THR_FREE,      /* the master releases one worker */
	TL_COST_FOR_PROLOGUE,  /* each thread, entering a loop */
	TL_COST_FOR_EPILOGUE,  /* each thread, leaving it */
	TL_COST_NEXT_CHUNK,    /* dynamic and guided: taking a chunk */
	TL_COST_BARRIER,       /* each thread, at a barrier */
	TL_COST_CRITICAL,      /* entering and leaving a critical section */
	TL_COST__COUNT
};

struct tl_platform {
	uint64_t cost[TL_COST__COUNT];
	int measured; /* 0: no platform file; every cost is 0 */
};

const char *tl_cost_name(unsigned c); /* "par_open", ...; never NULL */

/* The costs of a calibration file ("threadlens-platform": costs_ns.NAME.median).  0, or -1 with tl_error set. */
int tl_platform_load(const char *path, struct tl_platform *pf);

/* ---- calibration (calibrate.c, platform.c) ---- */

#define TL_CALIBRATE_MAX_REPS 101
#define TL_CALIBRATE_MAX_THREADS 64
#define TL_CALIBRATE_MAX_LEVELS 6

/* A measured cost: the median of `reps` measurements, their minimum and maximum (ns). */
struct tl_figure {
	double median, min, max;
	int reps;
};

struct tl_calibration {
	int ncpus, reps;
	int omp_version;                                   /* _OPENMP of the libgomp measured (a date, 201511) */
	struct tl_figure figures[TL_COST__COUNT];          /* the model's costs (predict uses the medians) */
	struct tl_figure region[TL_CALIBRATE_MAX_THREADS]; /* `parallel num_threads(k)`'s overhead, k = 1.. */
	int nregion;
	struct tl_figure context_switch, page_fault; /* for the thread-state analysis's derived sub-states */
	struct {
		int level;            /* 1, 2, 3...; 0: memory */
		uint64_t cache_bytes; /* the cache's size (sysfs); 0 for memory */
		uint64_t bytes; /* the buffer chased: half the cache, 4 times the last (at most 128 MB) for memory */
		struct tl_figure latency;
	} mem[TL_CALIBRATE_MAX_LEVELS];
	int nmem;
};

/* Measure this machine, each figure `reps` times (3..101): about half a second a repetition.  0, or -1 with tl_error set. */
int tl_calibrate(struct tl_calibration *c, int reps);

/* The platform file (docs/PREDICT.md "Runtime costs"), with the machine's identity and which counters it has. */
int tl_calibration_write_json(FILE *f, const struct tl_calibration *c, const char *counters);

/* ---- the prediction ---- */

enum tl_pcat {
	TL_PC_SEQUENTIAL = 0,
	TL_PC_PARALLEL,
	TL_PC_IMBALANCE,
	TL_PC_LIMITED,
	TL_PC_OVERHEAD,
	TL_PC_IDLE,
	TL_PC__COUNT
};

const char *tl_pcat_name(unsigned c); /* "sequential", ...; never NULL */

/* One core count. */
struct tl_prediction {
	int cores;
	uint64_t time_ns;               /* the predicted run */
	double speedup, efficiency;     /* against the sequential time; efficiency = speedup / cores */
	double amdahl;                  /* the bound: 1 / (s + (1 - s) / cores), s the sequential share */
	uint64_t core_ns[TL_PC__COUNT]; /* sums to cores x time_ns exactly */
};

/* One parallel region (a task with `parallel`), all its instances summed. */
struct tl_predict_region {
	char task[64];
	uint64_t instances;
	uint64_t seq_ns;                   /* its time in the sequential run */
	uint64_t *time_ns;                 /* per core count: its predicted time */
	uint64_t (*core_ns)[TL_PC__COUNT]; /* per core count: its core time by category */
};

/*
 * The markers' own cost (unmark.c).  Each tl_task_begin/end call of the
 * recorded run took time that the program without markers does not
 * spend: between two consecutive marker times lies one call (the end of
 * the one, the start of the next) besides the program's code.  The
 * estimate is the least positive gap between two consecutive marker times
 * (two calls back to back), trusted when at most 500 ns and when at least
 * 5% of the gaps (of 100 or more) are within 1.5 times it, i.e. when the
 * program calls markers back to back often; else none is taken out.
 */
struct tl_predict_markers {
	uint64_t calls;       /* marker times in the tree: 2 per task */
	uint64_t ns_each;     /* taken out per gap (0: none) */
	uint64_t removed_ns;  /* in all, from the root's span */
	uint64_t recorded_ns; /* the root's span before; seq_ns is after */
	int estimated;        /* ns_each is the estimate (not --marker-ns) */
	int untrusted;        /* an estimate was asked and not trusted */
};

struct tl_predict_result {
	const struct tl_run *run;
	int32_t tid;     /* the thread whose tasks were read */
	uint64_t tasks;  /* tasks in the tree */
	uint64_t seq_ns; /* the sequential run: first task begin to last task end */
	uint64_t par_ns; /* of it, in tasks with `parallel` */
	uint64_t unused; /* directives whose task never ran */
	struct tl_prediction *p;
	size_t np; /* one per core count, 1..max */
	struct tl_predict_region *regions;
	size_t nregions;
	struct tl_platform pf;
	struct tl_predict_markers markers;
};

struct tl_predict_opts {
	const struct tl_directives *dirs;
	const struct tl_platform *pf; /* NULL: no costs */
	int max_cores;                /* predict 1..max_cores */
	int64_t marker_ns; /* per marker call taken out: -1 estimate it, 0 none (struct tl_predict_markers) */
};

/* Read the trace's tasks and predict.  0, or -1 with tl_error set (no tasks, tasks on several threads...). */
int tl_predict(struct tl_run *run, const struct tl_predict_opts *o, struct tl_predict_result *r);

/*
 * The text in `width` columns, 80 or more (0: 100): prose wraps; narrower
 * than 97 the tables leave out efficiency (speedup / cores) and give the
 * categories 8 columns, not 9.
 */
int tl_predict_write_text(FILE *f, const struct tl_predict_result *r, int width);
int tl_predict_write_json(FILE *f, const struct tl_predict_result *r);

void tl_predict_release(struct tl_predict_result *r);

#endif
