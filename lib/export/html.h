/*
 * html.h - `threadlens html`: one self-contained HTML file with the whole
 * analysis of a trace, to look at in a browser, offline (docs/HTML.md).
 *
 * The page holds the JSON documents the commands print (`report --json`,
 * `diagnose --json`; for a trace with frames `frames --json` and
 * `critical --json --worst 20`) and the timeline data (html_timeline.h),
 * each in its own <script type="application/json"> block, then the page's script and
 * style, which are compiled into the binary (html_assets.c).  No network,
 * no server: a Content-Security-Policy forbids every fetch, and every
 * string from the trace reaches the page only as JSON (where '<' is
 * \u003c) and is shown with textContent or drawn on a canvas, never
 * parsed as HTML.
 */
#ifndef TL_HTML_H
#define TL_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "timeline/run.h"

struct tl_directives;
struct tl_platform;

struct tl_html_opts {
	FILE *out;
	const char *title;                /* the trace as the user named it */
	const struct tl_directives *dirs; /* with directives: the prediction (predict.h) too, for 1..cores */
	const struct tl_platform *pf;     /* its runtime costs, or NULL */
	int cores;
};

#define TL_HTML_CRITICAL 20 /* frames whose critical path the page holds: the longest */

struct tl_html_counts {
	uint64_t threads, intervals, findings, frames;
	uint64_t samples; /* record --sample's: the page has the profile's views */
	int truncated;    /* the timeline dropped exact detail (too large) */
};

/* Analyse run's trace (two reads; five with frames, one more with samples) and write the page.  0, or -1 with tl_error set. */
int tl_html(struct tl_run *run, const struct tl_html_opts *o, struct tl_html_counts *n);

/*
 * Before and after: the page of two traces of the same program, `threadlens
 * diff`'s comparison first (its numbers, the findings gone and new), then
 * every view of each.  Counts are summed over both.  0, or -1 with tl_error.
 */
int tl_html_compare(struct tl_run *a, struct tl_run *b, const struct tl_html_opts *o, struct tl_html_counts *n);

#endif
