/*
 * frames_write.c - the text and JSON output of `threadlens frames` (see
 * frames.h; the JSON schema is in docs/JSON.md, the meaning of
 * every number in docs/FRAMES.md).
 *
 * Invariants: instants in the JSON are relative to the trace start and
 * durations are integer nanoseconds; a per-frame state_ns object lists only
 * the states with time in them (frames are many, most states are empty),
 * while the per-thread summary lists every state.  The text output fits
 * its width (100 unless told; any from 80): states are grouped into six
 * columns there (exec, ready, sync, sleep, io, other), and a table too wide
 * narrows its columns, then folds the groups of least time into "other+"
 * and says which; prose wraps.  Names from the traced program are cleaned
 * for the terminal with tl_fmt_clean_name().
 */
#include "analysis/frames/frames.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/errors.h"
#include "output/fmt.h"
#include "output/trace_json.h"

/* The steps table's name column: a row is at most 100 columns with a thread "+NN+" */
#define STEP_W 20

static uint64_t rel(uint64_t ts, uint64_t start)
{
	return ts > start ? ts - start : 0;
}

static const char *role_names[] = { "began", "ended", "steps" };

static const char *kind_name(unsigned kind)
{
	return kind == TL_SPAN_TASK ? "task" : "region";
}

/* ---- JSON ---- */

void tl_frames_write_json_begin(struct tl_json *j)
{
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_string(j, "schema", "threadlens-frames");
	tl_json_kv_int(j, "version", 1);
	tl_json_key(j, "states");
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		tl_json_string(j, tl_state_name(s));
	tl_json_end_array(j);
	tl_json_key(j, "frames");
	tl_json_begin_array(j, TL_JSON_BLOCK);
}

void tl_frames_write_json_frame(struct tl_json *j, const struct tl_frame *f, uint64_t trace_start)
{
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_int(j, "id", f->id);
	tl_json_kv_bool(j, "complete", f->complete);
	tl_json_kv_uint(j, "begin_ns", rel(f->begin, trace_start));
	tl_json_kv_uint(j, "end_ns", rel(f->end, trace_start));
	tl_json_kv_uint(j, "latency_ns", f->end - f->begin);
	tl_json_kv_int(j, "began_by", f->began_by);
	tl_json_kv_int(j, "ended_by", f->ended_by);
	tl_json_key(j, "steps");
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (size_t i = 0; i < f->nsteps; i++) {
		const struct tl_frame_step *s = &f->steps[i];
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_string(j, "name", s->name);
		tl_json_kv_string(j, "kind", kind_name(s->kind));
		tl_json_kv_uint(j, "count", s->count);
		tl_json_kv_uint(j, "ns", s->ns);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "threads");
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (size_t i = 0; i < f->nthreads; i++) {
		const struct tl_frame_thread *t = &f->threads[i];
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "tid", t->tid);
		tl_json_kv_string(j, "name", t->name);
		tl_json_key(j, "roles");
		tl_json_begin_array(j, TL_JSON_INLINE);
		for (unsigned b = 0; b < 3; b++)
			if (t->roles & (1u << b))
				tl_json_string(j, role_names[b]);
		tl_json_end_array(j);
		tl_json_kv_uint(j, "from_ns", rel(t->from, trace_start));
		tl_json_kv_uint(j, "to_ns", rel(t->to, trace_start));
		tl_json_key(j, "state_ns");
		tl_json_begin_object(j, TL_JSON_INLINE);
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			if (t->state_ns[s])
				tl_json_kv_uint(j, tl_state_name(s), t->state_ns[s]);
		tl_json_end_object(j);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

static void json_dist(struct tl_json *j, const char *key, const struct tl_dist *d)
{
	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "count", d->count);
	tl_json_kv_uint(j, "mean_ns", tl_dist_mean(d));
	tl_json_kv_uint(j, "min_ns", d->count ? d->min : 0);
	tl_json_kv_uint(j, "p50_ns", tl_dist_percentile(d, 50));
	tl_json_kv_uint(j, "p90_ns", tl_dist_percentile(d, 90));
	tl_json_kv_uint(j, "p99_ns", tl_dist_percentile(d, 99));
	tl_json_kv_uint(j, "max_ns", d->max);
	tl_json_end_object(j);
}

static void json_trace(struct tl_json *j, const struct tl_frames_result *r)
{
	tl_json_trace(j, r->run);
	tl_json_window(j, r->run);
	tl_json_kv_uint(j, "lost_events", r->run->lost_total);
	tl_json_key(j, "markers");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "lost", r->run->spans.marks_lost);
	tl_json_kv_uint(j, "unmatched_ends", r->run->spans.unmatched_ends);
	tl_json_kv_uint(j, "mismatched_ends", r->run->spans.mismatched_ends);
	tl_json_kv_uint(j, "too_deep", r->run->spans.too_deep);
	tl_json_end_object(j);
}

static void json_summary(struct tl_json *j, const struct tl_frames_result *r)
{
	tl_json_key(j, "summary");
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_uint(j, "begun", r->begun);
	tl_json_kv_uint(j, "completed", r->completed);
	tl_json_kv_uint(j, "unfinished", r->unfinished);
	tl_json_key(j, "unfinished_ids");
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (size_t i = 0; i < r->nunfinished_ids; i++)
		tl_json_int(j, r->unfinished_ids[i]);
	tl_json_end_array(j);
	tl_json_kv_uint(j, "ends_without_begin", r->ends_without_begin);
	tl_json_kv_uint(j, "max_held", r->max_held);
	tl_json_key(j, "ids");
	tl_json_begin_object(j, TL_JSON_INLINE);
	if (r->begun) {
		tl_json_kv_int(j, "min", r->id_min);
		tl_json_kv_int(j, "max", r->id_max);
	} else {
		tl_json_key(j, "min");
		tl_json_null(j);
		tl_json_key(j, "max");
		tl_json_null(j);
	}
	tl_json_kv_bool(j, "consecutive", r->ids_consecutive);
	tl_json_key(j, "skipped");
	if (r->ids_consecutive)
		tl_json_uint(j, r->ids_skipped);
	else
		tl_json_null(j);
	tl_json_end_object(j);
	tl_json_kv_double(j, "fps", r->fps, 3);
	tl_json_kv_double(j, "fps_window", r->fps_window, 3);
	tl_json_key(j, "first_end_ns");
	if (r->completed)
		tl_json_uint(j, rel(r->first_end, r->run->trace_start));
	else
		tl_json_null(j);
	tl_json_key(j, "last_end_ns");
	if (r->completed)
		tl_json_uint(j, rel(r->last_end, r->run->trace_start));
	else
		tl_json_null(j);
	json_dist(j, "latency", &r->latency);
	tl_json_end_object(j);

	tl_json_key(j, "throughput");
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_uint(j, "interval_ns", r->interval_ns);
	tl_json_key(j, "intervals");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nbuckets; i++) {
		uint64_t start = r->run->win_start + i * r->interval_ns;
		uint64_t len = r->run->win_end - start < r->interval_ns ? r->run->win_end - start : r->interval_ns;
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "start_ns", rel(start, r->run->trace_start));
		tl_json_kv_uint(j, "length_ns", len);
		tl_json_kv_uint(j, "frames", r->buckets[i]);
		tl_json_kv_double(j, "fps", len ? (double)r->buckets[i] * 1e9 / (double)len : 0, 3);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

static void json_steps(struct tl_json *j, const struct tl_frames_result *r)
{
	tl_json_key(j, "steps");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct tl_frames_step *s = &r->steps[i];
		tl_json_begin_object(j, TL_JSON_BLOCK);
		tl_json_kv_string(j, "name", s->name);
		tl_json_kv_string(j, "kind", kind_name(s->kind));
		tl_json_kv_uint(j, "frames", s->frames);
		tl_json_kv_uint(j, "count", s->count);
		tl_json_kv_uint(j, "total_ns", s->ns);
		tl_json_kv_uint(j, "unframed", s->unframed);
		json_dist(j, "per_frame", &s->per_frame);
		tl_json_key(j, "threads");
		tl_json_begin_array(j, TL_JSON_BLOCK);
		for (size_t k = 0; k < s->nthreads; k++) {
			const struct tl_frames_step_thread *t = &s->threads[k];
			tl_json_begin_object(j, TL_JSON_INLINE);
			tl_json_kv_int(j, "tid", t->tid);
			tl_json_kv_string(j, "name", t->row < r->nthreads ? r->threads[t->row].name : "");
			tl_json_kv_uint(j, "count", t->count);
			tl_json_kv_uint(j, "ns", t->ns);
			tl_json_end_object(j);
		}
		tl_json_end_array(j);
		tl_json_kv_uint(j, "other_threads_count", s->other_threads_count);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
}

static void json_threads(struct tl_json *j, const struct tl_frames_result *r)
{
	tl_json_key(j, "threads");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct tl_frames_thread *t = &r->threads[i];
		if (!t->frames)
			continue;
		tl_json_begin_object(j, TL_JSON_BLOCK);
		tl_json_kv_int(j, "tid", t->tid);
		tl_json_kv_int(j, "pid", t->pid);
		tl_json_kv_string(j, "name", t->name);
		tl_json_kv_uint(j, "frames", t->frames);
		tl_json_kv_uint(j, "began", t->began);
		tl_json_kv_uint(j, "ended", t->ended);
		tl_json_kv_uint(j, "stepped", t->stepped);
		tl_json_key(j, "state_ns");
		tl_json_begin_object(j, TL_JSON_INLINE);
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			tl_json_kv_uint(j, tl_state_name(s), t->state_ns[s]);
		tl_json_end_object(j);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
}

void tl_frames_write_json_end(struct tl_json *j, const struct tl_frames_result *r)
{
	tl_json_end_array(j); /* frames */
	json_trace(j, r);
	json_summary(j, r);
	json_steps(j, r);
	json_threads(j, r);
	tl_json_key(j, "worst");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nworst; i++) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "id", r->worst[i].id);
		tl_json_kv_uint(j, "begin_ns", rel(r->worst[i].begin, r->run->trace_start));
		tl_json_kv_uint(j, "latency_ns", r->worst[i].end - r->worst[i].begin);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

static void stream_frame(void *ctx, const struct tl_frame *f)
{
	struct tl_frames_json_stream *s = ctx;
	tl_frames_write_json_frame(&s->j, f, s->run->info.start_ns);
}

void tl_frames_write_json_stream(struct tl_frames_json_stream *s, FILE *out, const struct tl_run *run,
                                 struct tl_frames_opts *o)
{
	tl_json_init(&s->j, out, TL_JSON_PRETTY);
	s->run = run;
	o->on_frame = stream_frame;
	o->ctx = s;
	tl_frames_write_json_begin(&s->j);
}

int tl_frames_write_json_finish(struct tl_frames_json_stream *s, const struct tl_frames_result *r)
{
	tl_frames_write_json_end(&s->j, r);
	return tl_json_finish(&s->j);
}

/* ---- text ---- */

/* The six state columns of the text output. */
enum { G_EXEC, G_READY, G_SYNC, G_SLEEP, G_IO, G_OTHER, G__COUNT };
static const char *const group_names[G__COUNT] = { "exec", "ready", "sync", "sleep", "io", "other" };

static unsigned group_of(unsigned s)
{
	if (tl_state_is_oncpu(s))
		return G_EXEC;
	if (tl_state_is_ready(s))
		return G_READY;
	switch (s) {
	case TL_ST_SYNC_WAIT: return G_SYNC;
	case TL_ST_SLEEPING: return G_SLEEP;
	case TL_ST_IO_WAIT:
	case TL_ST_BLOCKED: return G_IO;
	default: return G_OTHER;
	}
}

static void groups(const uint64_t *state_ns, uint64_t div, uint64_t out[G__COUNT])
{
	memset(out, 0, G__COUNT * sizeof(*out));
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		out[group_of(s)] += state_ns[s];
	if (div > 1)
		for (unsigned g = 0; g < G__COUNT; g++)
			out[g] /= div;
}

static const char *dur(uint64_t ns, char *buf)
{
	return tl_fmt_dur(ns, buf, 24);
}

/* Seconds from the trace start, three decimals. */
static const char *secs(const struct tl_frames_result *r, uint64_t ts, char *buf)
{
	snprintf(buf, 24, "%.3fs", (double)rel(ts, r->run->trace_start) / 1e9);
	return buf;
}

/* A name cleaned for the terminal and cut to `width` characters. */
static const char *name_cut(const char *in, size_t width, char *buf, size_t len)
{
	tl_fmt_name_cut(in && *in ? in : "?", width, buf, len);
	return buf;
}

/*
 * How a table's state columns fit `width` after `fixed` columns: 9 a
 * column, 8 when that is too wide, and then the groups of the least time
 * in the table (totals) go into "other", as few as make it fit.
 */
struct glayout {
	int cw;             /* a column's width, its space included */
	int show[G__COUNT]; /* a column of its own; the others are added to "other" */
	int folded;         /* how many were */
	int need;           /* the width that shows every group */
};

static void fit_groups(const uint64_t tot[G__COUNT], int fixed, int width, struct glayout *gl)
{
	int n = G__COUNT;

	gl->cw = fixed + 9 * G__COUNT <= width ? 9 : 8;
	gl->folded = 0;
	gl->need = fixed + 8 * G__COUNT;
	for (unsigned g = 0; g < G__COUNT; g++)
		gl->show[g] = 1;
	while (fixed + gl->cw * n > width && n > 2) {
		unsigned least = G__COUNT;

		for (unsigned g = 0; g < G_OTHER; g++)
			if (gl->show[g] && (least == G__COUNT || tot[g] < tot[least]))
				least = g;
		gl->show[least] = 0;
		gl->folded++;
		n--;
	}
}

static void group_header(FILE *out, const struct glayout *gl)
{
	for (unsigned g = 0; g < G__COUNT; g++)
		if (gl->show[g])
			fprintf(out, " %*s", gl->cw - 1, g == G_OTHER && gl->folded ? "other+" : group_names[g]);
	fputc('\n', out);
}

static void group_row(FILE *out, const struct glayout *gl, const uint64_t v[G__COUNT])
{
	uint64_t other = v[G_OTHER];
	char b[24];

	for (unsigned g = 0; g < G_OTHER; g++)
		if (!gl->show[g])
			other += v[g];
	for (unsigned g = 0; g < G_OTHER; g++)
		if (gl->show[g])
			fprintf(out, " %*s", gl->cw - 1, v[g] ? dur(v[g], b) : "-");
	fprintf(out, " %*s\n", gl->cw - 1, other ? dur(other, b) : "-");
}

/* The line under a table whose groups were folded: "other+: also sleep, io (...)". */
static void group_note(FILE *out, const struct glayout *gl, const char *prefix, int width)
{
	char text[160];
	int n = 0;

	if (!gl->folded)
		return;
	for (unsigned g = 0; g < G_OTHER; g++)
		if (!gl->show[g])
			n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%s", n ? ", " : "also ", group_names[g]);
	snprintf(text + n, sizeof(text) - (size_t)n, " (--width %d shows each)", gl->need);
	tl_fmt_wrap(out, prefix, text, width);
}

static void text_header(FILE *out, const struct tl_frames_result *r, const struct tl_frames_text_opts *o, int width)
{
	char a[24], b[24], c[24], v[256];

	fprintf(out, "threadlens frames: %s\n", name_cut(r->run->path, (size_t)width - 19, v, sizeof(v)));
	fprintf(out, "trace    %s, %d CPUs, %s%s\n", dur(rel(r->run->trace_end, r->run->trace_start), a),
	        r->run->info.ncpus, r->run->read.complete ? "complete" : "incomplete (interrupted or damaged)",
	        r->run->lost_total ? ", events lost (see report)" : "");
	fprintf(out, "window   %s to %s\n", secs(r, r->run->win_start, b), secs(r, r->run->win_end, c));
	if (r->run->spans.marks_lost || r->run->spans.unmatched_ends || r->run->spans.mismatched_ends) {
		snprintf(v, sizeof(v),
		         "%" PRIu64 " lost by the program, %" PRIu64 " ends without a begin, %" PRIu64
		         " ends out of order",
		         r->run->spans.marks_lost, r->run->spans.unmatched_ends, r->run->spans.mismatched_ends);
		tl_fmt_wrap(out, "markers  ", v, width);
	}
	if (o && o->steps_filter)
		fputs("steps    only those named by --step\n", out);
	fputc('\n', out);
}

static void text_latency(FILE *out, const struct tl_frames_result *r, int width)
{
	static const char *const label[6] = { "mean", "min", "p50", "p90", "p99", "max" };
	const struct tl_dist *l = &r->latency;
	uint64_t v[6] = { tl_dist_mean(l),           l->min, tl_dist_percentile(l, 50), tl_dist_percentile(l, 90),
		          tl_dist_percentile(l, 99), l->max };
	char items[6][40], b[24];
	const char *p[6];
	int len = 9 + 2 * 5; /* "latency  ", and two spaces between the items */

	for (int i = 0; i < 6; i++) {
		len += snprintf(items[i], sizeof(items[i]), "%s %s", label[i], dur(v[i], b));
		p[i] = items[i];
	}
	if (len > width) {
		tl_fmt_wrap_items(out, "latency  ", p, 6, width);
		return;
	}
	fputs("latency ", out); /* one line, two spaces apart */
	for (int i = 0; i < 6; i++)
		fprintf(out, " %s%s", items[i], i < 5 ? " " : "\n");
}

static void text_summary(FILE *out, const struct tl_frames_result *r, int width)
{
	char v[256];

	snprintf(v, sizeof(v),
	         "%" PRIu64 " begun, %" PRIu64 " completed, %" PRIu64 " unfinished, %" PRIu64 " ended without a begin",
	         r->begun, r->completed, r->unfinished, r->ends_without_begin);
	tl_fmt_wrap(out, "frames   ", v, width);
	if (r->begun && r->ids_consecutive)
		fprintf(out, "ids      %" PRId64 " to %" PRId64 ", %" PRIu64 " skipped\n", r->id_min, r->id_max,
		        r->ids_skipped);
	else if (r->begun)
		fprintf(out, "ids      %" PRId64 " to %" PRId64 ", not consecutive integers\n", r->id_min, r->id_max);
	if (r->nunfinished_ids) {
		char ids[TL_FRAMES_LIST + 1][24];
		const char *p[TL_FRAMES_LIST + 1];
		size_t n = 0;

		for (; n < r->nunfinished_ids && n < TL_FRAMES_LIST; n++) {
			snprintf(ids[n], sizeof(ids[n]), "%" PRId64 "%s", r->unfinished_ids[n],
			         n + 1 < r->nunfinished_ids || r->unfinished > r->nunfinished_ids ? "," : "");
			p[n] = ids[n];
		}
		if (r->unfinished > r->nunfinished_ids)
			p[n++] = "...";
		tl_fmt_wrap_items(out, "unended  ids ", p, n, width);
	}
	if (r->completed >= 2)
		snprintf(v, sizeof(v), "%.2f frames/s from the first to the last completion (%.2f/s over the window)",
		         r->fps, r->fps_window);
	else
		snprintf(v, sizeof(v), "%.2f frames/s over the window", r->fps_window);
	tl_fmt_wrap(out, "rate     ", v, width);
	if (r->latency.count)
		text_latency(out, r, width);
	fputc('\n', out);
}

static void text_throughput(FILE *out, const struct tl_frames_result *r, int width)
{
	char a[24], b[24], v[160];
	double lo = -1, hi = 0;
	size_t full = 0;

	if (!r->nbuckets || !r->completed)
		return;
	if (r->nbuckets <= 20) {
		fprintf(out, "completed per %s\n  %10s %8s %10s\n", dur(r->interval_ns, a), "from", "frames",
		        "frames/s");
		for (size_t i = 0; i < r->nbuckets; i++) {
			uint64_t start = r->run->win_start + i * r->interval_ns;
			uint64_t len =
			        r->run->win_end - start < r->interval_ns ? r->run->win_end - start : r->interval_ns;
			fprintf(out, "  %10s %8" PRIu64 " %10.2f", secs(r, start, a), r->buckets[i],
			        len ? (double)r->buckets[i] * 1e9 / (double)len : 0.0);
			if (len < r->interval_ns)
				fprintf(out, "  (over %s)", dur(len, b));
			fputc('\n', out);
		}
		fputc('\n', out);
		return;
	}
	for (size_t i = 0; i < r->nbuckets; i++) {
		double x = (double)r->buckets[i] * 1e9 / (double)r->interval_ns;
		if (r->run->win_start + (i + 1) * r->interval_ns > r->run->win_end)
			continue; /* the last, shorter interval */
		full++;
		if (lo < 0 || x < lo)
			lo = x;
		if (x > hi)
			hi = x;
	}
	if (full) {
		snprintf(v, sizeof(v), "per %s: %zu intervals, from %.2f to %.2f frames/s (each in --json)",
		         dur(r->interval_ns, a), full, lo, hi);
		tl_fmt_wrap(out, "completed ", v, width);
		fputc('\n', out);
	}
}

/*
 * The steps table: 100 columns with a thread "name +NN+"; narrower, the
 * durations take 8 columns and p50 goes (--json has it), and the thread's
 * name gets what is left.
 */
static void text_steps(FILE *out, const struct tl_frames_result *r, int width)
{
	char a[24], b[24], c[24], d[24], nb[4 * TL_NAME_MAX + 8];
	int narrow = width < 100, dw = narrow ? 7 : 9, tail = narrow ? width - (STEP_W + 7 + 8 + 8 + 3 * 8 + 2) : 100;

	if (!r->nsteps) {
		fputs("steps    none (no regions or tasks in frames)\n\n", out);
		return;
	}
	tl_fmt_wrap(out, "", "steps (per complete frame: the sum of the step's occurrences in it)", width);
	fprintf(out, "%-*s %-6s %7s %7s %*s", STEP_W, "step", "kind", "frames", "n/frame", dw, "mean");
	if (!narrow)
		fprintf(out, " %*s", dw, "p50");
	fprintf(out, " %*s %*s  %s\n", dw, "p99", dw, "max", "threads");
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct tl_frames_step *s = &r->steps[i];
		const struct tl_dist *pf = &s->per_frame;
		tl_fmt_put_name(out, s->name, STEP_W);
		fprintf(out, " %-6s %7" PRIu64 " %7.2f %*s", kind_name(s->kind), s->frames,
		        s->frames ? (double)s->count / (double)s->frames : 0.0, dw,
		        pf->count ? dur(tl_dist_mean(pf), a) : "-");
		if (!narrow)
			fprintf(out, " %*s", dw, pf->count ? dur(tl_dist_percentile(pf, 50), b) : "-");
		fprintf(out, " %*s %*s  ", dw, pf->count ? dur(tl_dist_percentile(pf, 99), c) : "-", dw,
		        pf->count ? dur(pf->max, d) : "-");
		if (s->nthreads) {
			uint32_t row = s->threads[0].row;
			char more[32] = "";
			int mlen = 0, room;

			if (s->nthreads > 1 || s->other_threads_count)
				mlen = snprintf(more, sizeof(more), " +%zu%s", s->nthreads - 1,
				                s->other_threads_count ? "+" : "");
			room = tail - mlen < 10 ? tail - mlen : 10;
			fputs(name_cut(row < r->nthreads ? r->threads[row].name : "?", room > 1 ? (size_t)room : 1, nb,
			               sizeof(nb)),
			      out);
			fputs(more, out);
		}
		fputc('\n', out);
		if (s->unframed)
			fprintf(out, "%-*s (and %" PRIu64 " times outside complete frames)\n", STEP_W, "", s->unframed);
	}
	fputc('\n', out);
}

static const char *roles_str(unsigned roles, char *buf)
{
	snprintf(buf, 8, "%c%c%c", roles & TL_FROLE_BEGAN ? 'b' : '-', roles & TL_FROLE_ENDED ? 'e' : '-',
	         roles & TL_FROLE_STEPS ? 's' : '-');
	return buf;
}

static void text_threads(FILE *out, const struct tl_frames_result *r, int width)
{
	uint64_t g[G__COUNT], tot[G__COUNT] = { 0 };
	struct glayout gl;
	char rb[8];
	int any = 0;

	for (size_t i = 0; i < r->nthreads; i++) {
		any |= r->threads[i].frames != 0;
		groups(r->threads[i].state_ns, r->threads[i].frames, g);
		for (unsigned k = 0; k < G__COUNT && r->threads[i].frames; k++)
			tot[k] += g[k];
	}
	if (!any)
		return;
	fit_groups(tot, 16 + 8 + 8 + 6, width, &gl);
	tl_fmt_wrap(out, "", "threads on complete frames (roles: b began, e ended, s steps; mean time per frame)",
	            width);
	fprintf(out, "%-16s %7s %7s %5s", "thread", "tid", "frames", "roles");
	group_header(out, &gl);
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct tl_frames_thread *t = &r->threads[i];
		unsigned roles = (t->began ? TL_FROLE_BEGAN : 0) | (t->ended ? TL_FROLE_ENDED : 0) |
		                 (t->stepped ? TL_FROLE_STEPS : 0);
		if (!t->frames)
			continue;
		tl_fmt_put_name(out, t->name, 16);
		fprintf(out, " %7d %7" PRIu64 " %5s", t->tid, t->frames, roles_str(roles, rb));
		groups(t->state_ns, t->frames, g);
		group_row(out, &gl, g);
	}
	group_note(out, &gl, "other+: ", width);
	fputc('\n', out);
}

/* "name (tid)" of a thread of the frame. */
static const char *who(const struct tl_frame *f, int32_t tid, char *buf, size_t len)
{
	char nb[4 * TL_NAME_MAX + 8];
	const char *name = "?";

	for (size_t i = 0; i < f->nthreads; i++)
		if (f->threads[i].tid == tid && f->threads[i].name[0]) {
			name = f->threads[i].name;
			break;
		}
	if (snprintf(buf, len, "%s (%d)", name_cut(name, 16, nb, sizeof(nb)), tid) >= (int)len)
		buf[len - 1] = 0; /* cut: the caller's column is narrower than the name */
	return buf;
}

static void text_frame(FILE *out, const struct tl_frames_result *r, const struct tl_frame *f, int width)
{
	char a[24], b[24], c[24], nb[4 * TL_NAME_MAX + 8], lead[40], v[256];
	uint64_t g[G__COUNT], tot[G__COUNT] = { 0 };
	struct glayout gl;
	size_t col;
	int n;

	snprintf(lead, sizeof(lead), "frame %" PRId64 ": ", f->id);
	n = snprintf(v, sizeof(v), "%s%s, %s to %s, began by %s", dur(f->end - f->begin, a),
	             f->complete ? "" : " (unfinished)", secs(r, f->begin, b), secs(r, f->end, c),
	             who(f, f->began_by, nb, sizeof(nb)));
	if (f->ended_by)
		snprintf(v + n, sizeof(v) - (size_t)n, ", ended by %s", who(f, f->ended_by, nb, sizeof(nb)));
	tl_fmt_wrap(out, lead, v, width);
	if (f->nsteps) {
		fputs("  steps:", out);
		col = 8;
		for (size_t i = 0; i < f->nsteps; i++) {
			char item[200], times[16] = "";
			int len;
			if (f->steps[i].count > 1)
				snprintf(times, sizeof(times), " (x%u)", f->steps[i].count);
			len = snprintf(item, sizeof(item), " %s %s%s%s", name_cut(f->steps[i].name, 24, nb, sizeof(nb)),
			               dur(f->steps[i].ns, a), times, i + 1 < f->nsteps ? "," : "");
			if (col + (size_t)len > (size_t)width) {
				fputs("\n        ", out);
				col = 8;
			}
			fputs(item, out);
			col += (size_t)len;
		}
		fputc('\n', out);
	}
	if (f->nthreads) {
		for (size_t i = 0; i < f->nthreads; i++) {
			groups(f->threads[i].state_ns, 1, g);
			for (unsigned k = 0; k < G__COUNT; k++)
				tot[k] += g[k];
		}
		fit_groups(tot, 2 + 16 + 8 + 6, width, &gl);
		fprintf(out, "  %-16s %7s %5s", "thread", "tid", "roles");
		group_header(out, &gl);
		for (size_t i = 0; i < f->nthreads; i++) {
			const struct tl_frame_thread *t = &f->threads[i];
			fputs("  ", out);
			tl_fmt_put_name(out, t->name, 16);
			fprintf(out, " %7d %5s", t->tid, roles_str(t->roles, nb));
			groups(t->state_ns, 1, g);
			group_row(out, &gl, g);
			if (t->from > f->begin && t->to > t->from)
				fprintf(out, "  %-16s (counted from %s)\n", "", secs(r, t->from, a));
		}
		group_note(out, &gl, "  other+: ", width);
	}
	fputc('\n', out);
}

int tl_frames_write_text(FILE *out, const struct tl_frames_result *r, const struct tl_frames_text_opts *o)
{
	int width = o && o->width > 0 ? o->width : 100;

	text_header(out, r, o, width);
	text_summary(out, r, width);
	text_throughput(out, r, width);
	text_steps(out, r, width);
	text_threads(out, r, width);
	if (r->nworst) {
		char v[96];

		if (r->nworst == 1)
			snprintf(v, sizeof(v), "the longest frame (--worst K for more, --frame ID for others)");
		else
			snprintf(v, sizeof(v), "the %zu longest frames (--worst K for more, --frame ID for others)",
			         r->nworst);
		tl_fmt_wrap(out, "", v, width);
		fputc('\n', out);
	}
	for (size_t i = 0; i < r->nworst; i++)
		text_frame(out, r, &r->worst[i], width);
	for (size_t i = 0; i < r->npicked; i++)
		text_frame(out, r, &r->picked[i], width);
	if (fflush(out) || ferror(out))
		return tl_error("%s", strerror(errno ? errno : EIO));
	return 0;
}
