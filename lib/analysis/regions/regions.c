/*
 * regions.c - parallel regions: rounds, imbalance and the threads' state
 * split around each round (regions.h says what is measured).
 *
 * Invariants:
 *  - a region's open round holds one entry per instance begun since the
 *    round's start, unless the round is dynamic (then only `open` counts);
 *  - `open` is the number of those instances not yet ended; a BEGIN with
 *    open == 0 after at least one END starts a new round;
 *  - an entry's `after` is the thread's totals at the round's latest END
 *    minus its totals at its own END (refreshed at every END of the round),
 *    so when the round closes it covers its END -> the round's last END.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/regions/regions.h"
#include "base/errors.h"
#include "base/grow.h"
#include "capture/umarks.h"

#define NS TL_ST__COUNT
#define MAX_ENTRIES 256 /* instances of one round followed; more make it dynamic */

struct entry {
	int32_t tid;
	uint32_t thr;        /* index into the region's threads, or UINT32_MAX: not followed */
	uint64_t begin, end; /* end 0 while open */
	uint64_t at_begin[NS], at_end[NS];
	uint64_t before[NS], after[NS];
	int doer;   /* set by compare(): is_doer() of the closed instance */
	int nested; /* an OpenMP instance begun inside another of its thread */
};

/*
 * A thread's totals when the current round started, to date its `before`;
 * and at its END in the last parallel round, to date the gap to its next
 * BEGIN (the wait at the barrier and for the next round: par_sync_ns).
 */
struct pre {
	uint64_t round; /* the round number `at` is valid for */
	uint64_t at[NS];
	int gap; /* gap_at is set */
	uint64_t gap_at[NS];
};

struct region {
	struct tl_region_stats st;
	size_t threads_cap, pre_cap;
	struct pre *pre; /* parallel to st.threads */
	uint64_t round;  /* rounds started */
	uint64_t start;  /* the open round's first BEGIN */
	int dynamic;
	int ended;     /* an END in the open round */
	int64_t frame; /* the open round's frame id (its first BEGIN's), -1 none */
	size_t open;   /* instances begun in the round, not ended */
	struct entry *e;
	size_t n, cap;
};

/*
 * A thread inside OpenMP instances: depth counts the open ones (a task runs
 * inside its region's).  Of the outermost, `g` is its region (index in
 * r->r) and `phase` the begin of its current part: the runtime's barrier
 * inside it (the one that ends an `omp for` or a `single` in a `parallel`)
 * ends a part at its call and begins the next at its return, so that the
 * parts line up in rounds as the loops between the barriers do.
 */
struct omp_open {
	int32_t tid;
	uint32_t depth;
	size_t g;       /* SIZE_MAX: its region is not followed */
	uint64_t phase; /* the begin of its current part */
	int in_barrier; /* inside a barrier's call */
	int split;      /* ... which ended its part: the next begins at the return */
	/* a barrier that ends no part: its EXECUTING at the call, and that of the tasks run inside it */
	uint64_t bar_exec, task_exec, tasks_exec;
	uint64_t bar_ts, task_ts, tasks_ns; /* the same in wall time */
};

struct tl_regions {
	struct tl_sched *sched;
	struct region *r;
	size_t n, cap;
	struct omp_open *oo; /* the threads with an OpenMP instance open; a team's few */
	size_t noo, oocap;
	uint64_t dropped, unmatched, incomplete;
	int oom;
};

uint64_t tl_regions_ready(const uint64_t st[TL_ST__COUNT])
{
	uint64_t sum = 0;

	for (unsigned s = 0; s < NS; s++)
		if (tl_state_is_ready(s)) /* RUNNABLE and the READY_* */
			sum += st[s];
	return sum;
}

struct tl_regions *tl_regions_new(struct tl_sched *sched)
{
	struct tl_regions *r = calloc(1, sizeof(*r));

	if (!r) {
		tl_error("out of memory");
		return NULL;
	}
	r->sched = sched;
	return r;
}

static int totals(struct tl_regions *r, int32_t tid, uint64_t at, uint64_t out[NS])
{
	struct tl_thread *th = tl_sched_thread(r->sched, tid);

	if (!th || at < th->state_since) {
		memset(out, 0, sizeof(uint64_t) * NS);
		return -1;
	}
	tl_thread_totals(th, at, out);
	return 0;
}

static void diff(uint64_t out[NS], const uint64_t a[NS], const uint64_t b[NS])
{
	for (unsigned s = 0; s < NS; s++)
		out[s] = a[s] >= b[s] ? a[s] - b[s] : 0;
}

static void add(uint64_t to[NS], const uint64_t v[NS])
{
	for (unsigned s = 0; s < NS; s++)
		to[s] += v[s];
}

static struct region *region_of(struct tl_regions *r, int32_t pid, uint32_t name, int create)
{
	struct region *g;

	for (size_t i = r->n; i-- > 0;)
		if (r->r[i].st.pid == pid && r->r[i].st.name_id == name)
			return &r->r[i];
	if (!create)
		return NULL;
	if (r->n >= TL_REGION_MAX) {
		r->dropped++;
		return NULL;
	}
	if (TL_GROW(r->r, r->cap, r->n + 1) < 0) {
		r->oom = 1;
		return NULL;
	}
	g = &r->r[r->n++];
	memset(g, 0, sizeof(*g));
	g->st.pid = pid;
	g->st.name_id = name;
	return g;
}

/* The region's record of thread tid (added if new and room is left), or UINT32_MAX. */
static uint32_t thread_of(struct tl_regions *r, struct region *g, const struct tl_thread *th)
{
	struct tl_region_stats *st = &g->st;

	for (size_t i = 0; i < st->nthreads; i++)
		if (st->threads[i].tid == th->tid)
			return (uint32_t)i;
	if (st->nthreads >= TL_REGION_MAX_THREADS)
		return UINT32_MAX;
	if (TL_GROW_ZERO(st->threads, g->threads_cap, st->nthreads + 1) < 0 ||
	    TL_GROW_ZERO(g->pre, g->pre_cap, st->nthreads + 1) < 0) {
		r->oom = 1;
		return UINT32_MAX;
	}
	st->threads[st->nthreads].tid = th->tid;
	memcpy(st->threads[st->nthreads].name, th->name, TL_NAME_MAX);
	return (uint32_t)st->nthreads++;
}

/*
 * A doer works inside its instance: EXECUTING at least half of the time it
 * was not waiting for a CPU there.  A parent that marks the region around
 * its dispatch and join sleeps inside; a worker starved of CPUs still works.
 */
static int is_doer(const struct entry *e, uint64_t *exec)
{
	uint64_t in[NS], len = e->end - e->begin, ready;

	diff(in, e->at_end, e->at_begin);
	ready = tl_regions_ready(in);
	*exec = in[TL_ST_EXECUTING] + in[TL_ST_INTERRUPTED];
	return 2 * *exec >= (len > ready ? len - ready : 0);
}

/* A parallel round with at least two doers: how unevenly they finished, and how uneven their work was. */
static void compare(struct region *g, uint64_t first)
{
	struct tl_region_stats *st = &g->st;
	uint64_t last = 0, sum = 0, mean, lost, exec, max_exec = 0, sum_exec = 0;
	size_t doers = 0;
	const struct entry *lastd = NULL;

	for (size_t i = 0; i < g->n; i++)
		if ((g->e[i].doer = is_doer(&g->e[i], &exec))) {
			doers++;
			sum += g->e[i].end;
			sum_exec += exec;
			max_exec = exec > max_exec ? exec : max_exec;
			if (g->e[i].end > last) {
				last = g->e[i].end;
				lastd = &g->e[i];
			}
		}
	if (doers < 2)
		return;
	mean = sum / doers;
	lost = last - mean;
	st->rounds_compared++;
	st->lost_ns += lost;
	st->work_lost_ns += max_exec - sum_exec / doers;
	st->work_max_ns += max_exec;
	for (size_t i = 0; i < g->n; i++) {
		const struct entry *e = &g->e[i];

		if (!e->doer)
			continue;
		st->idle_ns += last - e->end;
		if (e->thr != UINT32_MAX && e->end > mean)
			st->threads[e->thr].late_ns += e->end - mean;
	}
	if (lastd->thr != UINT32_MAX)
		st->threads[lastd->thr].last++;
	if (lost > st->worst_lost_ns) {
		st->worst_lost_ns = lost;
		st->worst[0] = first;
		st->worst[1] = last;
	}
}

/* A round ended: classify it and add what it measured to the region. */
static void close_round(struct region *g)
{
	struct tl_region_stats *st = &g->st;
	uint64_t first = UINT64_MAX, end = 0;

	if (g->dynamic)
		st->rounds_dynamic++;
	else if (g->n == 1)
		st->rounds_serial++;
	else if (g->n >= 2) {
		st->rounds_parallel++;
		for (size_t i = 0; i < g->n; i++) {
			const struct entry *e = &g->e[i];

			add(st->before, e->before);
			add(st->after, e->after);
			if (e->thr != UINT32_MAX) {
				struct tl_region_thread *t = &st->threads[e->thr];

				add(t->before, e->before);
				add(t->after, e->after);
				if (!e->nested)
					t->top_around_exec += e->before[TL_ST_EXECUTING] + e->after[TL_ST_EXECUTING];
				if (e->at_end[TL_ST_SYNC_WAIT] > e->at_begin[TL_ST_SYNC_WAIT])
					t->par_sync_ns += e->at_end[TL_ST_SYNC_WAIT] - e->at_begin[TL_ST_SYNC_WAIT];
				g->pre[e->thr].gap = 1;
				memcpy(g->pre[e->thr].gap_at, e->at_end, sizeof(e->at_end));
			}
			first = e->begin < first ? e->begin : first;
			end = e->end > end ? e->end : end;
		}
		st->wall_ns += end - first;
		compare(g, first);
	}
	g->n = 0;
	g->dynamic = 0;
	g->ended = 0;
}

static int in_round(const struct region *g, int32_t tid)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->e[i].tid == tid)
			return 1;
	return 0;
}

/* A thread's open OpenMP instances, and the parts of its outermost one. */
static struct omp_open *omp_thread(struct tl_regions *r, int32_t tid, int create)
{
	for (size_t i = 0; i < r->noo; i++)
		if (r->oo[i].tid == tid)
			return &r->oo[i];
	if (!create || TL_GROW(r->oo, r->oocap, r->noo + 1) < 0)
		return NULL; /* out of memory: not followed, its instances count as outermost */
	r->oo[r->noo] = (struct omp_open){ .tid = tid, .g = SIZE_MAX };
	return &r->oo[r->noo++];
}

/* An instance (or a part of one) of region g begins on thread th. */
static void inst_begin(struct tl_regions *r, struct region *g, struct tl_thread *th, uint64_t ts, int64_t frame,
                       int nested)
{
	struct entry *e;
	uint32_t thr;

	/* the round is over once none is open, unless this BEGIN is a late share of the same frame */
	if (!g->open && g->ended && (frame < 0 || frame != g->frame || in_round(g, th->tid))) {
		close_round(g);
		g->round++;
	}
	thr = thread_of(r, g, th);
	if (!g->open && !g->n && !g->dynamic) {
		/* a new round: every thread of the region is dated from here */
		g->start = ts;
		g->frame = frame;
		for (size_t i = 0; i < g->st.nthreads; i++) {
			g->pre[i].round = g->round + 1;
			totals(r, g->st.threads[i].tid, ts, g->pre[i].at);
		}
	}
	g->open++;
	for (size_t i = 0; i < g->n && !g->dynamic; i++)
		if (g->e[i].tid == th->tid)
			g->dynamic = 1; /* began again while the round is open */
	if (g->dynamic || g->n >= MAX_ENTRIES) {
		g->dynamic = 1;
		return;
	}
	if (TL_GROW(g->e, g->cap, g->n + 1) < 0) {
		r->oom = 1;
		return;
	}
	e = &g->e[g->n++];
	memset(e, 0, sizeof(*e));
	e->tid = th->tid;
	e->thr = thr;
	e->nested = nested;
	e->begin = ts;
	tl_thread_totals(th, ts, e->at_begin);
	if (thr != UINT32_MAX && g->pre[thr].round == g->round + 1)
		diff(e->before, e->at_begin, g->pre[thr].at);
	if (thr != UINT32_MAX && g->pre[thr].gap) {
		/* since its END in the last parallel round: the barrier, then waiting for this round */
		uint64_t was = g->pre[thr].gap_at[TL_ST_SYNC_WAIT];

		if (e->at_begin[TL_ST_SYNC_WAIT] > was)
			g->st.threads[thr].par_sync_ns += e->at_begin[TL_ST_SYNC_WAIT] - was;
		g->pre[thr].gap = 0;
	}
}

/* The instance (or part) of region g that thread th began at `begin` ends; last: the instance's own end. */
static void inst_end(struct tl_regions *r, struct region *g, const struct tl_thread *th, uint64_t begin, uint64_t end,
                     int last)
{
	struct entry *e = NULL;
	uint64_t now[NS];

	g->open--;
	g->ended = 1;
	g->st.instances += last;
	for (size_t i = 0; i < g->n; i++)
		if (g->e[i].tid == th->tid && g->e[i].begin == begin && !g->e[i].end)
			e = &g->e[i];
	if (!e) {
		g->dynamic = 1; /* nested, or beyond MAX_ENTRIES */
		return;
	}
	e->end = end;
	totals(r, th->tid, end, e->at_end);
	if (e->thr != UINT32_MAX) {
		struct tl_region_thread *t = &g->st.threads[e->thr];
		uint64_t in[NS];

		t->instances += last;
		diff(in, e->at_end, e->at_begin);
		add(t->inside, in);
		add(g->st.inside, in);
		if (e->nested)
			t->nested++;
		else
			t->top_inside_exec += in[TL_ST_EXECUTING];
		memcpy(t->name, th->name, TL_NAME_MAX); /* the name it has now */
	} else {
		g->st.threads_over += last;
	}
	/* the threads that finished earlier have waited until now */
	for (size_t i = 0; i < g->n; i++) {
		struct entry *o = &g->e[i];

		if (o != e && o->end && totals(r, o->tid, end, now) == 0)
			diff(o->after, now, o->at_end);
	}
}

/* A thread's EXECUTING time from its birth up to at (>= its open interval's start). */
static uint64_t exec_at(const struct tl_thread *th, uint64_t at)
{
	uint64_t t[NS];

	tl_thread_totals(th, at, t);
	return t[TL_ST_EXECUTING];
}

/*
 * The runtime's barrier inside the outermost OpenMP instance of a thread
 * (FUNC_ENTRY/EXIT of a function tl_umarks_is_omp_barrier() names): its
 * call ends the instance's current part, its return begins the next.  A
 * task run inside a barrier (the runtime runs queued tasks there) makes it
 * no wait, so a region's barriers split from its second round on, once its
 * first has shown no task inside one, and no more once one has.  A barrier
 * that splits nothing is waited in inside the instance: its EXECUTING less
 * the tasks' it ran is the thread's top_barrier_exec.
 */
static void barrier(struct tl_regions *r, struct tl_thread *th, const struct tl_event *ev, const char *name)
{
	struct omp_open *o;
	struct region *g;

	if (!name || (ev->flags & TL_EVF_INLINED) || !tl_umarks_is_omp_barrier(name))
		return;
	if (!th)
		th = tl_sched_thread(r->sched, ev->tid);
	if (!th || th->outsider || !(o = omp_thread(r, th->tid, 0)) || o->depth != 1 || o->g == SIZE_MAX)
		return;
	g = &r->r[o->g];
	if (ev->type == TL_EV_FUNC_ENTRY && !o->in_barrier) {
		o->in_barrier = 1;
		o->split = g->round && !g->st.tasks_in_barrier && g->open && o->phase >= g->start;
		o->bar_exec = exec_at(th, ev->ts);
		o->bar_ts = ev->ts;
		o->tasks_exec = o->tasks_ns = 0;
		if (o->split) {
			g->st.barriers++;
			inst_end(r, g, th, o->phase, ev->ts, 0);
		}
	} else if (ev->type == TL_EV_FUNC_EXIT && o->in_barrier) {
		o->in_barrier = 0;
		if (o->split) {
			o->split = 0;
			o->phase = ev->ts;
			inst_begin(r, g, th, ev->ts, -1, 0);
		} else {
			/* waiting inside the instance: the barrier's time on a CPU less its tasks' */
			uint64_t e = exec_at(th, ev->ts) - o->bar_exec, w = ev->ts - o->bar_ts;
			uint32_t thr = thread_of(r, g, th);

			if (thr != UINT32_MAX) {
				g->st.threads[thr].top_barrier_exec += e > o->tasks_exec ? e - o->tasks_exec : 0;
				g->st.threads[thr].top_barrier_ns += w > o->tasks_ns ? w - o->tasks_ns : 0;
			}
		}
	}
}

void tl_regions_event(struct tl_regions *r, struct tl_thread *th, const struct tl_event *ev, const char *name)
{
	struct region *g;
	struct omp_open *o = NULL;
	int nested = 0;

	if (ev->type == TL_EV_FUNC_ENTRY || ev->type == TL_EV_FUNC_EXIT) {
		barrier(r, th, ev, name);
		return;
	}
	if (ev->type != TL_EV_REGION_BEGIN)
		return;
	if (!th)
		th = tl_sched_thread(r->sched, ev->tid); /* markers have no subject for the state machine */
	if (!th || th->outsider)
		return;
	if (name && tl_umarks_is_omp(name) && (o = omp_thread(r, th->tid, 1))) {
		nested = o->depth++ > 0;
		if (nested && o->in_barrier && o->g != SIZE_MAX)
			r->r[o->g].st.tasks_in_barrier = 1;
		if (o->depth == 2 && o->in_barrier) { /* a task run inside the barrier begins */
			o->task_exec = exec_at(th, ev->ts);
			o->task_ts = ev->ts;
		}
		if (!nested) {
			o->g = SIZE_MAX;
			o->phase = ev->ts;
			o->in_barrier = o->split = 0;
		}
	}
	if (!(g = region_of(r, th->tgid, ev->name, 1)))
		return;
	if (o && !nested)
		o->g = (size_t)(g - r->r);
	inst_begin(r, g, th, ev->ts, ev->a, nested);
}

void tl_regions_span(struct tl_regions *r, const struct tl_span *sp, const char *name)
{
	struct tl_thread *th;
	struct region *g;
	struct omp_open *o;
	uint64_t begin = sp->begin;

	if (sp->kind != TL_SPAN_REGION)
		return;
	th = tl_sched_thread(r->sched, sp->tid);
	if (th && !th->outsider && sp->complete && name && tl_umarks_is_omp(name) && (o = omp_thread(r, th->tid, 0)) &&
	    o->depth) {
		int ended_in_barrier = o->depth == 1 && o->in_barrier && o->split;

		if (o->depth == 2 && o->in_barrier) {
			uint64_t now = exec_at(th, sp->end);

			o->tasks_exec += now > o->task_exec ? now - o->task_exec : 0;
			o->tasks_ns += sp->end > o->task_ts ? sp->end - o->task_ts : 0;
		}

		if (o->depth == 1 && o->g != SIZE_MAX)
			begin = o->phase; /* its last part, after its last barrier */
		if (--o->depth == 0)
			*o = r->oo[--r->noo];
		if (ended_in_barrier)
			return; /* a barrier's return was lost: its last part has ended already */
	}
	if (!th || th->outsider || !(g = region_of(r, th->tgid, sp->name, 0)) || !g->open || begin < g->start) {
		r->unmatched += sp->complete;
		return;
	}
	if (!sp->complete) {
		r->incomplete++;
		return;
	}
	if (!g->st.name[0])
		snprintf(g->st.name, sizeof(g->st.name), "%s", name);
	inst_end(r, g, th, begin, sp->end, 1);
}

static int cmp_region(const void *x, const void *y)
{
	const struct tl_region_stats *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return strcmp(a->name, b->name);
}

int tl_regions_finish(struct tl_regions *r, struct tl_regions_result *out)
{
	size_t kept = 0;

	memset(out, 0, sizeof(*out));
	if (r->oom)
		return tl_error("out of memory while following the regions");
	for (size_t i = 0; i < r->n; i++) {
		struct region *g = &r->r[i];

		if (g->open) {
			r->incomplete++; /* a round cut by the end: not measured */
			g->n = 0;
			g->dynamic = 0;
		}
		close_round(g);
		free(g->e);
		free(g->pre);
		g->e = NULL;
		g->pre = NULL;
		if (!g->st.instances) {
			free(g->st.threads);
			continue;
		}
		r->r[kept++] = *g;
	}
	out->regions = kept ? malloc(kept * sizeof(*out->regions)) : NULL;
	if (kept && !out->regions) {
		for (size_t i = 0; i < kept; i++)
			free(r->r[i].st.threads);
		r->n = 0;
		return tl_error("out of memory");
	}
	for (size_t i = 0; i < kept; i++)
		out->regions[i] = r->r[i].st;
	out->n = kept;
	r->n = 0;
	if (kept > 1)
		qsort(out->regions, kept, sizeof(*out->regions), cmp_region);
	out->dropped = r->dropped;
	out->unmatched = r->unmatched;
	out->incomplete = r->incomplete;
	return 0;
}

void tl_regions_free(struct tl_regions *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->r[i].e);
		free(r->r[i].pre);
		free(r->r[i].st.threads);
	}
	free(r->r);
	free(r->oo);
	free(r);
}

void tl_regions_release(struct tl_regions_result *res)
{
	for (size_t i = 0; i < res->n; i++)
		free(res->regions[i].threads);
	free(res->regions);
	memset(res, 0, sizeof(*res));
}
