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
 * Link with -lthreadlens (pkg-config --cflags --libs threadlens).
 *
 * Contract:
 *  - Outside `threadlens record` every call costs one predictable branch and
 *    does nothing.  Under it, a call takes a CLOCK_MONOTONIC timestamp (the
 *    recorder's clock) and appends a few words to a per-thread buffer in
 *    memory shared with the recorder: no system call, no lock, no
 *    allocation after the thread's first marker.
 *  - Markers survive the program crashing or being killed: the recorder
 *    owns the shared memory and collects what is in it.
 *  - A thread whose buffer is full (the recorder did not keep up) drops
 *    markers; the trace counts them.
 *  - Names are C strings; the library copies each distinct string once.
 *    Pass the same (e.g. literal) string to begin and end.
 *  - Calls are thread-safe and async-signal-unsafe only in the first call
 *    of a thread or with a new name (these take a lock once).
 *  - Regions and tasks nest within a thread; an end closes the innermost
 *    open one of the same kind and name.  Regions are steps of a pipeline
 *    or parallel regions; tasks are the units of work that speedup
 *    prediction (`threadlens predict`) reads, like Parana's
 *    PARANA_TASK_START/END.
 *  - A frame may cross threads: tl_frame_begin(id) and tl_frame_end(id) may
 *    be called from different threads.  tl_frame_join(id) tells that the
 *    calling thread now works on frame id, so its regions and tasks count
 *    for that frame (tl_frame_begin does this for the calling thread too).
 */
#ifndef THREADLENS_H
#define THREADLENS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define THREADLENS_VERSION 1

void tl_frame_begin(uint64_t frame_id);
void tl_frame_end(uint64_t frame_id);
void tl_frame_join(uint64_t frame_id);

void tl_region_begin(const char *name);
void tl_region_end(const char *name);

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
