/*
 * export_int.h - what export.c shares with the writers of each format
 * (perfetto.c, chrome.c, csv.c, sqlite.c).  Not part of the API.
 *
 * export.c runs the walk and keeps a table of the threads seen (their
 * process, name and time per state, clipped to the window); a writer is a
 * set of callbacks that see each event, state interval, CPU interval and
 * span once, in the walk's order, already clipped to the window.  Intervals
 * and spans come when they end, so they are in end order, not start order.
 */
#ifndef TL_EXPORT_INT_H
#define TL_EXPORT_INT_H

#include "base/tidmap.h"
#include "export/export.h"
#include "timeline/walk.h"

struct ex_thread {
	int32_t tid;  /* first: the map's key (> 0) */
	int32_t tgid; /* 0: unknown */
	char name[TL_NAME_MAX];
	uint64_t state_ns[TL_ST__COUNT]; /* inside the window */
	uint64_t first, last;            /* its first and last instant inside the window */
	uint8_t described;               /* free for the writer (perfetto: its tracks were described) */
};

struct ex {
	struct tl_run *run;
	const struct tl_export_opts *o;
	struct tl_export_counts *n;
	struct tl_walk *walk;
	struct tl_tidmap threads; /* struct ex_thread */
	void *w;                  /* the writer's own state */
	int failed;               /* out of memory, or a write error: tl_error says which */
};

struct ex_writer {
	int (*begin)(struct ex *x);
	void (*event)(struct ex *x, struct tl_thread *th, const struct tl_event *ev);
	void (*interval)(struct ex *x, struct ex_thread *t, const struct tl_interval *iv);
	void (*cpu_interval)(struct ex *x, const struct tl_cpu_interval *iv);
	void (*span)(struct ex *x, const struct tl_span *sp, const char *name);
	int (*end)(struct ex *x);                  /* after the walk: flush, thread names; 0 or -1 (tl_error) */
	void (*release)(struct ex *x, int failed); /* always called; failed: remove what was made */
	int want_unknown;                          /* also UNKNOWN intervals (the others leave them out) */
};

extern const struct ex_writer tl_ex_perfetto, tl_ex_chrome, tl_ex_csv, tl_ex_sqlite;

/*
 * perfetto: the trace's CPU samples as PerfSample packets, written to out
 * after the rest (perfetto_samples.c; one more read of run's trace).
 * *written: how many.  0, or -1 with tl_error set.
 */
int tl_pf_samples(struct tl_run *run, FILE *out, uint64_t *written);

/* perfetto: end the packet open in b (its TracePacket), write it to out and empty b.  0, or -1 with tl_error set. */
struct tl_pb;
int tl_pf_put(struct tl_pb *b, FILE *out);

/* The thread's entry, created if new: valid until the next ex_thread_of().
 * NULL for tid <= 0 (the idle task, not a thread here), or when out of
 * memory (then x->failed is set). */
struct ex_thread *ex_thread_of(struct ex *x, int32_t tid);

/* The name of tid as the walk knows it now: "" if unknown, "swapper/N" for 0 on CPU n. */
const char *ex_name_of(struct ex *x, int32_t tid, int cpu);

/* Instants relative to the trace start. */
static inline uint64_t ex_rel(const struct ex *x, uint64_t t)
{
	return tl_run_rel(x->run, t);
}

#endif
