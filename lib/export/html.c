/*
 * html.c - `threadlens html` (html.h): the analyses behind the page, then
 * the page itself.
 *
 * Per trace, two reads: the report's walk (the model, from which the
 * diagnosis is drawn without a read of its own) and the timeline's; three
 * more for frames and critical paths when the program marked frames, one
 * for the profile (with its cells) when the trace has samples, one for the
 * prediction when directives are given (html --directives).
 * Blocks are written as each analysis ends, so on a failure the caller
 * removes the half-written page.  Before/after pages (tl_html_compare)
 * start with the `diff --json` of the two traces, then the blocks of each
 * with ids ending in "-a" and "-b".
 */
#include "export/html.h"

#include <string.h>

#include "analysis/critical/critical.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/diff/diff.h"
#include "analysis/frames/frames.h"
#include "analysis/predict/predict.h"
#include "analysis/profile/profile.h"
#include "analysis/report/report.h"
#include "base/errors.h"
#include "export/html_timeline.h"
#include "output/json.h"

/* html_assets.c: the page's style and script, NUL-terminated. */
extern const char tl_html_css[];
extern const char tl_html_js[];

static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* <script type="application/json" id="ID">, a document, </script>: its
 * strings cannot end the element, as the JSON writer writes '<' as \u003c.
 * `side` ("" or "-a", "-b") ends the id. */
static void open_block(FILE *out, const char *id, const char *side)
{
	fprintf(out, "<script type=\"application/json\" id=\"%s%s\">\n", id, side);
}

static void close_block(FILE *out)
{
	fputs("</script>\n", out);
}

struct frames_stream {
	struct tl_json j;
	uint64_t trace_start;
};

static void on_frame(void *ctx, const struct tl_frame *fr)
{
	struct frames_stream *fs = ctx;

	tl_frames_write_json_frame(&fs->j, fr, fs->trace_start);
}

/*
 * The frames (`frames --json`, compact, each frame as it finishes) and the
 * critical paths of the TL_HTML_CRITICAL longest (`critical --json`): three
 * more reads, only for a trace with frames.  0, or -1 with tl_error set.
 */
static int frame_blocks(struct tl_run *run, FILE *out, const char *side, struct tl_html_counts *n)
{
	struct tl_frames_opts fo = { .worst = 5, .on_frame = on_frame };
	struct tl_frames_result fr = { 0 };
	struct tl_crit_opts co = { .frame = -1, .worst = TL_HTML_CRITICAL };
	struct tl_crit_result cr = { 0 };
	struct frames_stream fs = { .trace_start = run->info.start_ns };
	uint64_t frames;
	int rc;

	fo.ctx = &fs;
	if (tl_run_reopen(run) < 0)
		return -1;
	open_block(out, "tl-frames", side);
	tl_json_init(&fs.j, out, 0);
	tl_frames_write_json_begin(&fs.j);
	if (tl_frames_analyze(run, &fo, &fr) < 0)
		return -1;
	tl_frames_write_json_end(&fs.j, &fr);
	frames = fr.completed;
	n->frames += frames;
	tl_frames_release(&fr);
	if (tl_json_finish(&fs.j) < 0)
		return -1;
	close_block(out);
	if (frames == 0)
		return 0;
	if (tl_run_reopen(run) < 0 || tl_crit_analyze(run, &co, &cr) < 0)
		return -1;
	open_block(out, "tl-critical", side);
	rc = tl_crit_write_json(out, &cr);
	close_block(out);
	tl_crit_release(&cr);
	return rc;
}

/* The samples' profile with its cells (`profile --json` and profile.h's cells): one more read.  0, or -1 with tl_error set. */
static int profile_block(struct tl_run *run, FILE *out, const char *side, struct tl_html_counts *n)
{
	struct tl_profile_opts po = { .cpu = -1, .cells = 1 };
	struct tl_profile_result pr = { 0 };
	int rc;

	if (tl_run_reopen(run) < 0 || tl_profile_analyze(run, &po, &pr) < 0)
		return -1;
	n->samples += pr.samples;
	open_block(out, "tl-profile", side);
	rc = tl_profile_write_json(out, &pr);
	close_block(out);
	tl_profile_release(&pr);
	return rc;
}

/* The prediction of predict.h (`predict --json`): one more read.  0, or -1 with tl_error set. */
static int predict_block(struct tl_run *run, FILE *out, const char *side, const struct tl_html_opts *o)
{
	struct tl_predict_opts po = { .dirs = o->dirs, .pf = o->pf, .max_cores = o->cores > 0 ? o->cores : 8 };
	struct tl_predict_result pr;
	int rc;

	if (tl_run_reopen(run) < 0 || tl_predict(run, &po, &pr) < 0)
		return -1;
	open_block(out, "tl-predict", side);
	rc = tl_predict_write_json(out, &pr);
	close_block(out);
	tl_predict_release(&pr);
	return rc;
}

/* One trace's analyses and blocks, their ids ending in `side`.  0, or -1 with tl_error set. */
static int write_side(struct tl_run *run, FILE *out, const char *side, struct tl_html_counts *n,
                      const struct tl_html_opts *o)
{
	struct tl_report_opts ro = { .top = -1, .compact = 1 };
	struct tl_model m = { 0 };
	struct tl_findings f = { 0 };
	struct tl_timeline *t = NULL;
	struct tl_timeline_opts to = { 0 };
	char ids[24];
	int rc = -1;

	snprintf(ids, sizeof(ids), "tl-iv%s", side);
	to.ids = ids;
	if (tl_report_analyze(run, &m) < 0 || tl_diagnose_model(&m, NULL, &f) < 0)
		goto out;
	if (!(t = tl_timeline_build(run, &m, &to)))
		goto out;
	n->threads += m.nthreads;
	n->intervals += tl_timeline_intervals(t);
	n->findings += f.n;
	n->truncated |= tl_timeline_truncated(t);
	open_block(out, "tl-report", side);
	if (tl_report_write_json(out, &m, &ro) < 0)
		goto out;
	close_block(out);
	open_block(out, "tl-diagnose", side);
	if (tl_diagnose_write_json(out, &f) < 0)
		goto out;
	close_block(out);
	open_block(out, "tl-timeline", side);
	if (tl_timeline_write_json(out, t) < 0)
		goto out;
	close_block(out);
	if (tl_timeline_write_blocks(out, t) < 0)
		goto out;
	if (run->spans.spans[TL_SPAN_FRAME] > 0 && frame_blocks(run, out, side, n) < 0)
		goto out;
	if (run->sched.samples > 0 && profile_block(run, out, side, n) < 0)
		goto out;
	if (o->dirs && predict_block(run, out, side, o) < 0)
		goto out;
	rc = 0;
out:
	tl_timeline_free(t);
	tl_findings_release(&f);
	tl_report_release(&m);
	return rc;
}

static void head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>threadlens: ",
	      out);
	put_escaped(out, title);
	fprintf(out,
	        "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
	        "<noscript>This report is drawn by its script: allow JavaScript for this file.</noscript>\n"
	        "<div id=\"app\"></div>\n",
	        tl_html_css);
}

static int tail(FILE *out)
{
	fprintf(out, "<script>\n(function () {\n'use strict';\n%s})();\n</script>\n</body>\n</html>\n", tl_html_js);
	if (fflush(out) != 0 || ferror(out))
		return tl_error("cannot write the page");
	return 0;
}

int tl_html(struct tl_run *run, const struct tl_html_opts *o, struct tl_html_counts *n)
{
	memset(n, 0, sizeof(*n));
	head(o->out, o->title ? o->title : "trace");
	if (write_side(run, o->out, "", n, o) < 0)
		return -1;
	return tail(o->out);
}

int tl_html_compare(struct tl_run *a, struct tl_run *b, const struct tl_html_opts *o, struct tl_html_counts *n)
{
	struct tl_diff_result d = { 0 };
	const char *pa[1] = { a->path }, *pb[1] = { b->path };
	int rc;

	memset(n, 0, sizeof(*n));
	head(o->out, o->title ? o->title : "before and after");
	if (tl_diff_analyze(pa, 1, pb, 1, &d) < 0)
		return -1;
	open_block(o->out, "tl-diff", "");
	rc = tl_diff_write_json(o->out, &d);
	close_block(o->out);
	tl_diff_release(&d);
	if (rc < 0 || write_side(a, o->out, "-a", n, o) < 0 || write_side(b, o->out, "-b", n, o) < 0)
		return -1;
	return tail(o->out);
}
