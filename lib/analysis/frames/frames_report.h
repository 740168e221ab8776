/*
 * frames_report.h - the writers of `threadlens frames`: the terminal
 * summary and the JSON document "threadlens-frames" (docs/JSON.md).
 *
 * The JSON is written while the trace is read: the caller begins the
 * document, hands every finished frame to tl_frames_json_frame() from the
 * analysis' on_frame callback (so that memory does not grow with the
 * number of frames), and ends it with the result.  Writers only print;
 * failures show in tl_json_finish() or as -1 with tl_error set.
 */
#ifndef TL_FRAMES_REPORT_H
#define TL_FRAMES_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/frames/frames.h"
#include "output/json.h"

/* Write "schema", "version", "states" and open the "frames" array. */
void tl_frames_json_begin(struct tl_json *j);

/* One element of "frames"; instants are made relative to trace_start (tl_trace_info.start_ns). */
void tl_frames_json_frame(struct tl_json *j, const struct tl_frame *f, uint64_t trace_start);

/*
 * Close "frames" and write the rest of the document (trace, window,
 * summary, throughput, steps, threads, worst).  path: the trace's path as
 * the user gave it.  The caller then calls tl_json_finish().
 */
void tl_frames_json_end(struct tl_json *j, const struct tl_frames_result *r, const char *path);

struct tl_frames_text_opts {
	const char *path;  /* the trace's path as the user gave it; may be NULL */
	int steps_filter;  /* 1 if --step limited the steps (said in the header) */
};

/*
 * The terminal report, at most 100 columns: trace and window, frame counts
 * and dropped frames, throughput (overall and per interval), latency, the
 * per-step table, the threads that worked on frames, then r->worst and
 * r->picked in full (steps and state split).  Returns 0, or -1 with
 * tl_error set on a write error.
 */
int tl_frames_text(FILE *out, const struct tl_frames_result *r, const struct tl_frames_text_opts *o);

#endif
