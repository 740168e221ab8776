/*
 * frames.c - tl_frames_analyze(): frames and steps from the user markers,
 * as callbacks of one tl_walk (see frames.h and docs/FRAMES.md).  The
 * result side (step table, sums, kept frames) is frames_sum.c.
 *
 * Per open frame we keep its steps so far and one entry per thread that
 * may have worked on it; who will work on a frame is not known when it
 * begins, so every live thread of the beginner's process gets an entry
 * then.  An entry sums the thread's state intervals clipped to its part of
 * the frame, [from, to): from is the frame's begin (its birth if it was
 * born during the frame, its first step's begin if the analysis did not
 * know the thread at the begin), to is the frame's end or the thread's
 * death.  Only closed intervals are summed: the state machine hands them
 * over final, while the open interval of a thread may still be revised
 * (a switch-in the kernel dropped and a later event revealed moves it
 * back), so differencing the cumulative totals at the two instants could
 * count a provisional state.  An entry is done when an interval reaching
 * `to` has closed.  At a frame's end, entries of threads that did nothing
 * for it are dropped, and a frame that ended more than SETTLE_NS ago
 * stops waiting (the open interval is taken as it stands), so that a
 * thread blocked for the rest of the run does not hold frames in memory.
 *
 * A frame ends at its last FRAME_END: after an end it takes further ends
 * for END_GRACE (frame_ending); meanwhile its entries count past the end
 * into `tail`, which a later end folds into v[].  Then it is final
 * (frame_final), and entries that did nothing for it are dropped.
 *
 * A frame is finished when it is final, every step begun in it ended (a step
 * may outlast the frame's end: the last stage often calls tl_frame_end
 * inside its region) and every entry is done.  Then it is summed into the
 * result, handed to on_frame and forgotten, so memory is bounded by the
 * frames open at once.  Frames that began before the window get a light
 * record (so that their end is not taken for an end without a begin) and
 * are dropped at their end.
 *
 * Invariants: an entry that is not done has a live thread (t != NULL) and
 * appears once in that thread's pend list; a frame's `pending` counts its
 * entries that are not done; a done entry's v[] sums to to - from.
 */
#include "analysis/frames/frames.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "analysis/frames/frames_int.h"
#include "base/tidmap.h"
#include "timeline/walk.h"

#define NO_ROW TL_FRAMES_NO_ROW
#define OPEN_END UINT64_MAX
#define DEFAULT_INTERVAL_NS 1000000000ull
/*
 * How long after its end a frame waits for the intervals that cover it to
 * close.  Revisions of an open interval come from the next events of its
 * CPU, well within this; a thread that then stays in one state for long
 * (blocked for the rest of the run) must not hold frames in memory.
 */
#define SETTLE_NS 1000000000ull
/*
 * A frame ends at its last tl_frame_end: several threads may end it (two
 * sinks of one pipeline).  After an end, a frame takes further ends for
 * its latency so far (at least 1 ms, at most 100 ms), or until its id
 * begins again; until then its entries keep counting past the end into
 * `tail`, which a later end folds in.
 */
#define END_GRACE_MIN_NS 1000000ull
#define END_GRACE_MAX_NS 100000000ull

struct oframe;

/* An entry of a thread that still counts: frame and index in its ents. */
struct pend {
	struct oframe *f;
	size_t idx;
};

/* A live thread known to the analysis; hangs on tl_thread.user. */
struct fthr {
	struct tl_thread *th;
	uint32_t row;
	size_t reg; /* its index in pass.live */
	struct pend *pend;
	size_t npend, cappend;
};

/* One thread's share of one open frame. */
struct entry {
	struct fthr *t; /* while counting; NULL once done */
	int32_t tid;
	uint32_t row;
	uint8_t roles, done;
	uint8_t reached;   /* an interval reaching `to` was counted */
	uint64_t from, to; /* to: OPEN_END until the frame ends or the thread dies */
	uint64_t v[TL_ST__COUNT];
	uint64_t tail[TL_ST__COUNT]; /* after `to`, while a later end may still move it (not final) */
};

struct oframe {
	int64_t id;
	uint64_t begin, end;
	int32_t began_by, ended_by, tgid;
	uint8_t ended, ignored;
	uint8_t final;       /* no later end is taken: entries finish at `end` */
	uint32_t open_steps; /* steps begun in it that have not ended */
	size_t pending;      /* entries not done */
	size_t nsteps, capsteps, nents, capents;
	struct tl_frame_step *steps;
	struct entry *ents;
};

/* tid -> the row of the latest thread with that tid (outlives the thread). */
struct tidrow {
	int32_t tid;
	uint32_t row;
};

struct pass {
	struct tl_frames_acc a;
	struct tl_frames_result *r;
	const struct tl_frames_opts *o;
	struct tl_trace *trace;
	struct tl_sched *sched;
	const struct tl_walk_result *w;
	struct tl_tidmap rows;
	struct fthr **live;
	size_t nlive, caplive;
	struct oframe **open;
	size_t nopen, capopen;
};

static void frame_finish(struct pass *p, struct oframe *f);

/* ---- threads ---- */

static void sync_row(struct pass *p, uint32_t row, const struct tl_thread *th)
{
	struct tl_frames_thread *ft = &p->r->threads[row];

	ft->pid = th->tgid;
	memcpy(ft->name, th->name, sizeof(ft->name));
}

/* The analysis' record of a live thread, made on first sight. */
static struct fthr *reg(struct pass *p, struct tl_thread *th)
{
	struct tl_frames_result *r = p->r;
	struct fthr *f = th->user;
	struct tidrow *tr;

	if (f)
		return f;
	if (TL_GROW(p->live, p->caplive, p->nlive + 1) || TL_GROW(r->threads, p->a.capthreads, r->nthreads + 1) ||
	    !(f = calloc(1, sizeof(*f))) || !(tr = tl_tidmap_put(&p->rows, th->tid, NULL))) {
		p->a.oom = 1;
		free(f);
		return NULL;
	}
	f->th = th;
	f->row = (uint32_t)r->nthreads++;
	f->reg = p->nlive;
	p->live[p->nlive++] = f;
	tr->row = f->row;
	memset(&r->threads[f->row], 0, sizeof(r->threads[f->row]));
	r->threads[f->row].tid = th->tid;
	sync_row(p, f->row, th);
	th->user = f;
	return f;
}

static uint32_t row_of_tid(struct pass *p, int32_t tid)
{
	struct tidrow *tr = tid > 0 ? tl_tidmap_get(&p->rows, tid) : NULL;
	return tr ? tr->row : NO_ROW;
}

/* The record of thread tid if the state machine knows it (markers do not make threads). */
static struct fthr *fthr_of_tid(struct pass *p, int32_t tid)
{
	struct tl_thread *th = tid > 0 ? tl_sched_thread(p->sched, tid) : NULL;
	return th ? reg(p, th) : NULL;
}

static int same_process(const struct oframe *f, const struct tl_thread *th)
{
	return !f->tgid || th->tgid == f->tgid;
}

/* ---- entries ---- */

static struct entry *entry_find(struct oframe *f, int32_t tid, uint32_t row)
{
	for (size_t i = 0; i < f->nents; i++) {
		struct entry *e = &f->ents[i];
		if (row != NO_ROW ? e->row == row : (e->row == NO_ROW && e->tid == tid))
			return e;
	}
	return NULL;
}

/* A new entry that counts nothing yet (done, from = to = at); NULL when out of memory. */
static struct entry *entry_add(struct pass *p, struct oframe *f, int32_t tid, uint32_t row, uint64_t at)
{
	struct entry *e;

	if (TL_GROW(f->ents, f->capents, f->nents + 1)) {
		p->a.oom = 1;
		return NULL;
	}
	e = &f->ents[f->nents++];
	memset(e, 0, sizeof(*e));
	e->tid = tid;
	e->row = row;
	e->done = 1;
	e->from = e->to = at;
	return e;
}

static void entry_done(struct oframe *f, struct entry *e)
{
	e->t = NULL;
	e->done = 1;
	f->pending--;
}

/*
 * Let entry e of frame f count thread t from `from` on, with v[] as the
 * time already counted (the closed intervals of a thread born in the
 * frame).  Nothing more to count if the frame already ended and the thread
 * has been in its current state since then.
 */
static void entry_count(struct pass *p, struct oframe *f, struct entry *e, struct fthr *t, uint64_t from)
{
	e->from = from;
	e->to = f->ended ? f->end : OPEN_END;
	if (e->to != OPEN_END && t->th->state_since >= e->to)
		return; /* stays done */
	if (TL_GROW(t->pend, t->cappend, t->npend + 1)) {
		p->a.oom = 1;
		return;
	}
	t->pend[t->npend++] = (struct pend){ .f = f, .idx = (size_t)(e - f->ents) };
	e->t = t;
	e->done = 0;
	f->pending++;
}

/* An entry for a thread born at or after the frame's begin: its whole life so far is in the frame. */
static void entry_count_born(struct pass *p, struct oframe *f, struct entry *e, struct fthr *t)
{
	memcpy(e->v, t->th->state_total, sizeof(e->v));
	entry_count(p, f, e, t, t->th->born);
}

/* Remove pend[i] of thread t (order does not matter). */
static void pend_remove(struct fthr *t, size_t i)
{
	t->pend[i] = t->pend[--t->npend];
}

/* Stop counting entry i of frame f early; with `open`, take the thread's open interval as it stands. */
static void entry_stop(struct oframe *f, size_t i, int open)
{
	struct entry *e = &f->ents[i];
	struct fthr *t = e->t;

	for (size_t k = 0; k < t->npend; k++)
		if (t->pend[k].f == f && t->pend[k].idx == i) {
			pend_remove(t, k);
			break;
		}
	if (open) {
		uint64_t lo = t->th->state_since > e->from ? t->th->state_since : e->from;
		if (e->to > lo && t->th->state < TL_ST__COUNT)
			e->v[t->th->state] += e->to - lo;
	}
	entry_done(f, e);
}

/*
 * The entry of thread tid in frame f, made if missing: a thread born
 * during the frame counts from its birth, any other from `at` (its first
 * sign of work on the frame); after the frame's end it counts nothing.
 */
static struct entry *participant(struct pass *p, struct oframe *f, int32_t tid, uint64_t at)
{
	struct fthr *t = fthr_of_tid(p, tid);
	uint32_t row = t ? t->row : row_of_tid(p, tid);
	struct entry *e = entry_find(f, tid, row);

	if (e || !(e = entry_add(p, f, tid, row, f->ended ? f->end : at)))
		return e;
	if (!t || f->ended)
		return e;
	if (t->th->born > f->begin)
		entry_count_born(p, f, e, t);
	else
		entry_count(p, f, e, t, at);
	return e;
}

/* ---- frames ---- */

/* The open (not ended) frame with this id. */
static struct oframe *frame_open(struct pass *p, int64_t id)
{
	for (size_t i = 0; i < p->nopen; i++)
		if (p->open[i]->id == id && !p->open[i]->ended)
			return p->open[i];
	return NULL;
}

/* The latest frame with this id begun at or before `at` (ended ones may wait for steps). */
static struct oframe *frame_at(struct pass *p, int64_t id, uint64_t at)
{
	struct oframe *best = NULL;

	for (size_t i = 0; i < p->nopen; i++) {
		struct oframe *f = p->open[i];
		if (f->id == id && f->begin <= at && (!best || f->begin >= best->begin))
			best = f;
	}
	return best;
}

static void frame_free(struct oframe *f)
{
	free(f->steps);
	free(f->ents);
	free(f);
}

static void frame_remove(struct pass *p, struct oframe *f)
{
	for (size_t i = 0; i < p->nopen; i++)
		if (p->open[i] == f) {
			p->open[i] = p->open[--p->nopen];
			break;
		}
	frame_free(f);
}

static void frame_maybe_finish(struct pass *p, struct oframe *f)
{
	if (f->ended && f->final && !f->open_steps && !f->pending)
		frame_finish(p, f);
}

/* How long after its last end a frame takes another end. */
static uint64_t end_grace(const struct oframe *f)
{
	uint64_t g = f->end - f->begin;

	return g < END_GRACE_MIN_NS ? END_GRACE_MIN_NS : g > END_GRACE_MAX_NS ? END_GRACE_MAX_NS : g;
}

/* The latest frame with this id that ended but still takes a later end. */
static struct oframe *frame_ending(struct pass *p, int64_t id)
{
	struct oframe *best = NULL;

	for (size_t i = 0; i < p->nopen; i++) {
		struct oframe *f = p->open[i];
		if (f->id == id && f->ended && !f->final && (!best || f->begin >= best->begin))
			best = f;
	}
	return best;
}

/*
 * No later end: each entry ends at `end`.  Threads that did nothing for
 * the frame stop counting; those whose state has not changed since the
 * end, or whose interval reaching it has closed, are done; the others
 * wait for that interval (on_interval, settle).
 */
static void frame_final(struct pass *p, struct oframe *f)
{
	f->final = 1;
	for (size_t i = 0; i < f->nents; i++) {
		struct entry *e = &f->ents[i];
		if (e->done)
			continue;
		if (!e->roles) {
			entry_stop(f, i, 0);
			e->from = e->to;
			memset(e->v, 0, sizeof(e->v));
		} else if (e->reached || e->t->th->state_since >= e->to) {
			entry_stop(f, i, 0);
		}
	}
	frame_maybe_finish(p, f);
}

static void frame_begin(struct pass *p, const struct tl_event *ev)
{
	struct tl_frames_result *r = p->r;
	struct fthr *b = fthr_of_tid(p, ev->tid);
	struct oframe *f;
	struct entry *e;

	if (frame_open(p, ev->a))
		return; /* begun already: the first begin counts (as in spans.c) */
	/* the id begins again: later ends are this frame's, not an earlier one's */
	for (size_t i = p->nopen; i-- > 0;)
		if (p->open[i]->id == ev->a && p->open[i]->ended && !p->open[i]->final)
			frame_final(p, p->open[i]);
	if (TL_GROW(p->open, p->capopen, p->nopen + 1) || !(f = calloc(1, sizeof(*f)))) {
		p->a.oom = 1;
		return;
	}
	p->open[p->nopen++] = f;
	if (p->nopen > r->max_held)
		r->max_held = p->nopen;
	f->id = ev->a;
	f->begin = ev->ts;
	f->began_by = ev->tid;
	if (ev->ts < p->w->win_start) {
		f->ignored = 1;
		return;
	}
	f->tgid = b ? b->th->tgid : 0;
	if (!r->begun || f->id < r->id_min)
		r->id_min = f->id;
	if (!r->begun || f->id > r->id_max)
		r->id_max = f->id;
	r->begun++;
	for (size_t i = 0; i < p->nlive; i++) {
		struct fthr *t = p->live[i];
		if (same_process(f, t->th) && (e = entry_add(p, f, t->th->tid, t->row, ev->ts)))
			entry_count(p, f, e, t, ev->ts);
	}
	e = participant(p, f, ev->tid, ev->ts);
	if (e)
		e->roles |= TL_FROLE_BEGAN;
}

static void frame_end(struct pass *p, const struct tl_event *ev)
{
	struct oframe *f = frame_open(p, ev->a);
	struct entry *e;

	if (!f && (f = frame_ending(p, ev->a)) && !f->ignored) {
		/*
		 * A later end of an ended frame (another thread ends it too): the
		 * frame ends here.  Its ender counts if it had an entry (every live
		 * thread of the process got one at the begin).
		 */
		struct fthr *t = fthr_of_tid(p, ev->tid);
		if ((e = entry_find(f, ev->tid, t ? t->row : row_of_tid(p, ev->tid))))
			e->roles |= TL_FROLE_ENDED;
		f->end = ev->ts;
		f->ended_by = ev->tid;
		for (size_t i = 0; i < f->nents; i++) {
			uint64_t tail = 0, base;
			e = &f->ents[i];
			if (e->done)
				continue;
			for (int s = 0; s < TL_ST__COUNT; s++) {
				e->v[s] += e->tail[s];
				tail += e->tail[s];
			}
			memset(e->tail, 0, sizeof(e->tail));
			/* the tail is [base, base + tail): within the new end, unless events came out of order */
			base = e->to > e->from ? e->to : e->from;
			e->to = base + tail > ev->ts ? base + tail : ev->ts;
			e->reached = e->to > ev->ts;
		}
		return;
	}
	if (!f) {
		if (ev->ts >= p->w->win_start)
			p->r->ends_without_begin++;
		return;
	}
	if (f->ignored) {
		frame_remove(p, f);
		return;
	}
	e = participant(p, f, ev->tid, ev->ts);
	if (e)
		e->roles |= TL_FROLE_ENDED;
	f->ended = 1;
	f->end = ev->ts;
	f->ended_by = ev->tid;
	/* Every entry now knows where it ends, for now: a later end may move it (frame_final). */
	for (size_t i = 0; i < f->nents; i++)
		if (!f->ents[i].done)
			f->ents[i].to = ev->ts;
}

/* ---- steps ---- */

static int step_wanted(const struct pass *p, const char *name)
{
	if (!p->o->steps)
		return 1;
	for (size_t i = 0; i < p->o->nsteps; i++)
		if (name && !strcmp(p->o->steps[i], name))
			return 1;
	return 0;
}

/* A REGION/TASK begin naming a frame: the thread works on it, and the frame waits for the step's end. */
static void step_begin(struct pass *p, const struct tl_event *ev)
{
	struct oframe *f;
	struct entry *e;

	if (ev->a < 0 || !(f = frame_at(p, ev->a, ev->ts)) || f->ignored)
		return;
	if (!step_wanted(p, tl_trace_string(p->trace, ev->name)))
		return;
	f->open_steps++;
	e = participant(p, f, ev->tid, ev->ts);
	if (e)
		e->roles |= TL_FROLE_STEPS;
}

static void step_span(struct pass *p, const struct tl_span *sp, const char *name)
{
	uint64_t ns = sp->end - sp->begin;
	struct tl_frames_step *s;
	struct tl_frame_step *fs = NULL;
	struct oframe *f;
	uint32_t idx;

	if (!step_wanted(p, name) || !(s = tl_frames_step_of(&p->a, sp->kind, sp->name, name, &idx)))
		return;
	tl_frames_step_ran(s, sp->tid, row_of_tid(p, sp->tid), ns);
	if (sp->frame < 0 || !(f = frame_at(p, sp->frame, sp->begin))) {
		s->unframed++;
		return;
	}
	if (f->ignored)
		return;
	for (size_t i = 0; i < f->nsteps; i++)
		if (f->steps[i].step == idx) {
			fs = &f->steps[i];
			break;
		}
	if (!fs) {
		if (TL_GROW(f->steps, f->capsteps, f->nsteps + 1)) {
			p->a.oom = 1;
			return;
		}
		fs = &f->steps[f->nsteps++];
		*fs = (struct tl_frame_step){ .step = idx, .kind = sp->kind };
	}
	fs->count++;
	fs->ns += ns;
	if (f->open_steps)
		f->open_steps--;
	frame_maybe_finish(p, f);
}

/* ---- finished frames ---- */

/* The beginner first, then by tid. */
static int cmp_fthreads(const void *pa, const void *pb)
{
	const struct tl_frame_thread *a = pa, *b = pb;
	int ab = !!(a->roles & TL_FROLE_BEGAN), bb = !!(b->roles & TL_FROLE_BEGAN);

	if (ab != bb)
		return bb - ab;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* Hand a finished frame (its threads with a role) to the result side, then forget it. */
static void frame_finish(struct pass *p, struct oframe *f)
{
	struct tl_frames_result *r = p->r;
	struct tl_frame out = { .id = f->id,
		                .begin = f->begin,
		                .end = f->end,
		                .began_by = f->began_by,
		                .ended_by = f->ended ? f->ended_by : 0,
		                .complete = f->ended };
	struct tl_frame_thread *ft = NULL;
	size_t n = 0;

	if (f->ignored) {
		frame_remove(p, f);
		return;
	}
	for (size_t i = 0; i < f->nents; i++)
		n += f->ents[i].roles != 0;
	if (n && !(ft = calloc(n, sizeof(*ft)))) {
		p->a.oom = 1;
		frame_remove(p, f);
		return;
	}
	n = 0;
	for (size_t i = 0; i < f->nents; i++) {
		const struct entry *e = &f->ents[i];
		struct tl_frame_thread *t;
		if (!e->roles)
			continue;
		t = &ft[n++];
		t->tid = e->tid;
		t->row = e->row;
		t->roles = e->roles;
		t->from = e->from;
		t->to = e->to < e->from ? e->from : e->to;
		memcpy(t->state_ns, e->v, sizeof(t->state_ns));
		if (e->row != NO_ROW)
			memcpy(t->name, r->threads[e->row].name, sizeof(t->name));
	}
	if (n > 1)
		qsort(ft, n, sizeof(*ft), cmp_fthreads);
	for (size_t i = 0; i < f->nsteps; i++)
		f->steps[i].name = r->steps[f->steps[i].step].name;
	out.threads = ft;
	out.nthreads = n;
	out.steps = f->steps;
	out.nsteps = f->nsteps;
	tl_frames_add(&p->a, &out);
	free(ft);
	frame_remove(p, f);
}

/* ---- walk callbacks ---- */

/* Frames that ended long ago stop waiting for their threads' intervals (see SETTLE_NS). */
static void settle(struct pass *p, uint64_t now)
{
	for (size_t i = p->nopen; i-- > 0;) { /* backwards: a finished frame is replaced by the last */
		struct oframe *f = p->open[i];
		if (f->ended && !f->final && f->end + end_grace(f) <= now) {
			frame_final(p, f);
			continue; /* it may be gone */
		}
		if (!f->ended || !f->final || !f->pending || f->end + SETTLE_NS > now)
			continue;
		for (size_t k = 0; k < f->nents; k++)
			if (!f->ents[k].done)
				entry_stop(f, k, 1);
		frame_maybe_finish(p, f);
	}
}

static void on_event(void *ctx, struct tl_thread *th, const struct tl_event *ev)
{
	struct pass *p = ctx;
	struct fthr *t = th ? reg(p, th) : NULL;

	/*
	 * A thread named before its fork is born again at the fork, without an
	 * interval for the time before: its entries count from the birth.
	 */
	if (ev->type == TL_EV_FORK && t)
		for (size_t i = 0; i < t->npend; i++) {
			struct entry *e = &t->pend[i].f->ents[t->pend[i].idx];
			if (e->from < th->born) /* past `to` only while a later end may still move it */
				e->from = th->born < e->to || !t->pend[i].f->final ? th->born : e->to;
		}
	if (ev->type == TL_EV_FRAME_BEGIN || ev->type == TL_EV_FRAME_END)
		settle(p, ev->ts);
	switch (ev->type) {
	case TL_EV_FRAME_BEGIN: frame_begin(p, ev); break;
	case TL_EV_FRAME_END: frame_end(p, ev); break;
	case TL_EV_REGION_BEGIN:
	case TL_EV_TASK_BEGIN: step_begin(p, ev); break;
	default: break;
	}
}

/* A closed interval: add its part inside each of the thread's counting entries. */
static void on_interval(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
{
	struct pass *p = ctx;
	struct fthr *t = th->user;

	if (!t)
		return;
	for (size_t i = t->npend; i-- > 0;) { /* backwards: removal moves the last one here */
		struct oframe *f = t->pend[i].f;
		struct entry *e = &f->ents[t->pend[i].idx];
		uint64_t lo = iv->start > e->from ? iv->start : e->from;
		uint64_t hi = iv->end < e->to ? iv->end : e->to;
		if (hi > lo && iv->state < TL_ST__COUNT)
			e->v[iv->state] += hi - lo;
		if (e->to == OPEN_END || iv->end < e->to)
			continue;
		e->reached = 1;
		if (!f->final) {
			/* past the end, which a later end may still move: kept apart */
			lo = iv->start > e->to ? iv->start : e->to;
			lo = lo > e->from ? lo : e->from;
			if (iv->end > lo && iv->state < TL_ST__COUNT)
				e->tail[iv->state] += iv->end - lo;
			continue;
		}
		pend_remove(t, i);
		entry_done(f, e);
		frame_maybe_finish(p, f);
	}
}

static void on_name(void *ctx, struct tl_thread *th)
{
	struct pass *p = ctx;
	struct fthr *f = reg(p, th);

	if (f)
		sync_row(p, f->row, th);
}

/* After its last interval: its entries end with its life. */
static void on_thread_end(void *ctx, struct tl_thread *th)
{
	struct pass *p = ctx;
	struct fthr *t = th->user;
	struct entry *e;

	if (!t)
		return;
	sync_row(p, t->row, th);
	while (t->npend) {
		struct pend pd = t->pend[--t->npend];
		e = &pd.f->ents[pd.idx];
		if (e->to > th->died)
			e->to = th->died;
		entry_done(pd.f, e);
		frame_maybe_finish(p, pd.f);
	}
	p->live[t->reg] = p->live[--p->nlive];
	p->live[t->reg]->reg = t->reg;
	th->user = NULL;
	free(t->pend);
	free(t);
}

static void on_span(void *ctx, const struct tl_span *sp, const char *name)
{
	if (sp->kind == TL_SPAN_REGION || sp->kind == TL_SPAN_TASK)
		step_span(ctx, sp, name);
}

/* ---- the pass ---- */

/* What is still open at the end: unfinished frames, and ended ones whose steps never closed. */
static void finish(struct pass *p)
{
	while (p->nopen) {
		struct oframe *f = p->open[p->nopen - 1];
		if (!f->ended)
			f->end = p->r->run->win_end > f->begin ? p->r->run->win_end : f->begin;
		/* every thread has ended, so every entry is done; no end is to come */
		f->final = 1;
		f->pending = 0;
		frame_finish(p, f);
	}
	tl_frames_totals(&p->a);
}

static void pass_release(struct pass *p)
{
	for (size_t i = 0; i < p->nopen; i++)
		frame_free(p->open[i]);
	free(p->open);
	for (size_t i = 0; i < p->nlive; i++) {
		p->live[i]->th->user = NULL;
		free(p->live[i]->pend);
		free(p->live[i]);
	}
	free(p->live);
	tl_frames_acc_release(&p->a);
	tl_tidmap_release(&p->rows);
}

int tl_frames_analyze(struct tl_run *run, const struct tl_frames_opts *o, struct tl_frames_result *r)
{
	const struct tl_walk_result *w;
	struct tl_walk_opts wo = { 0 };
	struct tl_walk *walk;
	struct pass p = { 0 };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (tl_run_start(run) < 0)
		return -1;
	r->run = run;
	r->interval_ns = o->interval_ns ? o->interval_ns : DEFAULT_INTERVAL_NS;
	tl_dist_init(&r->latency);
	p.a.r = p.r = r;
	p.a.o = p.o = o;
	p.trace = run->trace;
	if (tl_tidmap_init(&p.rows, sizeof(struct tidrow)) < 0)
		return -1;
	tl_run_walk_opts(run, &wo);
	wo.ctx = &p;
	wo.on_event = on_event;
	wo.on_interval = on_interval;
	wo.on_name = on_name;
	wo.on_thread_end = on_thread_end;
	wo.on_span = on_span;
	walk = tl_walk_new(&wo, &run->info);
	if (!walk) {
		pass_release(&p);
		return -1;
	}
	p.sched = tl_walk_sched(walk);
	p.w = w = tl_walk_result(walk);
	/* the window is known before the run: frames are summed as they finish */
	run->win_start = w->win_start;
	run->win_end = w->win_end;
	if (tl_walk_run(walk, run->trace) < 0 || tl_run_keep(run, w) < 0)
		goto out;
	finish(&p);
	if (p.a.oom) {
		tl_error("out of memory while analysing frames");
		goto out;
	}
	rc = 0;
out:
	pass_release(&p);
	tl_walk_free(walk);
	if (rc)
		tl_frames_release(r);
	return rc;
}
