/*
 * walk.h - one streaming pass over a trace, for every analysis.
 *
 * A walk reads a trace once, in timestamp order, and runs the state machine
 * (state_machine.h) and the span builder (spans.h) on it.  The analyses (the report
 * model, frames, histograms, utilization, ...) are callbacks: they get the
 * events, the state intervals, the CPU intervals and the spans, and keep
 * only what they need.  The walk handles the time window, lost events, the
 * end of the trace and progress, the same way for all of them.
 *
 * Window: events after the window's end still are read (they tell the true
 * end of the trace, its losses and whether it is complete) but are not
 * applied.  Intervals are handed over unclipped: a callback clips them to
 * [win_start, win_end] itself.  Spans are handed over when they end; those
 * still open at the window's end come with complete = 0.
 */
#ifndef TL_WALK_H
#define TL_WALK_H

#include <stdint.h>

#include "timeline/state_machine.h"
#include "timeline/spans.h"
#include "trace/trace.h"

struct tl_walk_opts {
	int64_t from_ns, to_ns;     /* window relative to the trace start; to_ns < 0: to the end */
	uint64_t preempt_window_ns; /* for the state machine; 0 = its default */
	int want_bursts;            /* @burst spans */
	int want_latencies;         /* @latency spans */
	void *ctx;                  /* passed to every callback */
	/* every event applied (inside the window), after the state machine saw it; th as in tl_sched_opts */
	void (*on_event)(void *ctx, struct tl_thread *th, const struct tl_event *ev);
	void (*on_interval)(void *ctx, struct tl_thread *th, const struct tl_interval *iv);
	void (*on_cpu_interval)(void *ctx, const struct tl_cpu_interval *iv);
	void (*on_thread_end)(void *ctx, struct tl_thread *th);
	void (*on_name)(void *ctx, struct tl_thread *th);
	void (*on_span)(void *ctx, const struct tl_span *sp, const char *name);
	void (*progress)(double fraction, void *ctx);
	void *progress_ctx;
};

struct tl_walk_result {
	uint64_t trace_start, trace_end; /* first and last instant of the trace */
	uint64_t win_start, win_end;     /* the window actually analysed (absolute) */
	uint64_t lost_total;
	uint64_t *lost_per_cpu; /* ncpus entries; owned by the walk */
	int ncpus;
	struct tl_sched_counters sched;
	struct tl_span_counters spans;
	struct tl_trace_stats read; /* the reader's statistics and warnings */
};

struct tl_walk;

/* NULL with tl_error set.  Free with tl_walk_free(). */
struct tl_walk *tl_walk_new(const struct tl_walk_opts *o, const struct tl_trace_info *info);

/* The walk's state machine, for lookups from callbacks (thread names of wakers...). */
struct tl_sched *tl_walk_sched(struct tl_walk *w);

/* Read the whole trace.  Returns 0, or -1 with tl_error set (read error, out of memory). */
int tl_walk_run(struct tl_walk *w, struct tl_trace *t);

/*
 * Valid after tl_walk_run() returned 0, until tl_walk_free().  Already
 * after tl_walk_new(): trace_start, and the window asked for (win_start,
 * win_end; UINT64_MAX without --to), which tl_walk_run() narrows to the
 * trace at its end.
 */
const struct tl_walk_result *tl_walk_result(const struct tl_walk *w);

void tl_walk_free(struct tl_walk *w);

#endif
