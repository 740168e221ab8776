/*
 * walk.c - one streaming pass over a trace (see walk.h).
 */
#include "timeline/walk.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

struct tl_walk {
	struct tl_walk_opts o;
	struct tl_walk_result r;
	struct tl_sched *sched;
	struct tl_spans *spans;
};

static void w_interval(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
{
	struct tl_walk *w = ctx;

	if (w->spans)
		tl_spans_interval(w->spans, th, iv);
	if (w->o.on_interval)
		w->o.on_interval(w->o.ctx, th, iv);
}

static void w_cpu_interval(void *ctx, const struct tl_cpu_interval *iv)
{
	struct tl_walk *w = ctx;
	w->o.on_cpu_interval(w->o.ctx, iv);
}

static void w_thread_end(void *ctx, struct tl_thread *th)
{
	struct tl_walk *w = ctx;
	w->o.on_thread_end(w->o.ctx, th);
}

static void w_name(void *ctx, struct tl_thread *th)
{
	struct tl_walk *w = ctx;
	w->o.on_name(w->o.ctx, th);
}

static void w_event(void *ctx, struct tl_thread *th, const struct tl_event *ev)
{
	struct tl_walk *w = ctx;
	w->o.on_event(w->o.ctx, th, ev);
}

static void w_span(void *ctx, const struct tl_span *sp, const char *name)
{
	struct tl_walk *w = ctx;

	if (sp->end < w->r.win_start)
		return; /* wholly before the window */
	w->o.on_span(w->o.ctx, sp, name);
}

struct tl_walk *tl_walk_new(const struct tl_walk_opts *o, const struct tl_trace_info *info)
{
	struct tl_walk *w = calloc(1, sizeof(*w));
	struct tl_sched_opts so = { 0 };

	if (!w) {
		tl_error("out of memory");
		return NULL;
	}
	w->o = *o;
	w->r.ncpus = info->ncpus > 0 ? info->ncpus : 1;
	w->r.trace_start = info->start_ns;
	w->r.win_start = info->start_ns + (uint64_t)(o->from_ns > 0 ? o->from_ns : 0);
	w->r.win_end = o->to_ns >= 0 ? info->start_ns + (uint64_t)o->to_ns : UINT64_MAX;
	w->r.lost_per_cpu = calloc((size_t)w->r.ncpus, sizeof(uint64_t));

	so.start_ns = info->start_ns;
	so.ncpus = w->r.ncpus;
	so.preempt_window_ns = o->preempt_window_ns;
	so.ctx = w;
	so.on_interval = (o->on_interval || o->want_bursts || o->want_latencies) ? w_interval : NULL;
	so.on_cpu_interval = o->on_cpu_interval ? w_cpu_interval : NULL;
	so.on_thread_end = o->on_thread_end ? w_thread_end : NULL;
	so.on_name = o->on_name ? w_name : NULL;
	so.on_event = o->on_event ? w_event : NULL;
	w->sched = w->r.lost_per_cpu ? tl_sched_new(&so) : NULL;
	if (w->sched && o->on_span) {
		struct tl_spans_opts sp = {
			.ctx = w, .on_span = w_span, .want_bursts = o->want_bursts, .want_latencies = o->want_latencies
		};
		w->spans = tl_spans_new(&sp);
	}
	if (!w->sched || (o->on_span && !w->spans)) {
		tl_walk_free(w);
		tl_error("out of memory");
		return NULL;
	}
	return w;
}

struct tl_sched *tl_walk_sched(struct tl_walk *w)
{
	return w->sched;
}

int tl_walk_run(struct tl_walk *w, struct tl_trace *t)
{
	struct tl_walk_result *r = &w->r;
	const struct tl_trace_stats *rs;
	struct tl_event ev;
	uint64_t last = r->trace_start, n = 0;
	int ret;

	while ((ret = tl_trace_next(t, &ev)) == 1) {
		const char *name;

		if (ev.ts > last)
			last = ev.ts;
		if (ev.type == TL_EV_LOST) {
			/* lost data anywhere in the trace is reported, even outside the window */
			r->lost_total += (uint64_t)ev.a;
			if (ev.cpu >= 0 && ev.cpu < r->ncpus)
				r->lost_per_cpu[ev.cpu] += (uint64_t)ev.a;
		}
		/*
		 * Nothing after the window changes what is inside it, but the rest is
		 * still read: it tells the trace's true end, its losses and whether
		 * the file is complete.
		 */
		if (ev.ts <= r->win_end) {
			name = ev.name ? tl_trace_string(t, ev.name) : NULL;
			tl_sched_feed(w->sched, &ev, name);
			if (w->spans && ev.type >= TL_EV_FRAME_BEGIN)
				tl_spans_feed(w->spans, &ev, name);
		} else if (ev.type == TL_EV_FILTERED && w->o.on_event) {
			/* totals of the whole recording, at its end: the analyses scale them to the window */
			w->o.on_event(w->o.ctx, NULL, &ev);
		}
		if (w->o.progress && !(++n & 0xfffff)) {
			rs = tl_trace_stats(t);
			if (rs->file_bytes)
				w->o.progress((double)rs->bytes_read / (double)rs->file_bytes, w->o.progress_ctx);
		}
	}
	if (ret < 0)
		return -1;
	rs = tl_trace_stats(t);
	r->trace_end = last;
	if (rs->complete && rs->end.end_ns > r->trace_end)
		r->trace_end = rs->end.end_ns;
	if (rs->complete && rs->end.lost > r->lost_total) {
		/* the recorder counted losses it could not place in the stream */
		for (int c = 0; c < r->ncpus && c < rs->end.ncpus && rs->end.lost_per_cpu; c++)
			if (rs->end.lost_per_cpu[c] > r->lost_per_cpu[c])
				r->lost_per_cpu[c] = rs->end.lost_per_cpu[c];
		r->lost_total = rs->end.lost;
	}
	if (r->win_end > r->trace_end)
		r->win_end = r->trace_end;
	if (r->win_start > r->win_end)
		r->win_start = r->win_end;
	tl_sched_finish(w->sched, r->win_end);
	if (w->spans)
		tl_spans_finish(w->spans, r->win_end);
	r->sched = *tl_sched_counters(w->sched);
	if (w->spans)
		r->spans = *tl_spans_counters(w->spans);
	r->read = *rs;
	if (w->o.progress)
		w->o.progress(1.0, w->o.progress_ctx);
	return 0;
}

const struct tl_walk_result *tl_walk_result(const struct tl_walk *w)
{
	return &w->r;
}

void tl_walk_free(struct tl_walk *w)
{
	if (!w)
		return;
	tl_sched_free(w->sched);
	tl_spans_free(w->spans);
	free(w->r.lost_per_cpu);
	free(w);
}
