/*
 * marks.h - the recorder's end of the user markers: the shared memory that
 * the instrumentation library (include/threadlens.h) writes into, and its
 * drain into the trace writer.  Layout and protocol: marks_shm.h;
 * the design: docs/MARKERS.md.
 *
 * Use (lib/capture/record.c): tl_marks_new() before the command is forked;
 * tl_marks_export() in the child before exec; tl_marks_wake_fd() into the
 * poll set; tl_marks_drain() every round with the round's watermark, and
 * once more with TL_MARKS_ALL at the end; tl_marks_free().
 *
 * Every marker becomes a struct tl_event with cpu -1 and the kernel tid of
 * the thread that made it.  Markers wait in the drain until the watermark
 * passes them, and go to the writer in time order (one stable sort over all
 * threads), so the cpu -1 section stays in order across rounds.
 */
#ifndef TL_MARKS_H
#define TL_MARKS_H

#include <stdint.h>

#include "trace/trace.h"

#define TL_MARKS_ALL UINT64_MAX /* tl_marks_drain(): hand over everything */

struct tl_marks;

/* Totals since tl_marks_new(). */
struct tl_marks_stats {
	uint64_t markers;   /* markers added to the writer */
	uint64_t lost;      /* markers the program dropped (full ring, no free slot) */
	uint64_t malformed; /* records the recorder could not make sense of, skipped */
};

/*
 * Create the shared memory (a memfd, close-on-exec in the recorder) with the
 * default layout.  Returns NULL with tl_error set if the kernel refuses (the
 * recording can go on without markers).  Free with tl_marks_free().
 */
struct tl_marks *tl_marks_new(void);

/* The same with a given layout, for tests (nslots >= 1, ring_cap a power of two >= 2). */
struct tl_marks *tl_marks_new_sized(uint32_t nslots, uint32_t ring_cap, uint32_t strings_size);

/* The memfd; the recorded program finds it as THREADLENS_MARKS=fd:N. */
int tl_marks_fd(const struct tl_marks *m);

/*
 * In the forked child, before exec: make the fds inheritable and set
 * THREADLENS_MARKS=fd:N.  With m NULL (no markers), remove a
 * THREADLENS_MARKS inherited from outside, so the command cannot write into
 * some other recorder's memory.  Only for a child of a single-threaded
 * parent (it calls setenv()).
 */
void tl_marks_export(const struct tl_marks *m);

/*
 * Read every thread's ring, then add to w, in time order, the markers
 * older than `watermark` (TL_MARKS_ALL: all of them); younger ones wait for
 * a later call.  Dropped markers become MARKS_LOST events.  Slots of threads
 * that ended are given back once drained.  Returns the number of events
 * added, or -1 with tl_error set (writer or memory failure).  m may be NULL
 * (returns 0).
 */
int64_t tl_marks_drain(struct tl_marks *m, struct tl_trace_writer *w, uint64_t watermark);

/*
 * The eventfd that the program writes to when a ring is half full: poll it
 * for POLLIN and drain when it fires (tl_marks_drain() resets it).  -1 if m
 * is NULL.
 */
int tl_marks_wake_fd(const struct tl_marks *m);

/* Totals so far.  m may be NULL (all zero). */
void tl_marks_get_stats(const struct tl_marks *m, struct tl_marks_stats *st);

void tl_marks_free(struct tl_marks *m);

#endif
