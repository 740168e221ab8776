/*
 * spans.h - spans: things with a begin and an end, from markers, probes and
 * the state machine.
 *
 * A span is (thread, name, begin, end, parent, frame).  They come from:
 *  - frames: FRAME_BEGIN/FRAME_END with the same frame id, on any threads
 *    (a frame crosses threads: its span runs from the first begin to the
 *    last end, and belongs to the thread that began it);
 *  - regions and tasks: REGION_/TASK_BEGIN and _END of one thread, nested;
 *  - probed functions: FUNC_ENTRY/FUNC_EXIT (uprobes), nested per thread;
 *  - the state machine: every on-CPU burst and every scheduling latency
 *    (a RUNNABLE interval) of a thread, named "@burst" and "@latency".
 * Spans are handed to a callback when they end, in end order per thread.
 *
 * Memory: an open-span stack per thread (bounded depth) and a table of open
 * frames; nothing per closed span.
 */
#ifndef TL_SPANS_H
#define TL_SPANS_H

#include <stdint.h>

#include "trace/event.h"
#include "timeline/state_machine.h"

enum tl_span_kind {
	TL_SPAN_FRAME = 0,
	TL_SPAN_REGION,
	TL_SPAN_TASK,
	TL_SPAN_FUNC,
	TL_SPAN_BURST,   /* an on-CPU burst: switch-in to switch-out */
	TL_SPAN_LATENCY, /* a wait for a CPU after a wakeup (RUNNABLE) */
	TL_SPAN__COUNT
};

/* "frame", "region", ...  Never NULL. */
const char *tl_span_kind_name(unsigned kind);

#define TL_SPAN_MAX_DEPTH 64

struct tl_span {
	uint64_t begin, end;
	uint64_t id;      /* unique within a walk, in begin order per thread (1, 2, ...) */
	uint64_t parent;  /* id of the enclosing span of the same thread (regions, tasks, functions), 0 none */
	int64_t frame;    /* FRAME: its id; REGION/TASK: the frame its thread worked on, -1 none */
	int32_t tid;      /* FRAME: the thread that began it */
	uint32_t name;    /* string id in the trace; 0 for frames, bursts and latencies */
	uint16_t kind;    /* enum tl_span_kind */
	uint16_t depth;   /* nesting depth in its thread, 0 = outermost */
	int16_t cpu;      /* BURST: the CPU; FUNC: the CPU of the entry; else -1 */
	uint8_t complete; /* 0: it had not ended when the trace (or window) ended */
};

/* Calls of inlined copies of a probed function (FUNC_ENTRY with TL_EVF_INLINED): counted, never spans. */
#define TL_SPAN_INLINED_MAX 16
struct tl_inlined_calls {
	char name[64]; /* a copy (the counters outlive the trace's strings); a longer name is cut */
	uint64_t calls;
};

struct tl_span_counters {
	uint64_t spans[TL_SPAN__COUNT];
	uint64_t unmatched_ends;     /* an END with no open BEGIN (it began before the trace, or markers were lost) */
	uint64_t mismatched_ends;    /* an END whose name is not the innermost open span's (closed up to it) */
	uint64_t too_deep;           /* BEGINs beyond TL_SPAN_MAX_DEPTH, ignored */
	uint64_t incomplete;         /* spans still open at the end */
	uint64_t marks_lost;         /* markers the program could not hand over (MARKS_LOST) */
	uint64_t latencies_inferred; /* waits whose switch-in was inferred: no LATENCY span (docs/STATES.md) */
	uint64_t inlined_calls;      /* entries of inlined copies, all names */
	unsigned ninlined;           /* per name, the first TL_SPAN_INLINED_MAX names */
	struct tl_inlined_calls inlined[TL_SPAN_INLINED_MAX];
};

/* The calls of inlined copies of function `name` counted in n (0 if none, or past TL_SPAN_INLINED_MAX names). */
uint64_t tl_span_inlined_calls(const struct tl_span_counters *n, const char *name);

struct tl_spans_opts {
	void *ctx;
	/*
	 * A span ended (or was cut by the end: complete = 0).  name is its
	 * string: the one given to tl_spans_feed() with its begin event (kept,
	 * not copied), or "frame", "@burst", "@latency".
	 */
	void (*on_span)(void *ctx, const struct tl_span *sp, const char *name);
	int want_bursts;    /* make @burst spans from the state machine's intervals */
	int want_latencies; /* make @latency spans */
};

struct tl_spans;

/* NULL with tl_error set on allocation failure.  Free with tl_spans_free(). */
struct tl_spans *tl_spans_new(const struct tl_spans_opts *o);

/* Apply one event (markers and probes; other types are ignored).  name: the event's string. */
void tl_spans_feed(struct tl_spans *s, const struct tl_event *ev, const char *name);

/* Feed a state-machine interval (for @burst and @latency); call from an on_interval callback. */
void tl_spans_interval(struct tl_spans *s, const struct tl_thread *th, const struct tl_interval *iv);

/* Close every open span at `end`, with complete = 0. */
void tl_spans_finish(struct tl_spans *s, uint64_t end);

const struct tl_span_counters *tl_spans_counters(const struct tl_spans *s);

void tl_spans_free(struct tl_spans *s);

#endif
