/*
 * export.c - the walk behind `threadlens export` (export.h): it feeds the
 * chosen format's writer and keeps the table of threads they all share.
 *
 * Invariant: a writer sees only what lies inside the window: intervals and
 * spans clipped to it (those wholly outside are dropped), events as the
 * walk applies them (it skips those outside).  UNKNOWN intervals are not
 * exported (they say nothing), nor the intervals of threads a filtered
 * recording left out (tl_thread.outsider: they have no states).
 */
#include "export/export.h"

#include <string.h>

#include "base/errors.h"
#include "export/export_int.h"

int tl_export_format_from_name(const char *name)
{
	static const char *const names[] = { "perfetto", "chrome", "csv", "sqlite" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

struct ex_thread *ex_thread_of(struct ex *x, int32_t tid)
{
	struct ex_thread *t;
	int created = 0;

	if (tid <= 0)
		return NULL;
	if (!(t = tl_tidmap_put(&x->threads, tid, &created))) {
		if (!x->failed)
			tl_error("out of memory");
		x->failed = 1;
		return NULL;
	}
	if (created) {
		t->tid = tid;
		x->n->threads++;
	}
	return t;
}

const char *ex_name_of(struct ex *x, int32_t tid, int cpu)
{
	static __thread char idle[24];
	struct tl_thread *th;
	struct ex_thread *t;

	if (tid == 0) {
		snprintf(idle, sizeof(idle), "swapper/%d", cpu < 0 ? 0 : cpu);
		return idle;
	}
	if ((th = tl_sched_thread(tl_walk_sched(x->walk), tid)) && th->name[0])
		return th->name;
	t = tl_tidmap_get(&x->threads, tid);
	return t ? t->name : "";
}

static const struct ex_writer *writer_of(int format)
{
	switch (format) {
	case TL_EXPORT_PERFETTO: return &tl_ex_perfetto;
	case TL_EXPORT_CHROME: return &tl_ex_chrome;
	case TL_EXPORT_SQLITE: return &tl_ex_sqlite;
	default: return &tl_ex_csv;
	}
}

/* Keep the thread's identity up to date in the table. */
static struct ex_thread *note_thread(struct ex *x, const struct tl_thread *th)
{
	struct ex_thread *t = ex_thread_of(x, th->tid);

	if (!t)
		return NULL;
	if (th->tgid)
		t->tgid = th->tgid;
	if (th->name[0])
		memcpy(t->name, th->name, sizeof(t->name));
	return t;
}

static void on_name(void *ctx, struct tl_thread *th)
{
	note_thread(ctx, th);
}

static void on_event(void *ctx, struct tl_thread *th, const struct tl_event *ev)
{
	struct ex *x = ctx;

	if (th)
		note_thread(x, th);
	if (!x->failed && writer_of(x->o->format)->event)
		writer_of(x->o->format)->event(x, th, ev);
}

static void on_interval(void *ctx, struct tl_thread *th, const struct tl_interval *in)
{
	struct ex *x = ctx;
	struct tl_interval iv = *in;
	struct ex_thread *t;

	if (th->outsider || (iv.state == TL_ST_UNKNOWN && !writer_of(x->o->format)->want_unknown))
		return;
	if (iv.start < x->run->win_start)
		iv.start = x->run->win_start;
	if (iv.end > x->run->win_end)
		iv.end = x->run->win_end;
	if (iv.end <= iv.start || !(t = note_thread(x, th)))
		return;
	t->state_ns[iv.state] += iv.end - iv.start;
	if (!t->first || iv.start < t->first)
		t->first = iv.start;
	if (iv.end > t->last)
		t->last = iv.end;
	x->n->intervals++;
	if (!x->failed && writer_of(x->o->format)->interval)
		writer_of(x->o->format)->interval(x, t, &iv);
}

static void on_cpu_interval(void *ctx, const struct tl_cpu_interval *in)
{
	struct ex *x = ctx;
	struct tl_cpu_interval iv = *in;

	if (iv.start < x->run->win_start)
		iv.start = x->run->win_start;
	if (iv.end > x->run->win_end)
		iv.end = x->run->win_end;
	if (iv.end <= iv.start || x->failed || !writer_of(x->o->format)->cpu_interval)
		return;
	writer_of(x->o->format)->cpu_interval(x, &iv);
}

static void on_span(void *ctx, const struct tl_span *in, const char *name)
{
	struct ex *x = ctx;
	struct tl_span sp = *in;

	if (sp.kind > TL_SPAN_FUNC)
		return;
	if (sp.begin < x->run->win_start)
		sp.begin = x->run->win_start;
	if (sp.end > x->run->win_end)
		sp.end = x->run->win_end;
	if (sp.end < sp.begin)
		return;
	x->n->spans++;
	if (!x->failed && writer_of(x->o->format)->span)
		writer_of(x->o->format)->span(x, &sp, name ? name : "");
}

int tl_export(struct tl_run *run, const struct tl_export_opts *o, struct tl_export_counts *n)
{
	const struct ex_writer *wr = writer_of(o->format);
	struct tl_walk_opts wo = { 0 };
	struct ex x = { .run = run, .o = o, .n = n };
	int rc = -1;

	memset(n, 0, sizeof(*n));
	if (tl_tidmap_init(&x.threads, sizeof(struct ex_thread)) < 0)
		return tl_error("out of memory");
	if (tl_run_start(run) < 0)
		goto out;
	tl_run_walk_opts(run, &wo);
	wo.ctx = &x;
	wo.on_event = on_event;
	wo.on_interval = on_interval;
	wo.on_cpu_interval = on_cpu_interval;
	wo.on_name = on_name;
	wo.on_span = on_span;
	if (!(x.walk = tl_walk_new(&wo, &run->info)))
		goto out;
	/* the writers clip to the window while the walk runs: take the one the walk set up
	 * (the run's own summary comes only after the walk) */
	run->trace_start = tl_walk_result(x.walk)->trace_start;
	run->win_start = tl_walk_result(x.walk)->win_start;
	run->win_end = tl_walk_result(x.walk)->win_end;
	if (wr->begin(&x) < 0)
		goto out;
	if (tl_walk_run(x.walk, run->trace) < 0 || tl_run_keep(run, tl_walk_result(x.walk)) < 0)
		goto out;
	if (x.failed || wr->end(&x) < 0)
		goto out;
	rc = 0;
out:
	if (x.walk || x.w)
		wr->release(&x, rc < 0);
	tl_walk_free(x.walk);
	tl_tidmap_release(&x.threads);
	return rc;
}
