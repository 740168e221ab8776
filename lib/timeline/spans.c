/*
 * spans.c - spans from markers, probes and state intervals (see spans.h).
 *
 * Each thread has a stack of open spans (regions, tasks and probed
 * functions share it, so their nesting is seen whatever their kinds).  An
 * END closes the innermost open span of its kind and name; spans above it
 * that never ended are closed with it, marked incomplete.  Frames live in
 * their own table, keyed by frame id, because the thread that ends a frame
 * is often not the one that began it.
 */
#include "timeline/spans.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"

struct open_span {
	uint64_t begin, id;
	int64_t frame;
	const char *name_str;
	uint32_t name;
	uint16_t kind;
	int16_t cpu;
};

struct thread_spans {
	int depth;
	uint64_t burst_begin; /* 0: not on a CPU */
	int16_t burst_cpu;
	struct open_span stack[TL_SPAN_MAX_DEPTH];
};

struct slot {
	int32_t tid; /* the tidmap key */
	struct thread_spans *t;
};

struct open_frame {
	int64_t id;
	uint64_t begin, span_id;
	int32_t tid;
};

struct tl_spans {
	struct tl_spans_opts o;
	struct tl_span_counters n;
	struct tl_tidmap threads;
	struct open_frame *frames;
	size_t nframes, capframes;
	uint64_t next_id;
};

static const char *const kind_names[TL_SPAN__COUNT] = {
	[TL_SPAN_FRAME] = "frame",   [TL_SPAN_REGION] = "region", [TL_SPAN_TASK] = "task",
	[TL_SPAN_FUNC] = "function", [TL_SPAN_BURST] = "burst",   [TL_SPAN_LATENCY] = "latency",
};

const char *tl_span_kind_name(unsigned kind)
{
	return kind < TL_SPAN__COUNT ? kind_names[kind] : "?";
}

static void emit(struct tl_spans *s, const struct tl_span *sp, const char *name)
{
	s->n.spans[sp->kind]++;
	if (!sp->complete)
		s->n.incomplete++;
	if (s->o.on_span)
		s->o.on_span(s->o.ctx, sp, name);
}

static struct thread_spans *thread_of(struct tl_spans *s, int32_t tid)
{
	struct slot *sl = tl_tidmap_put(&s->threads, tid, NULL);

	if (!sl)
		return NULL;
	if (!sl->t)
		sl->t = calloc(1, sizeof(*sl->t));
	return sl->t;
}

/* Close the stack of thread tid down to (and including) level `to`. */
static void close_to(struct tl_spans *s, int32_t tid, struct thread_spans *t, int to, uint64_t end, int complete)
{
	while (t->depth > to) {
		struct open_span *o = &t->stack[--t->depth];
		struct tl_span sp = { 0 };
		sp.begin = o->begin;
		sp.end = end < o->begin ? o->begin : end;
		sp.id = o->id;
		sp.parent = t->depth ? t->stack[t->depth - 1].id : 0;
		sp.frame = o->frame;
		sp.tid = tid;
		sp.name = o->name;
		sp.kind = o->kind;
		sp.depth = (uint16_t)t->depth;
		sp.cpu = o->cpu;
		/* only the span the END named ended properly */
		sp.complete = (uint8_t)(complete && t->depth == to);
		emit(s, &sp, o->name_str ? o->name_str : "");
	}
}

static void begin(struct tl_spans *s, const struct tl_event *ev, unsigned kind, const char *name)
{
	struct thread_spans *t = thread_of(s, ev->tid);
	struct open_span *o;

	if (!t)
		return;
	if (t->depth >= TL_SPAN_MAX_DEPTH) {
		s->n.too_deep++;
		return;
	}
	o = &t->stack[t->depth++];
	o->begin = ev->ts;
	o->id = ++s->next_id;
	o->frame = kind == TL_SPAN_FUNC ? -1 : ev->a;
	o->name = ev->name;
	o->name_str = name;
	o->kind = (uint16_t)kind;
	o->cpu = kind == TL_SPAN_FUNC ? ev->cpu : -1;
}

static void end(struct tl_spans *s, const struct tl_event *ev, unsigned kind)
{
	struct thread_spans *t = thread_of(s, ev->tid);
	int i;

	if (!t)
		return;
	for (i = t->depth - 1; i >= 0; i--)
		if (t->stack[i].kind == kind && t->stack[i].name == ev->name)
			break;
	if (i < 0) {
		s->n.unmatched_ends++;
		return;
	}
	if (i != t->depth - 1)
		s->n.mismatched_ends++;
	close_to(s, ev->tid, t, i, ev->ts, 1);
}

static struct open_frame *frame_find(struct tl_spans *s, int64_t id)
{
	for (size_t i = 0; i < s->nframes; i++)
		if (s->frames[i].id == id)
			return &s->frames[i];
	return NULL;
}

static void frame_begin(struct tl_spans *s, const struct tl_event *ev)
{
	struct open_frame *f = frame_find(s, ev->a);

	if (f)
		return; /* begun already: the first begin counts */
	if (TL_GROW(s->frames, s->capframes, s->nframes + 1) < 0)
		return;
	f = &s->frames[s->nframes++];
	f->id = ev->a;
	f->begin = ev->ts;
	f->tid = ev->tid;
	f->span_id = ++s->next_id;
}

static void frame_close(struct tl_spans *s, struct open_frame *f, uint64_t at, int complete)
{
	struct tl_span sp = { 0 };

	sp.begin = f->begin;
	sp.end = at < f->begin ? f->begin : at;
	sp.id = f->span_id;
	sp.frame = f->id;
	sp.tid = f->tid;
	sp.kind = TL_SPAN_FRAME;
	sp.cpu = -1;
	sp.complete = (uint8_t)complete;
	*f = s->frames[--s->nframes]; /* order of open frames does not matter */
	emit(s, &sp, "frame");
}

/* An inlined copy's entry (TL_EVF_INLINED): one call of `name`, without a duration. */
static void count_inlined(struct tl_span_counters *n, const char *name)
{
	unsigned i;

	n->inlined_calls++;
	if (!name)
		return;
	for (i = 0; i < n->ninlined && strncmp(n->inlined[i].name, name, sizeof(n->inlined[i].name) - 1); i++)
		;
	if (i == n->ninlined) {
		if (i == TL_SPAN_INLINED_MAX)
			return;
		snprintf(n->inlined[n->ninlined++].name, sizeof(n->inlined[i].name), "%s", name);
	}
	n->inlined[i].calls++;
}

void tl_spans_feed(struct tl_spans *s, const struct tl_event *ev, const char *name)
{
	struct open_frame *f;

	switch (ev->type) {
	case TL_EV_FRAME_BEGIN: frame_begin(s, ev); break;
	case TL_EV_FRAME_END:
		f = frame_find(s, ev->a);
		if (f)
			frame_close(s, f, ev->ts, 1);
		else
			s->n.unmatched_ends++;
		break;
	case TL_EV_REGION_BEGIN: begin(s, ev, TL_SPAN_REGION, name); break;
	case TL_EV_TASK_BEGIN: begin(s, ev, TL_SPAN_TASK, name); break;
	case TL_EV_FUNC_ENTRY:
		if (ev->flags & TL_EVF_INLINED)
			count_inlined(&s->n, name); /* no exit will come: a call without a duration */
		else
			begin(s, ev, TL_SPAN_FUNC, name);
		break;
	case TL_EV_REGION_END: end(s, ev, TL_SPAN_REGION); break;
	case TL_EV_TASK_END: end(s, ev, TL_SPAN_TASK); break;
	case TL_EV_FUNC_EXIT: end(s, ev, TL_SPAN_FUNC); break;
	case TL_EV_MARKS_LOST: s->n.marks_lost += (uint64_t)ev->a; break;
	default: break;
	}
}

uint64_t tl_span_inlined_calls(const struct tl_span_counters *n, const char *name)
{
	for (unsigned i = 0; i < n->ninlined && name; i++)
		if (!strncmp(n->inlined[i].name, name, sizeof(n->inlined[i].name) - 1))
			return n->inlined[i].calls;
	return 0;
}

void tl_spans_interval(struct tl_spans *s, const struct tl_thread *th, const struct tl_interval *iv)
{
	struct tl_span sp = { 0 };
	struct thread_spans *t;

	if (!s->o.want_bursts && !s->o.want_latencies)
		return;
	sp.tid = th->tid;
	sp.frame = -1;
	sp.complete = iv->next < TL_ST__COUNT;
	if (s->o.want_latencies && iv->state == TL_ST_RUNNABLE && iv->inferred_end && tl_state_is_oncpu(iv->next)) {
		s->n.latencies_inferred++; /* its length is an estimate, not a latency */
	} else if (s->o.want_latencies && iv->state == TL_ST_RUNNABLE &&
	           (tl_state_is_oncpu(iv->next) || iv->next == TL_ST__COUNT)) {
		sp.begin = iv->start;
		sp.end = iv->end;
		sp.id = ++s->next_id;
		sp.kind = TL_SPAN_LATENCY;
		sp.cpu = iv->cpu;
		emit(s, &sp, "@latency");
	}
	if (!s->o.want_bursts || !tl_state_is_oncpu(iv->state) || !(t = thread_of(s, th->tid)))
		return;
	if (!t->burst_begin) {
		t->burst_begin = iv->start ? iv->start : 1;
		t->burst_cpu = iv->cpu;
	}
	if (!tl_state_is_oncpu(iv->next)) {
		sp.begin = t->burst_begin;
		sp.end = iv->end;
		sp.id = ++s->next_id;
		sp.kind = TL_SPAN_BURST;
		sp.cpu = t->burst_cpu;
		t->burst_begin = 0;
		emit(s, &sp, "@burst");
	}
}

struct tl_spans *tl_spans_new(const struct tl_spans_opts *o)
{
	struct tl_spans *s = calloc(1, sizeof(*s));

	if (!s || tl_tidmap_init(&s->threads, sizeof(struct slot)) < 0) {
		free(s);
		tl_error("out of memory");
		return NULL;
	}
	s->o = *o;
	return s;
}

void tl_spans_finish(struct tl_spans *s, uint64_t at)
{
	size_t pos = 0;
	struct slot *sl;

	while ((sl = tl_tidmap_next(&s->threads, &pos)))
		if (sl->t)
			close_to(s, sl->tid, sl->t, 0, at, 0);
	while (s->nframes)
		frame_close(s, &s->frames[s->nframes - 1], at, 0);
}

const struct tl_span_counters *tl_spans_counters(const struct tl_spans *s)
{
	return &s->n;
}

void tl_spans_free(struct tl_spans *s)
{
	size_t pos = 0;
	struct slot *sl;

	if (!s)
		return;
	while ((sl = tl_tidmap_next(&s->threads, &pos)))
		free(sl->t);
	tl_tidmap_release(&s->threads);
	free(s->frames);
	free(s);
}
