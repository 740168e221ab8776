/*
 * critical.h - `threadlens critical`: where a frame's latency went, along
 * its critical path (Trace Compass's name for it).
 *
 * Start at the frame's end, on the thread that ended it, and walk back in
 * time.  While that thread ran, or waited for a CPU, the time is its own
 * (waiting for a CPU names who had it: READY_PREEMPT/QUANTUM's `by`).
 * While it slept and another thread's wakeup ended the sleep, the sleep's
 * time is what that thread did until the wakeup: the walk moves to the
 * waker at the moment of the wakeup and goes on back there, down to the
 * sleep's start, then returns to the sleeper.  A sleep ended by an
 * interrupt (a timer, a device) or by an unknown waker stays the
 * sleeper's, in its sleeping state.  So every nanosecond of the frame is
 * given to exactly one (thread, state): the parts sum to the latency.
 *
 * Two passes over the trace: the first finds the frames (FRAME_BEGIN and
 * FRAME_END, the first of each id, as spans.h does) and the thread that
 * ended each; the second keeps the state intervals of every thread that
 * overlap the chosen frames, and the walk runs on them.  Memory: the
 * intervals inside the chosen frames.
 *
 * A thread instead of frames (Trace Compass's critical path of a thread):
 * its life in the window, from its first interval to its exit (the start
 * of its ZOMBIE interval) or its last instant, walked back the same way
 * from that end.  That is what a trace without frame markers gets: the
 * main thread of the recorded command (`record -- CMD`), so the path of a
 * whole run, through the joins and hand-offs that held it back.  A tid the
 * trace reuses counts as its first thread only.
 */
#ifndef TL_CRITICAL_H
#define TL_CRITICAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "timeline/run.h"
#include "timeline/state_machine.h"

#define TL_CRIT_MAX_DEPTH 64 /* wakers followed inside one sleep, at most (deeper: left to the sleeper) */

/* One stretch of the path: thread `tid` in `state` from `from` to `to` (absolute ns). */
struct tl_crit_seg {
	uint64_t from, to;
	int32_t tid;
	uint16_t state;
	int32_t by; /* waiting for a CPU: the thread that had it; a sleep: its waker (< 0 interrupt, 0 unknown) */
};

/* The path's time summed per (thread, state). */
struct tl_crit_part {
	int32_t tid;
	char name[TL_NAME_MAX];
	uint16_t state;
	int32_t by; /* the thread most of it waited behind or for, as in tl_crit_seg */
	char by_name[TL_NAME_MAX];
	uint64_t ns;
};

struct tl_crit_frame {
	int64_t id;          /* -1: a thread's life (tl_crit_result.thread_scope) */
	uint64_t begin, end; /* absolute ns */
	int32_t ended_by;    /* the thread that called tl_frame_end */
	char ended_by_name[TL_NAME_MAX];
	struct tl_crit_seg *path; /* latest first, consecutive stretches of one (thread, state) merged */
	size_t npath;
	struct tl_crit_part *parts; /* largest first; their ns sum to end - begin */
	size_t nparts;
};

struct tl_crit_opts {
	int64_t frame; /* this frame id, or -1 */
	size_t worst;  /* else the `worst` longest complete frames (0: 3) */
	int32_t tid; /* > 0: this thread's life instead of frames; 0: frames, or with none the command's main thread */
};

struct tl_crit_result {
	const struct tl_run *run;
	struct tl_crit_frame *frames; /* the asked frame, or the worst ones longest first, or the thread */
	size_t n;
	int thread_scope;     /* 1: frames[0] is a thread's life in the window (id -1), not a frame */
	uint64_t frames_seen; /* complete frames in the window */
};

/* Two reads of run's trace (tl_run_reopen between them).  0, or -1 with tl_error set ("no frame 12"). */
int tl_crit_analyze(struct tl_run *run, const struct tl_crit_opts *o, struct tl_crit_result *out);
void tl_crit_release(struct tl_crit_result *r);

/*
 * Writers: they print, never compute.  0, or -1 with tl_error set.  The
 * text fits `width` columns from 80 (0: 100): prose and the path wrap, the
 * names of who woke or preempted a row's thread are cut to the width.
 */
int tl_crit_write_text(FILE *out, const struct tl_crit_result *r, int width);
int tl_crit_write_json(FILE *out, const struct tl_crit_result *r);

#endif
