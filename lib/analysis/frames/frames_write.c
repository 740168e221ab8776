/*
 * frames_write.c - the text and JSON output of `threadlens frames` (see
 * frames.h; the JSON schema is in docs/JSON.md, the meaning of
 * every number in docs/FRAMES.md).
 *
 * Invariants: instants in the JSON are relative to the trace start and
 * durations are integer nanoseconds; a per-frame state_ns object lists only
 * the states with time in them (frames are many, most states are empty),
 * while the per-thread summary lists every state.  The text output fits in
 * 100 columns: states are grouped into six columns there (exec, ready,
 * sync, sleep, io, other).  Names from the traced program are cleaned for
 * the terminal with tl_fmt_clean_name().
 */
#include "analysis/frames/frames.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/errors.h"
#include "output/fmt.h"
#include "output/trace_json.h"

/* The steps table's name column: a row is at most 100 columns with a thread "+N+" */
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

static void group_header(FILE *out)
{
	for (unsigned g = 0; g < G__COUNT; g++)
		fprintf(out, " %8s", group_names[g]);
	fputc('\n', out);
}

static void group_row(FILE *out, const uint64_t v[G__COUNT])
{
	char b[24];

	for (unsigned g = 0; g < G__COUNT; g++)
		fprintf(out, " %8s", v[g] ? dur(v[g], b) : "-");
	fputc('\n', out);
}

static void text_header(FILE *out, const struct tl_frames_result *r, const struct tl_frames_text_opts *o)
{
	char a[24], b[24], c[24];

	fprintf(out, "threadlens frames: %s\n", r->run->path ? r->run->path : "");
	fprintf(out, "trace    %s, %d CPUs, %s%s\n", dur(rel(r->run->trace_end, r->run->trace_start), a),
	        r->run->info.ncpus, r->run->read.complete ? "complete" : "incomplete (interrupted or damaged)",
	        r->run->lost_total ? ", events lost (see report)" : "");
	fprintf(out, "window   %s to %s\n", secs(r, r->run->win_start, b), secs(r, r->run->win_end, c));
	if (r->run->spans.marks_lost || r->run->spans.unmatched_ends || r->run->spans.mismatched_ends)
		fprintf(out,
		        "markers  %" PRIu64 " lost by the program, %" PRIu64 " ends without a begin, %" PRIu64
		        " ends out of order\n",
		        r->run->spans.marks_lost, r->run->spans.unmatched_ends, r->run->spans.mismatched_ends);
	if (o && o->steps_filter)
		fputs("steps    only those named by --step\n", out);
	fputc('\n', out);
}

static void text_summary(FILE *out, const struct tl_frames_result *r)
{
	char a[24], b[24], c[24], d[24], e[24], f[24];

	fprintf(out,
	        "frames   %" PRIu64 " begun, %" PRIu64 " completed, %" PRIu64 " unfinished, %" PRIu64
	        " ended without a begin\n",
	        r->begun, r->completed, r->unfinished, r->ends_without_begin);
	if (r->begun && r->ids_consecutive)
		fprintf(out, "ids      %" PRId64 " to %" PRId64 ", %" PRIu64 " skipped\n", r->id_min, r->id_max,
		        r->ids_skipped);
	else if (r->begun)
		fprintf(out, "ids      %" PRId64 " to %" PRId64 ", not consecutive integers\n", r->id_min, r->id_max);
	if (r->nunfinished_ids) {
		fputs("unended  ids", out);
		for (size_t i = 0; i < r->nunfinished_ids; i++)
			fprintf(out, "%s%" PRId64, i ? ", " : " ", r->unfinished_ids[i]);
		fputs(r->unfinished > r->nunfinished_ids ? ", ...\n" : "\n", out);
	}
	if (r->completed >= 2)
		fprintf(out, "rate     %.2f frames/s from the first to the last completion (%.2f/s over the window)\n",
		        r->fps, r->fps_window);
	else
		fprintf(out, "rate     %.2f frames/s over the window\n", r->fps_window);
	if (r->latency.count)
		fprintf(out, "latency  mean %s  min %s  p50 %s  p90 %s  p99 %s  max %s\n",
		        dur(tl_dist_mean(&r->latency), a), dur(r->latency.min, b),
		        dur(tl_dist_percentile(&r->latency, 50), c), dur(tl_dist_percentile(&r->latency, 90), d),
		        dur(tl_dist_percentile(&r->latency, 99), e), dur(r->latency.max, f));
	fputc('\n', out);
}

static void text_throughput(FILE *out, const struct tl_frames_result *r)
{
	char a[24], b[24];
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
		double v = (double)r->buckets[i] * 1e9 / (double)r->interval_ns;
		if (r->run->win_start + (i + 1) * r->interval_ns > r->run->win_end)
			continue; /* the last, shorter interval */
		full++;
		if (lo < 0 || v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	if (full)
		fprintf(out, "completed per %s: %zu intervals, from %.2f to %.2f frames/s (each in --json)\n\n",
		        dur(r->interval_ns, a), full, lo, hi);
}

static void text_steps(FILE *out, const struct tl_frames_result *r)
{
	char a[24], b[24], c[24], d[24], nb[4 * TL_NAME_MAX + 8];

	if (!r->nsteps) {
		fputs("steps    none (no regions or tasks in frames)\n\n", out);
		return;
	}
	fputs("steps (per complete frame: the sum of the step's occurrences in it)\n", out);
	fprintf(out, "%-*s %-6s %7s %7s %9s %9s %9s %9s  %s\n", STEP_W, "step", "kind", "frames", "n/frame", "mean",
	        "p50", "p99", "max", "threads");
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct tl_frames_step *s = &r->steps[i];
		const struct tl_dist *pf = &s->per_frame;
		tl_fmt_put_name(out, s->name, STEP_W);
		fprintf(out, " %-6s %7" PRIu64 " %7.2f %9s %9s %9s %9s  ", kind_name(s->kind), s->frames,
		        s->frames ? (double)s->count / (double)s->frames : 0.0,
		        pf->count ? dur(tl_dist_mean(pf), a) : "-",
		        pf->count ? dur(tl_dist_percentile(pf, 50), b) : "-",
		        pf->count ? dur(tl_dist_percentile(pf, 99), c) : "-", pf->count ? dur(pf->max, d) : "-");
		if (s->nthreads) {
			uint32_t row = s->threads[0].row;
			fputs(name_cut(row < r->nthreads ? r->threads[row].name : "?", 10, nb, sizeof(nb)), out);
			if (s->nthreads > 1 || s->other_threads_count)
				fprintf(out, " +%zu%s", s->nthreads - 1, s->other_threads_count ? "+" : "");
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

static void text_threads(FILE *out, const struct tl_frames_result *r)
{
	uint64_t g[G__COUNT];
	char rb[8];
	int any = 0;

	for (size_t i = 0; i < r->nthreads; i++)
		any |= r->threads[i].frames != 0;
	if (!any)
		return;
	fputs("threads on complete frames (roles: b began, e ended, s steps; mean time per frame)\n", out);
	fprintf(out, "%-16s %7s %7s %5s", "thread", "tid", "frames", "roles");
	group_header(out);
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct tl_frames_thread *t = &r->threads[i];
		unsigned roles = (t->began ? TL_FROLE_BEGAN : 0) | (t->ended ? TL_FROLE_ENDED : 0) |
		                 (t->stepped ? TL_FROLE_STEPS : 0);
		if (!t->frames)
			continue;
		tl_fmt_put_name(out, t->name, 16);
		fprintf(out, " %7d %7" PRIu64 " %5s", t->tid, t->frames, roles_str(roles, rb));
		groups(t->state_ns, t->frames, g);
		group_row(out, g);
	}
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

static void text_frame(FILE *out, const struct tl_frames_result *r, const struct tl_frame *f)
{
	char a[24], b[24], c[24], nb[4 * TL_NAME_MAX + 8];
	uint64_t g[G__COUNT];
	size_t col;

	fprintf(out, "frame %" PRId64 ": %s%s, %s to %s, began by %s", f->id, dur(f->end - f->begin, a),
	        f->complete ? "" : " (unfinished)", secs(r, f->begin, b), secs(r, f->end, c),
	        who(f, f->began_by, nb, sizeof(nb)));
	if (f->ended_by)
		fprintf(out, ", ended by %s", who(f, f->ended_by, nb, sizeof(nb)));
	fputc('\n', out);
	if (f->nsteps) {
		fputs("  steps:", out);
		col = 8;
		for (size_t i = 0; i < f->nsteps; i++) {
			char item[200], times[16] = "";
			int n;
			if (f->steps[i].count > 1)
				snprintf(times, sizeof(times), " (x%u)", f->steps[i].count);
			n = snprintf(item, sizeof(item), " %s %s%s%s", name_cut(f->steps[i].name, 24, nb, sizeof(nb)),
			             dur(f->steps[i].ns, a), times, i + 1 < f->nsteps ? "," : "");
			if (col + (size_t)n > 98) {
				fputs("\n        ", out);
				col = 8;
			}
			fputs(item, out);
			col += (size_t)n;
		}
		fputc('\n', out);
	}
	if (f->nthreads) {
		fprintf(out, "  %-16s %7s %5s", "thread", "tid", "roles");
		group_header(out);
		for (size_t i = 0; i < f->nthreads; i++) {
			const struct tl_frame_thread *t = &f->threads[i];
			fputs("  ", out);
			tl_fmt_put_name(out, t->name, 16);
			fprintf(out, " %7d %5s", t->tid, roles_str(t->roles, nb));
			groups(t->state_ns, 1, g);
			group_row(out, g);
			if (t->from > f->begin && t->to > t->from)
				fprintf(out, "  %-16s (counted from %s)\n", "", secs(r, t->from, a));
		}
	}
	fputc('\n', out);
}

int tl_frames_write_text(FILE *out, const struct tl_frames_result *r, const struct tl_frames_text_opts *o)
{
	text_header(out, r, o);
	text_summary(out, r);
	text_throughput(out, r);
	text_steps(out, r);
	text_threads(out, r);
	if (r->nworst) {
		if (r->nworst == 1)
			fputs("the longest frame (--worst K for more, --frame ID for others)\n\n", out);
		else
			fprintf(out, "the %zu longest frames (--worst K for more, --frame ID for others)\n\n",
			        r->nworst);
		for (size_t i = 0; i < r->nworst; i++)
			text_frame(out, r, &r->worst[i]);
	}
	for (size_t i = 0; i < r->npicked; i++)
		text_frame(out, r, &r->picked[i]);
	if (fflush(out) || ferror(out))
		return tl_error("%s", strerror(errno ? errno : EIO));
	return 0;
}
