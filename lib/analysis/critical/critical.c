/*
 * critical.c - the critical path of frames (critical.h).
 *
 * Invariants: the intervals kept are sorted by (tid, start) before any
 * walk; within one thread they do not overlap (the state machine closes
 * one before it opens the next), so the one holding an instant is found by
 * binary search.  The path is built from the frame's end backwards, each
 * stretch [from, to) below the previous one, so it covers [begin, end)
 * exactly once.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/critical/critical.h"
#include "base/errors.h"
#include "base/grow.h"
#include "timeline/walk.h"

struct frame_rec {
	int64_t id;
	uint64_t begin, end;
	int32_t ended_by;
	int before; /* began before the window: not one of its frames (frames.h does the same) */
};

struct kept {
	int32_t tid;
	struct tl_interval iv;
};

struct name_rec {
	int32_t tid;
	char name[TL_NAME_MAX];
};

struct pass {
	const struct tl_walk_result *win; /* the walk's window (win_start, win_end) */
	/* first pass */
	struct frame_rec *frames;
	size_t nframes, cap;
	int32_t life_tid;     /* the thread whose life may be the path, 0 none */
	uint32_t life_serial; /* its first instance in the trace */
	uint64_t life_begin, life_end;
	int life_seen, life_over; /* an interval of it seen; it exited (ZOMBIE) */
	/* second pass */
	const struct tl_crit_frame *want;
	size_t nwant;
	struct kept *iv;
	size_t niv, ivcap;
	struct name_rec *names;
	size_t nnames, namecap;
	int oom;
	/* the walk of one frame */
	struct tl_crit_frame *f;
	size_t pathcap;
};

static void on_frame_event(void *ctx, struct tl_thread *th, const struct tl_event *ev)
{
	struct pass *p = ctx;

	if (ev->type == TL_EV_FRAME_BEGIN) {
		for (size_t i = p->nframes; i-- > 0;)
			if (p->frames[i].id == ev->a)
				return; /* the first begin of an id counts */
		if (TL_GROW(p->frames, p->cap, p->nframes + 1) < 0) {
			p->oom = 1;
			return;
		}
		p->frames[p->nframes++] = (struct frame_rec){ ev->a, ev->ts, 0, 0, ev->ts < p->win->win_start };
	} else if (ev->type == TL_EV_FRAME_END) {
		for (size_t i = p->nframes; i-- > 0;) /* frames end near where they began: search from the newest */
			if (p->frames[i].id == ev->a) {
				if (!p->frames[i].end && ev->ts >= p->frames[i].begin) {
					p->frames[i].end = ev->ts;
					p->frames[i].ended_by = ev->tid;
				}
				return;
			}
	}
}

/* The life of p->life_tid: from its first interval to its exit or its last instant. */
static void on_life_interval(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
{
	struct pass *p = ctx;
	uint64_t from = iv->start > p->win->win_start ? iv->start : p->win->win_start;
	uint64_t to = iv->end < p->win->win_end ? iv->end : p->win->win_end;

	/* intervals come unclipped (walk.h) */
	if (th->tid != p->life_tid || p->life_over || to <= from || (p->life_seen && th->serial != p->life_serial))
		return;
	if (!p->life_seen) {
		p->life_seen = 1;
		p->life_serial = th->serial;
		p->life_begin = from;
	}
	if (iv->state == TL_ST_ZOMBIE) {
		p->life_end = from;
		p->life_over = 1;
	} else {
		p->life_end = to;
	}
}

static void remember_name(struct pass *p, const struct tl_thread *th)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (p->names[i].tid == th->tid) {
			memcpy(p->names[i].name, th->name, TL_NAME_MAX);
			return;
		}
	if (TL_GROW(p->names, p->namecap, p->nnames + 1) < 0) {
		p->oom = 1;
		return;
	}
	p->names[p->nnames].tid = th->tid;
	memcpy(p->names[p->nnames++].name, th->name, TL_NAME_MAX);
}

static void on_keep_interval(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
{
	struct pass *p = ctx;

	for (size_t i = 0; i < p->nwant; i++)
		if (iv->end > p->want[i].begin && iv->start < p->want[i].end) {
			if (TL_GROW(p->iv, p->ivcap, p->niv + 1) < 0) {
				p->oom = 1;
				return;
			}
			p->iv[p->niv++] = (struct kept){ th->tid, *iv };
			remember_name(p, th);
			return;
		}
}

static int cmp_kept(const void *x, const void *y)
{
	const struct kept *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->iv.start < b->iv.start ? -1 : a->iv.start > b->iv.start;
}

/* The interval of tid that holds instant t (start < t <= end), or NULL. */
static const struct tl_interval *find(const struct pass *p, int32_t tid, uint64_t t)
{
	size_t lo = 0, hi = p->niv;

	while (lo < hi) { /* the first kept after (tid, t) */
		size_t mid = (lo + hi) / 2;
		const struct kept *k = &p->iv[mid];

		if (k->tid < tid || (k->tid == tid && k->iv.start < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || p->iv[lo - 1].tid != tid || p->iv[lo - 1].iv.end < t)
		return NULL;
	return &p->iv[lo - 1].iv;
}

static const char *name_of(const struct pass *p, int32_t tid)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (p->names[i].tid == tid)
			return p->names[i].name;
	return "";
}

/* Add [from, to) to the path (latest first), merging with the stretch before it. */
static void add(struct pass *p, int32_t tid, unsigned state, uint64_t from, uint64_t to, int32_t by)
{
	struct tl_crit_frame *f = p->f;
	struct tl_crit_seg *s;

	if (to <= from)
		return;
	if (f->npath) {
		s = &f->path[f->npath - 1];
		if (s->tid == tid && s->state == state && s->by == by && s->from == to) {
			s->from = from;
			return;
		}
	}
	if (TL_GROW(f->path, p->pathcap, f->npath + 1) < 0) {
		p->oom = 1;
		return;
	}
	f->path[f->npath++] = (struct tl_crit_seg){ from, to, tid, (uint16_t)state, by };
}

/*
 * Walk tid back from t down to lower.  Returns -1, having added nothing,
 * when nothing is known of tid at t (its caller keeps the time).
 */
static int follow(struct pass *p, int32_t tid, uint64_t t, uint64_t lower, int depth)
{
	int first = 1;

	while (t > lower) {
		const struct tl_interval *iv = find(p, tid, t);
		uint64_t a;

		if (!iv) {
			if (first)
				return -1;
			add(p, tid, TL_ST_UNKNOWN, lower, t, 0);
			return 0;
		}
		first = 0;
		a = iv->start > lower ? iv->start : lower;
		if (tl_state_is_asleep(iv->state) && iv->by > 0 && depth < TL_CRIT_MAX_DEPTH &&
		    follow(p, iv->by, t, a, depth + 1) == 0) {
			/* the sleep is what its waker did until the wakeup */
		} else {
			add(p, tid, iv->state, a, t, iv->by);
		}
		t = a;
	}
	return 0;
}

static int cmp_part(const void *x, const void *y)
{
	const struct tl_crit_part *a = x, *b = y;

	return a->ns > b->ns ? -1 : a->ns < b->ns;
}

/* Sum the path per (thread, state); `by` is the one of the longest stretch. */
static int sum_parts(struct pass *p, struct tl_crit_frame *f)
{
	uint64_t *longest = calloc(f->npath ? f->npath : 1, sizeof(*longest));

	f->parts = calloc(f->npath ? f->npath : 1, sizeof(*f->parts));
	if (!f->parts || !longest) {
		free(longest);
		return -1;
	}
	for (size_t i = 0; i < f->npath; i++) {
		const struct tl_crit_seg *s = &f->path[i];
		struct tl_crit_part *x = NULL;
		size_t k;

		for (k = 0; k < f->nparts && !x; k++)
			if (f->parts[k].tid == s->tid && f->parts[k].state == s->state)
				x = &f->parts[k];
		if (!x) {
			k = f->nparts++;
			x = &f->parts[k];
			x->tid = s->tid;
			x->state = s->state;
			snprintf(x->name, sizeof(x->name), "%s", name_of(p, s->tid));
		} else {
			k--;
		}
		x->ns += s->to - s->from;
		if (s->to - s->from > longest[k]) {
			longest[k] = s->to - s->from;
			x->by = s->by;
			snprintf(x->by_name, sizeof(x->by_name), "%s", s->by > 0 ? name_of(p, s->by) : "");
		}
	}
	free(longest);
	if (f->nparts > 1)
		qsort(f->parts, f->nparts, sizeof(*f->parts), cmp_part);
	return 0;
}

static int cmp_latency(const void *x, const void *y)
{
	const struct frame_rec *a = x, *b = y;
	uint64_t la = a->end - a->begin, lb = b->end - b->begin;

	if (la != lb)
		return la > lb ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int walk(struct tl_run *run, struct pass *p, int second)
{
	struct tl_walk_opts wo = { 0 };
	struct tl_walk *w;
	int rc;

	tl_run_walk_opts(run, &wo);
	wo.ctx = p;
	if (second) {
		wo.on_interval = on_keep_interval;
	} else {
		wo.on_event = on_frame_event;
		wo.on_interval = p->life_tid ? on_life_interval : NULL;
	}
	if (!(w = tl_walk_new(&wo, &run->info)))
		return -1;
	p->win = tl_walk_result(w);
	rc = tl_walk_run(w, run->trace);
	if (rc == 0 && !second)
		rc = tl_run_keep(run, tl_walk_result(w));
	tl_walk_free(w);
	if (rc == 0 && p->oom)
		rc = tl_error("out of memory while following the frames");
	return rc;
}

/* The frames asked for, from the first pass, into out->frames (begin, end, ended_by). */
static int choose(struct pass *p, const struct tl_crit_opts *o, struct tl_crit_result *out)
{
	size_t n = 0, want = o->worst ? o->worst : 3;

	for (size_t i = 0; i < p->nframes; i++)
		if (p->frames[i].end && !p->frames[i].before)
			p->frames[n++] = p->frames[i];
	out->frames_seen = n;
	if (o->tid > 0 || (o->frame < 0 && !n && p->life_tid)) {
		if (!p->life_seen || p->life_end <= p->life_begin)
			return o->tid > 0
			               ? tl_error("no thread %d in the trace's window", (int)o->tid)
			               : tl_error(
			                         "no complete frames in the trace's window, and the recorded command's "
			                         "thread %d is not in it (--tid TID: a thread's critical path)",
			                         (int)p->life_tid);
		if (TL_GROW(p->frames, p->cap, 1) < 0)
			return tl_error("out of memory");
		p->frames[0] = (struct frame_rec){ -1, p->life_begin, p->life_end, p->life_tid, 0 };
		out->thread_scope = 1;
		n = 1;
		goto found;
	}
	if (o->frame >= 0) {
		for (size_t i = 0; i < n; i++)
			if (p->frames[i].id == o->frame) {
				p->frames[0] = p->frames[i];
				n = 1;
				goto found;
			}
		return tl_error("no complete frame %lld in the trace's window (%zu complete frames)",
		                (long long)o->frame, n);
	}
	if (!n)
		return tl_error("no complete frames in the trace's window (mark them with tl_frame_begin/end, "
		                "or --tid TID: a thread's critical path)");
	qsort(p->frames, n, sizeof(*p->frames), cmp_latency);
	n = n < want ? n : want;
found:
	if (!(out->frames = calloc(n, sizeof(*out->frames))))
		return tl_error("out of memory");
	for (size_t i = 0; i < n; i++) {
		out->frames[i].id = p->frames[i].id;
		out->frames[i].begin = p->frames[i].begin;
		out->frames[i].end = p->frames[i].end;
		out->frames[i].ended_by = p->frames[i].ended_by;
	}
	out->n = n;
	return 0;
}

int tl_crit_analyze(struct tl_run *run, const struct tl_crit_opts *o, struct tl_crit_result *out)
{
	struct pass p = { 0 };
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->run = run;
	if (tl_run_start(run) < 0)
		goto done;
	/* without frames, the recorded command's main thread */
	p.life_tid = o->tid > 0 ? o->tid
	             : o->frame < 0 && run->info.target_mode == TL_TARGET_COMMAND && run->info.ntargets
	                     ? run->info.targets[0]
	                     : 0;
	if (walk(run, &p, 0) < 0 || choose(&p, o, out) < 0)
		goto done;
	p.want = out->frames;
	p.nwant = out->n;
	if (tl_run_reopen(run) < 0 || walk(run, &p, 1) < 0)
		goto done;
	if (p.niv > 1)
		qsort(p.iv, p.niv, sizeof(*p.iv), cmp_kept);
	for (size_t i = 0; i < out->n; i++) {
		struct tl_crit_frame *f = &out->frames[i];

		p.f = f;
		p.pathcap = 0;
		snprintf(f->ended_by_name, sizeof(f->ended_by_name), "%s", name_of(&p, f->ended_by));
		if (follow(&p, f->ended_by, f->end, f->begin, 0) < 0)
			add(&p, f->ended_by, TL_ST_UNKNOWN, f->begin, f->end, 0);
		if (p.oom || sum_parts(&p, f) < 0) {
			tl_error("out of memory");
			goto done;
		}
	}
	rc = 0;
done:
	free(p.frames);
	free(p.iv);
	free(p.names);
	if (rc)
		tl_crit_release(out);
	return rc;
}

void tl_crit_release(struct tl_crit_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->frames[i].path);
		free(r->frames[i].parts);
	}
	free(r->frames);
	r->frames = NULL;
	r->n = 0;
}
