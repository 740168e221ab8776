/*
 * threadlens.h - mark frames, regions, tasks and instants in your program,
 * so that `threadlens record` puts them on the same time line as the
 * kernel's scheduling events.
 *
 *     #include <threadlens.h>
 *
 *     tl_frame_begin(n);              // frame n enters the pipeline
 *     tl_region_begin("detect");      // a named step of this thread
 *     ...
 *     tl_region_end("detect");
 *     tl_frame_end(n);                // frame n leaves it (any thread)
 *
 * Link with -lthreadlens (pkg-config --cflags --libs threadlens), from C or
 * C++.  docs/MARKERS.md describes the design, the costs and the limits.
 *
 * Contract:
 *  - Outside `threadlens record` every call costs one predictable branch and
 *    does nothing.  Under it, a call takes a CLOCK_MONOTONIC timestamp (the
 *    recorder's clock) and appends 24 bytes to a per-thread ring in memory
 *    shared with the recorder: no lock, no allocation and no system call
 *    after the thread's first marker (except one wake-up of the recorder
 *    per half ring, and only when the recorder lags).
 *  - Markers survive the program crashing or being killed: the recorder
 *    owns the shared memory and collects what is in it.
 *  - A thread whose ring is full (the recorder did not keep up) drops
 *    markers; the trace counts them (MARKS_LOST), and so does the record
 *    command's summary.
 *  - Names are C strings of up to 1023 bytes (longer ones are cut); the
 *    library copies each distinct string once, and a buffer may be reused
 *    with other contents.  String literals are the fastest.
 *  - Calls are thread-safe.  The first call of a thread (it claims a ring)
 *    and the first use of a name take a lock once; do not call markers from
 *    signal handlers (a marker of a handler that interrupted a marker of the
 *    same thread can be lost).
 *  - Regions and tasks nest within a thread; an end closes the innermost
 *    open one of the same kind and name.  Regions are steps of a pipeline
 *    or parallel regions; tasks are the units of work that speedup
 *    prediction (`threadlens predict`) reads, like Parana's
 *    PARANA_TASK_START/END.
 *  - A frame may cross threads: tl_frame_begin(id) and tl_frame_end(id) may
 *    be called from different threads.  tl_frame_join(id) tells that the
 *    calling thread now works on frame id, so its regions and tasks count
 *    for that frame (tl_frame_begin does this for the calling thread too;
 *    tl_frame_end(id) on a thread working on id ends that).  Frame ids are
 *    below 2^63.
 */
#ifndef THREADLENS_H
#define THREADLENS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define THREADLENS_VERSION 1

/* Frame frame_id begins (any thread); the calling thread now works on it. */
void tl_frame_begin(uint64_t frame_id);
/* Frame frame_id ends (any thread, not necessarily the one that began it). */
void tl_frame_end(uint64_t frame_id);
/* The calling thread now works on frame frame_id.  Records nothing by itself. */
void tl_frame_join(uint64_t frame_id);

/* A named step of the calling thread begins / ends; regions nest. */
void tl_region_begin(const char *name);
void tl_region_end(const char *name);

/* A task (a unit of work, for speedup prediction) begins / ends; tasks nest. */
void tl_task_begin(const char *label);
void tl_task_end(const char *label);

/* A point in time with a number (a queue length, a frame size...). */
void tl_instant(const char *name, int64_t value);

/* 1 if the program runs under `threadlens record` with markers enabled. */
int tl_recording(void);

#ifdef __cplusplus
}
#endif

#endif
