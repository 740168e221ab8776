/*
 * run.h - one analysis run over one trace: what to read (the trace, the
 * window, the thread filters), and what the reading found (the trace's
 * description, its extent, the reader's statistics and lost events).
 *
 * The command line builds a tl_run once from its options and hands it to
 * an analysis: tl_NAME_analyze(run, opts, result).  The analysis opens the
 * trace with tl_run_start() (or reads it again with tl_run_reopen(), as
 * hist does), fills its walk's options with tl_run_walk_opts(), and after the
 * walk keeps the walk's summary with tl_run_keep().  Every writer then
 * describes the trace from the run (output/trace_json.h for JSON), so the
 * summary exists once, not once per analysis.
 *
 * Invariants: after tl_run_keep() the run holds no pointer into the reader
 * or the walk (read.end.lost_per_cpu points at the run's own copy), so it
 * stays valid after tl_run_close().  The caller's fields (path, filters) are
 * borrowed and must outlive the run.  tl_run_close() and tl_run_release()
 * may be called at any time, twice, and on a zeroed run.
 */
#ifndef TL_RUN_H
#define TL_RUN_H

#include <stdint.h>

#include "timeline/spans.h"
#include "timeline/state_machine.h"
#include "timeline/walk.h"
#include "trace/trace.h"

struct tl_run {
	/* ---- what to read: set by the caller ---- */
	const char *path;       /* the trace as the user gave it ("-": stdin, one pass only) */
	int64_t from_ns, to_ns; /* window from the trace start; to_ns < 0: to the end */
	int all_threads;        /* also threads outside the recorded program */
	const int *pids;
	int npids; /* only these processes (0: any) */
	const int *tids;
	int ntids;                                    /* only these threads (0: any) */
	const char *comm;                             /* only threads whose name or process name contains this */
	uint64_t preempt_window_ns;                   /* for the state machine; 0 = its default */
	void (*progress)(double fraction, void *ctx); /* may be NULL */
	void *progress_ctx;

	/* ---- filled by tl_run_open() ---- */
	struct tl_trace *trace; /* open until tl_run_close() or the next tl_run_reopen() */
	struct tl_trace_info info;
	unsigned passes; /* times the trace was opened */

	/* ---- filled by tl_run_keep(): the summary of the last walk ---- */
	int ncpus;                       /* info.ncpus, at least 1 */
	uint64_t trace_start, trace_end; /* first and last instant of the trace */
	uint64_t win_start, win_end;     /* the window actually analysed (absolute) */
	uint64_t lost_total;             /* events the kernel dropped */
	uint64_t *lost_per_cpu;          /* ncpus entries, owned by the run */
	struct tl_trace_stats read;      /* reader statistics and warnings */
	struct tl_sched_counters sched;
	struct tl_span_counters spans;
};

/* Open run->path (closing a trace already open) and read its header into
 * run->info.  Returns 0, or -1 with tl_error set. */
int tl_run_open(struct tl_run *run);

/* Use a trace the caller opened (from memory, in the tests): the run
 * takes it over, closes it, and fills run->info from it. */
void tl_run_attach(struct tl_run *run, struct tl_trace *t);

/* The first pass's trace: the attached one, else tl_run_open().  Returns
 * 0, or -1 with tl_error set. */
int tl_run_start(struct tl_run *run);

/* Read the trace again from its start, for analyses of several passes.
 * Fails (-1, tl_error) when the trace is not a file that can be reopened. */
int tl_run_reopen(struct tl_run *run);

/* Fill the window, preemption window and progress of a walk from the run
 * (the rest of *wo is left alone). */
void tl_run_walk_opts(const struct tl_run *run, struct tl_walk_opts *wo);

/* Keep the summary of a finished walk.  Returns 0, or -1 with tl_error set
 * (out of memory). */
int tl_run_keep(struct tl_run *run, const struct tl_walk_result *r);

/* 1 if the run's filters keep this thread.  is_target: the thread belongs
 * to the recorded program; without --all, --pid or --tid only those are
 * kept.  name and process may be NULL. */
int tl_run_keeps_thread(const struct tl_run *run, int is_target, int32_t tid, int32_t pid, const char *name,
                        const char *process);

/* Instants relative to the trace start (0 before it). */
uint64_t tl_run_rel(const struct tl_run *run, uint64_t t);

/* "command", "pids", "system" or "unknown" for enum tl_target_mode. */
const char *tl_run_target_mode_name(int mode);

/* Close the trace; the summary stays (writers use it afterwards). */
void tl_run_close(struct tl_run *run);

/* Close the trace and free what the run owns; the caller's fields stay. */
void tl_run_release(struct tl_run *run);

#endif
