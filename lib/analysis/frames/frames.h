/*
 * frames.h - frames and steps from the user markers: throughput, latency
 * per frame, per-step durations per frame, dropped or unfinished frames,
 * and how the threads that worked on each frame split its time across the
 * thread states.  docs/FRAMES.md says what is computed and how.
 *
 * A frame runs from its FRAME_BEGIN to its FRAME_END (they may come from
 * different threads; the first begin and the first end of an id count, as
 * in spans.h).  Its steps are the regions and tasks whose begin carried the
 * frame's id (tl_span.frame).  The threads that worked on a frame are the
 * one that began it, the one that ended it and every thread with a step in
 * it.
 *
 * The analysis is one tl_walk (walk.h).  Memory is bounded by the frames
 * open at the same time (and by the number of threads and step names), not
 * by the number of frames: each frame is handed to a callback when it is
 * finished, and only the K longest frames and the frames asked for by id
 * are kept in full for the result.  Each thread's state split is exact: its
 * closed state intervals clipped to its part of the frame (frames.c says
 * why not a difference of running totals).
 *
 * Window: a frame belongs to the window if it began inside it; frames that
 * began before it are ignored, and frames still open at its end are
 * unfinished (cut at the window's end).
 */
#ifndef TL_FRAMES_H
#define TL_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/dist.h"
#include "output/json.h"
#include "timeline/run.h"
#include "timeline/state_machine.h"
#include "timeline/spans.h"
#include "timeline/states.h"
#include "trace/trace.h"

/* What a thread did for a frame (tl_frame_thread.roles, bits). */
enum tl_frame_role {
	TL_FROLE_BEGAN = 1 << 0, /* called tl_frame_begin */
	TL_FROLE_ENDED = 1 << 1, /* called tl_frame_end */
	TL_FROLE_STEPS = 1 << 2, /* had a region or task in the frame */
};

/* One step (region or task name) in one frame: its occurrences summed. */
struct tl_frame_step {
	const char *name; /* owned by the analysis, valid until tl_frames_release() */
	uint16_t kind;    /* TL_SPAN_REGION or TL_SPAN_TASK */
	uint32_t step;    /* index into tl_frames_result.steps */
	uint32_t count;   /* occurrences in the frame */
	uint64_t ns;      /* their summed length */
};

/*
 * One thread's share of a frame: its time per state from `from` to `to`
 * (absolute).  from is the frame's begin for a thread alive then, its birth
 * for one created during the frame, and its first step's begin for one the
 * analysis did not know at the frame's begin.  to is the frame's end, or
 * the thread's end if it died during the frame.  state_ns sums to to - from.
 */
struct tl_frame_thread {
	int32_t tid;
	uint32_t row; /* index into tl_frames_result.threads */
	char name[TL_NAME_MAX];
	unsigned roles; /* enum tl_frame_role */
	uint64_t from, to;
	uint64_t state_ns[TL_ST__COUNT];
};

/* A finished frame. */
struct tl_frame {
	int64_t id;
	uint64_t begin, end; /* absolute; an unfinished frame ends at the window's end */
	int32_t began_by;    /* tid */
	int32_t ended_by;    /* tid, 0 if unfinished */
	int complete;        /* 1: ended inside the window */
	size_t nsteps, nthreads;
	struct tl_frame_step *steps;     /* in the order their first occurrence ended */
	struct tl_frame_thread *threads; /* the beginner first, then by tid */
};

/* A step name over all frames. */
struct tl_frames_step_thread {
	int32_t tid;
	uint32_t row;   /* index into tl_frames_result.threads */
	uint64_t count; /* occurrences it ran, in frames or not */
	uint64_t ns;
};

#define TL_FRAMES_STEP_THREADS 32        /* threads listed per step */
#define TL_FRAMES_LIST 16                /* ids of unfinished frames listed */
#define TL_FRAMES_MAX_BUCKETS (1u << 22) /* throughput intervals kept; later completions are not bucketed */

struct tl_frames_step {
	char *name;
	uint16_t kind;            /* TL_SPAN_REGION or TL_SPAN_TASK */
	uint64_t frames;          /* complete frames it occurred in */
	uint64_t count;           /* its occurrences in those frames */
	uint64_t ns;              /* their summed length */
	uint64_t unframed;        /* occurrences in no frame, an unknown frame or an unfinished one */
	struct tl_dist per_frame; /* its summed length per frame, over `frames` */
	size_t nthreads;
	uint64_t other_threads_count; /* occurrences run by threads beyond the first TL_FRAMES_STEP_THREADS */
	struct tl_frames_step_thread threads[TL_FRAMES_STEP_THREADS];
};

/* A thread, with its work on complete frames summed (frames == 0: none). */
struct tl_frames_thread {
	int32_t tid, pid;
	char name[TL_NAME_MAX];
	uint64_t frames;                 /* complete frames it worked on */
	uint64_t began, ended, stepped;  /* of those, how many it began, ended, had steps in */
	uint64_t state_ns[TL_ST__COUNT]; /* its state split summed over those frames */
};

/* What to measure; the window and preemption window come from the run. */
struct tl_frames_opts {
	uint64_t interval_ns;     /* throughput buckets; 0 = 1 s */
	const char *const *steps; /* only these step names (NULL: every region and task) */
	size_t nsteps;
	size_t worst;             /* keep the `worst` longest complete frames in full */
	const int64_t *frame_ids; /* keep the frames with these ids in full */
	size_t nframe_ids;
	/*
	 * Every finished frame, in the order they finish (a complete frame once
	 * it ended, its last step ended and the state intervals of its threads
	 * covering its end closed, or 1 s after its end; unfinished ones at the
	 * end of the trace).  The frame is valid only during the call.  May be
	 * NULL.
	 */
	void (*on_frame)(void *ctx, const struct tl_frame *f);
	void *ctx;
};

struct tl_frames_result {
	/*
	 * The run it was analysed in: trace, window, reader statistics, lost
	 * events, span counters (marker consistency: unmatched ends, lost
	 * markers...).  The caller's; it must outlive every use of the result.
	 */
	const struct tl_run *run;

	uint64_t begun;      /* frames begun in the window */
	uint64_t completed;  /* of those, ended in the window */
	uint64_t unfinished; /* begun but not ended by the window's end */
	size_t nunfinished_ids;
	int64_t unfinished_ids[TL_FRAMES_LIST]; /* the first unfinished frames' ids */
	uint64_t ends_without_begin;            /* FRAME_ENDs in the window with no open frame of their id */
	size_t max_held;                        /* most frames held at once (open, or ended and waiting) */
	int64_t id_min, id_max;                 /* of the frames begun */
	int ids_consecutive;                    /* ids look like consecutive integers (docs/FRAMES.md) */
	uint64_t ids_skipped;                   /* then: ids in [id_min, id_max] never begun */

	double fps;                   /* (completed - 1) / (last end - first end); 0 if < 2 */
	double fps_window;            /* completed / window length */
	uint64_t first_end, last_end; /* absolute; 0 if none */
	uint64_t interval_ns;
	size_t nbuckets;   /* ceil(window / interval), at most TL_FRAMES_MAX_BUCKETS */
	uint64_t *buckets; /* frames completed in [win_start + i * interval, + interval) */

	struct tl_dist latency; /* end - begin of complete frames */

	size_t nsteps;
	struct tl_frames_step *steps; /* in the order their first occurrence ended */
	size_t nthreads;
	struct tl_frames_thread *threads; /* every thread seen, in order of appearance */

	size_t nworst;
	struct tl_frame *worst; /* longest first */
	size_t npicked;
	struct tl_frame *picked; /* frames asked for by id, in finish order */
};

/*
 * Read the trace of `run` once (tl_run_start()) and fill *r (zeroed first),
 * keeping the walk's summary in the run; the run's window and preemption
 * window apply.  Returns 0, or -1 with tl_error set (unreadable trace, read
 * error, out of memory); *r is then released.
 * Free a filled result with tl_frames_release().
 */
int tl_frames_analyze(struct tl_run *run, const struct tl_frames_opts *o, struct tl_frames_result *r);

void tl_frames_release(struct tl_frames_result *r);

/*
 * ---- writers (frames_write.c): the terminal summary and the JSON document
 * "threadlens-frames" (docs/JSON.md).
 *
 * The JSON is written while the trace is read: the caller begins the
 * document, hands every finished frame to tl_frames_write_json_frame() from the
 * analysis' on_frame callback (so that memory does not grow with the
 * number of frames), and ends it with the result.  Writers only print;
 * failures show in tl_json_finish() or as -1 with tl_error set.
 */

/* Write "schema", "version", "states" and open the "frames" array. */
void tl_frames_write_json_begin(struct tl_json *j);

/* One element of "frames"; instants are made relative to trace_start (tl_trace_info.start_ns). */
void tl_frames_write_json_frame(struct tl_json *j, const struct tl_frame *f, uint64_t trace_start);

/*
 * Close "frames" and write the rest of the document (trace, window,
 * summary, throughput, steps, threads, worst); "trace" and "window" are the
 * shared objects of output/trace_json.h.  The caller then calls
 * tl_json_finish().
 */
void tl_frames_write_json_end(struct tl_json *j, const struct tl_frames_result *r);

/*
 * The same document in two calls, for a command: tl_frames_write_json_stream()
 * before tl_frames_analyze() begins it and points o->on_frame and o->ctx at
 * the stream (every finished frame goes out at once, its instants relative
 * to the run's trace start); tl_frames_write_json_finish() after it writes
 * the rest and returns tl_json_finish()'s result (0, or -1 with tl_error).
 */
struct tl_frames_json_stream {
	struct tl_json j;
	const struct tl_run *run;
};
void tl_frames_write_json_stream(struct tl_frames_json_stream *s, FILE *out, const struct tl_run *run,
                                 struct tl_frames_opts *o);
int tl_frames_write_json_finish(struct tl_frames_json_stream *s, const struct tl_frames_result *r);

struct tl_frames_text_opts {
	int steps_filter; /* 1 if --step limited the steps (said in the header) */
	int width;        /* columns to fit, 80 or more; 0: 100 */
};

/*
 * The terminal report, in o->width columns: trace and window, frame counts
 * and dropped frames, throughput (overall and per interval), latency, the
 * per-step table, the threads that worked on frames, then r->worst and
 * r->picked in full (steps and state split).  Returns 0, or -1 with
 * tl_error set on a write error.
 */
int tl_frames_write_text(FILE *out, const struct tl_frames_result *r, const struct tl_frames_text_opts *o);

#endif
