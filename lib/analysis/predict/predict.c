/*
 * predict.c - tl_predict(): the task tree of a sequential run, then one
 * simulated schedule per core count (see predict.h for the model).
 *
 * Invariants: nodes[0] is the root; a node's children are in begin order
 * and lie inside it (tasks of one thread nest).  During a region every
 * team thread's clock T[i] only moves forward, and each step is added to
 * exactly one category, so each thread accounts for the region's whole
 * length; the cores outside the team are added as LIMITED at its end.
 * Outside regions the master's time is SEQUENTIAL and the other cores'
 * IDLE.  Hence the categories sum to cores x time with nothing rounded.
 */
#include "analysis/predict/predict_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"
#include "timeline/walk.h"

/* A loop's iterations (loop_of): pieces loop.p[p0..], iterations iter_at/iter_sum[i0..i0 + m]. */
struct loop {
	size_t p0, i0, m;
	int crit; /* a critical section among its pieces: run piece by piece */
};

/* A piece of a thread's work in a region. */
enum { P_WORK, P_CRIT, P_OVH };
struct piece {
	uint64_t dur;
	int kind;
};

struct pieces {
	struct piece *p;
	size_t n, cap;
};

struct span {
	uint64_t begin, end;
	const struct tl_directive *dir;
	char name[64];
};

struct gather {
	const struct tl_directives *dirs;
	const struct tl_run *run;
	struct span *s;
	size_t n, cap;
	int32_t tid;       /* the thread of the tasks */
	int32_t other[16]; /* other threads that made tasks */
	int nother;
	int oom;
};

struct sim {
	const struct node *nodes;
	const struct tl_platform *pf;
	int n;                      /* cores */
	uint64_t cat[TL_PC__COUNT]; /* the whole run */
	uint64_t T[TL_PREDICT_MAX_CORES];
	uint64_t rc[TL_PC__COUNT];        /* the current region */
	int worked[TL_PREDICT_MAX_CORES]; /* in the current loop: the thread ran an iteration */
	struct pieces buf, loop;          /* scratch */
	struct loop *loops;               /* every loop met, built once (loop_of) */
	size_t nloops, loops_cap;
	uint32_t *loop_id;  /* per node: its loop + 1, 0 none yet */
	size_t *iter_at;    /* the loops' iterations: their first piece in the loop, and the end */
	uint64_t *iter_sum; /* and the loop's time before each, and in all */
	size_t iter_n, iter_cap, sum_cap;
	uint64_t *rtime; /* per region: its time at this core count */
	uint64_t (*rcat)[TL_PC__COUNT];
	int oom;
};

static const char *const cost_names[TL_COST__COUNT] = {
	"par_open", "par_close",    "thr_create",   "thr_launch", "launch_master", "thr_prologue", "thr_epilogue",
	"thr_free", "for_prologue", "for_epilogue", "next_chunk", "barrier",       "critical",
};
static const char *const cat_names[TL_PC__COUNT] = { "sequential", "parallel", "imbalance",
	                                             "limited",    "overhead", "idle" };

const char *tl_cost_name(unsigned c)
{
	return c < TL_COST__COUNT ? cost_names[c] : "?";
}

const char *tl_pcat_name(unsigned c)
{
	return c < TL_PC__COUNT ? cat_names[c] : "?";
}

/* ---- the task tree ---- */

static void on_span(void *ctx, const struct tl_span *sp, const char *name)
{
	struct gather *g = ctx;

	if (sp->kind != TL_SPAN_TASK || !sp->complete)
		return;
	if (g->run->ntids) { /* --tid: only that thread's */
		int keep = 0;
		for (int i = 0; i < g->run->ntids; i++)
			keep |= g->run->tids[i] == sp->tid;
		if (!keep)
			return;
	}
	if (!g->tid)
		g->tid = sp->tid;
	if (g->tid != sp->tid) {
		int i = 0;
		while (i < g->nother && g->other[i] != sp->tid)
			i++;
		if (i == g->nother && g->nother < 16)
			g->other[g->nother++] = sp->tid;
		return;
	}
	if (TL_GROW(g->s, g->cap, g->n + 1) < 0) {
		g->oom = 1;
		return;
	}
	g->s[g->n] = (struct span){ sp->begin, sp->end, tl_directives_find(g->dirs, name ? name : ""), "" };
	snprintf(g->s[g->n].name, sizeof(g->s[g->n].name), "%s", name ? name : "");
	g->n++;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* the enclosing one first */
}

/* Nodes from the spans sorted by begin: a stack of the open ancestors gives each its parent. */
static struct node *build_tree(struct gather *g, struct tl_predict_result *r)
{
	struct node *nodes = calloc(g->n + 1, sizeof(*nodes));
	uint32_t *stack = calloc(g->n + 1, sizeof(*stack)), *last = calloc(g->n + 1, sizeof(*last));
	size_t depth = 0, cap = 0;

	if (!nodes || !stack || !last) {
		tl_error("out of memory");
		goto fail;
	}
	qsort(g->s, g->n, sizeof(*g->s), cmp_span);
	nodes[0].begin = g->s[0].begin;
	nodes[0].region = -1;
	for (size_t i = 0; i < g->n; i++)
		nodes[0].end = g->s[i].end > nodes[0].end ? g->s[i].end : nodes[0].end;
	stack[depth++] = 0;
	for (size_t i = 0; i < g->n; i++) {
		uint32_t k = (uint32_t)i + 1, parent;
		struct node *nd = &nodes[k];

		while (depth > 1 && nodes[stack[depth - 1]].end <= g->s[i].begin)
			depth--;
		parent = stack[depth - 1];
		if (g->s[i].end > nodes[parent].end) /* overlapping, not nested: cut to the parent */
			g->s[i].end = nodes[parent].end;
		nd->begin = g->s[i].begin;
		nd->end = g->s[i].end;
		nd->dir = g->s[i].dir;
		nd->region = -1;
		if (nd->dir && (nd->dir->kinds & TL_DIR_PARALLEL)) {
			size_t j = 0;
			while (j < r->nregions && strcmp(r->regions[j].task, g->s[i].name))
				j++;
			if (j == r->nregions) {
				if (TL_GROW_ZERO(r->regions, cap, r->nregions + 1) < 0) {
					tl_error("out of memory");
					goto fail;
				}
				snprintf(r->regions[j].task, sizeof(r->regions[j].task), "%s", g->s[i].name);
				r->nregions++;
			}
			nd->region = (int32_t)j;
		}
		if (last[parent])
			nodes[last[parent]].next = k;
		else
			nodes[parent].child = k;
		last[parent] = k;
		stack[depth++] = k;
	}
	free(stack);
	free(last);
	return nodes;
fail:
	free(nodes);
	free(stack);
	free(last);
	return NULL;
}

/* ---- pieces ---- */

static void put(struct sim *s, struct pieces *ps, uint64_t dur, int kind)
{
	if (!dur && kind != P_CRIT)
		return;
	if (TL_GROW(ps->p, ps->cap, ps->n + 1) < 0) {
		s->oom = 1;
		return;
	}
	ps->p[ps->n++] = (struct piece){ dur, kind };
}

/* A task's work as pieces, in time order: its own code and its children's; a critical child is one piece. */
static void flatten(struct sim *s, uint32_t k, struct pieces *ps)
{
	const struct node *nd = &s->nodes[k];
	uint64_t at = nd->begin;

	if (nd->dir && (nd->dir->kinds & TL_DIR_CRITICAL)) {
		put(s, ps, nd->end - nd->begin, P_CRIT);
		return;
	}
	for (uint32_t c = nd->child; c; c = s->nodes[c].next) {
		put(s, ps, s->nodes[c].begin - at, P_WORK);
		flatten(s, c, ps);
		at = s->nodes[c].end;
	}
	put(s, ps, nd->end - at, P_WORK);
}

/* ---- a team's threads ---- */

static void add(struct sim *s, int i, int cat, uint64_t dur)
{
	s->T[i] += dur;
	s->rc[cat] += dur;
}

/* Every thread waits for the latest: the waits as `cat` (LIMITED instead for a loop's threads without work). */
static void sync_all(struct sim *s, int nthr, int cat, int loop)
{
	uint64_t j = 0;

	for (int i = 0; i < nthr; i++)
		j = s->T[i] > j ? s->T[i] : j;
	for (int i = 0; i < nthr; i++)
		add(s, i, loop && !s->worked[i] ? TL_PC_LIMITED : cat, j - s->T[i]);
}

/* One piece on thread i; lock_free: when the critical section is free next. */
static void run_piece(struct sim *s, int i, const struct piece *p, uint64_t *lock_free)
{
	if (p->kind == P_WORK) {
		add(s, i, TL_PC_PARALLEL, p->dur);
	} else if (p->kind == P_OVH) {
		add(s, i, TL_PC_OVERHEAD, p->dur);
	} else {
		if (*lock_free > s->T[i])
			add(s, i, TL_PC_OVERHEAD, *lock_free - s->T[i]); /* waiting for the lock */
		add(s, i, TL_PC_OVERHEAD, s->pf->cost[TL_COST_CRITICAL]);
		add(s, i, TL_PC_PARALLEL, p->dur);
		*lock_free = s->T[i];
	}
}

/* The threads that still have work, earliest first (ties: the lowest): a binary heap. */
struct heap {
	int id[TL_PREDICT_MAX_CORES];
	int n;
};

static int before(const struct sim *s, int a, int b)
{
	return s->T[a] < s->T[b] || (s->T[a] == s->T[b] && a < b);
}

static void heap_push(const struct sim *s, struct heap *h, int i)
{
	int k = h->n++;

	while (k > 0 && before(s, i, h->id[(k - 1) / 2])) {
		h->id[k] = h->id[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	h->id[k] = i;
}

/* The top's clock moved on: move it down to its place (cheaper than a pop and a push). */
static void heap_down(const struct sim *s, struct heap *h)
{
	int top = h->id[0], k = 0;

	for (;;) {
		int c = 2 * k + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(s, h->id[c + 1], h->id[c]))
			c++;
		if (!before(s, h->id[c], top))
			break;
		h->id[k] = h->id[c];
		k = c;
	}
	h->id[k] = top;
}

static int heap_pop(const struct sim *s, struct heap *h)
{
	int top = h->id[0];

	h->id[0] = h->id[--h->n];
	if (h->n)
		heap_down(s, h);
	return top;
}

static int has_crit(const struct piece *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].kind == P_CRIT)
			return 1;
	return 0;
}

/* The same pieces on every thread (code outside work-sharing), in time order when a lock orders them. */
static void replicate(struct sim *s, int nthr, const struct pieces *ps)
{
	size_t at[TL_PREDICT_MAX_CORES] = { 0 };
	struct heap h = { .n = 0 };
	uint64_t lock_free = 0;

	if (!has_crit(ps->p, ps->n)) { /* nothing between the threads: each on its own */
		for (int i = 0; i < nthr; i++)
			for (size_t k = 0; k < ps->n; k++)
				run_piece(s, i, &ps->p[k], &lock_free);
		return;
	}
	for (int i = 0; i < nthr; i++)
		heap_push(s, &h, i);
	while (h.n) {
		int i = h.id[0];
		do
			run_piece(s, i, &ps->p[at[i]++], &lock_free);
		while (at[i] < ps->n && ps->p[at[i]].kind != P_CRIT);
		if (at[i] < ps->n)
			heap_down(s, &h);
		else
			heap_pop(s, &h);
	}
}

/*
 * A loop's iterations as pieces, built on its first use and kept for every
 * core count: the loop's own code before each iteration goes with it, the
 * code after the last with the last.  Pieces, their starts and running
 * sums live in the sim's arenas, found by offset (the arenas grow).
 */
static const struct loop *loop_of(struct sim *s, uint32_t k)
{
	const struct node *nd = &s->nodes[k];
	uint64_t at = nd->begin;
	struct loop *L;
	size_t m = 0;

	if (s->loop_id[k])
		return &s->loops[s->loop_id[k] - 1];
	if (TL_GROW(s->loops, s->loops_cap, s->nloops + 1) < 0) {
		s->oom = 1;
		return NULL;
	}
	L = &s->loops[s->nloops];
	L->p0 = s->loop.n;
	L->i0 = s->iter_n;
	for (uint32_t ch = nd->child; ch; ch = s->nodes[ch].next, m++) {
		if (TL_GROW(s->iter_at, s->iter_cap, s->iter_n + m + 2) < 0) {
			s->oom = 1;
			return NULL;
		}
		s->iter_at[s->iter_n + m] = s->loop.n - L->p0;
		put(s, &s->loop, s->nodes[ch].begin - at, P_WORK);
		flatten(s, ch, &s->loop);
		at = s->nodes[ch].end;
		if (!s->nodes[ch].next)
			put(s, &s->loop, nd->end - at, P_WORK);
	}
	if (TL_GROW(s->iter_at, s->iter_cap, s->iter_n + m + 2) < 0 ||
	    TL_GROW(s->iter_sum, s->sum_cap, s->iter_n + m + 2) < 0 || s->oom) {
		s->oom = 1;
		return NULL;
	}
	s->iter_at[s->iter_n + m] = s->loop.n - L->p0;
	L->m = m;
	L->crit = has_crit(s->loop.p + L->p0, s->loop.n - L->p0);
	s->iter_sum[s->iter_n] = 0;
	for (size_t q = 0; q < m; q++) {
		uint64_t sum = 0;
		for (size_t p = s->iter_at[s->iter_n + q]; p < s->iter_at[s->iter_n + q + 1]; p++)
			sum += s->loop.p[L->p0 + p].dur;
		s->iter_sum[s->iter_n + q + 1] = s->iter_sum[s->iter_n + q] + sum;
	}
	s->iter_n += m + 1;
	s->loop_id[k] = (uint32_t)++s->nloops;
	return L;
}

/* A loop shared by the team: its iterations' pieces, dealt by the schedule, then the implicit barrier. */
static void share_loop(struct sim *s, uint32_t k, int nthr)
{
	const struct node *nd = &s->nodes[k];
	const struct tl_directive *d = nd->dir;
	const uint64_t *cost = s->pf->cost;
	size_t m = 0, next = 0, cur[TL_PREDICT_MAX_CORES], stop[TL_PREDICT_MAX_CORES], chunks[TL_PREDICT_MAX_CORES];
	struct heap h = { .n = 0 };
	uint64_t lock_free = 0;
	size_t c = d->chunk > 0 ? (size_t)d->chunk : 0;
	int i, crit;

	const struct loop *L = loop_of(s, k);
	const struct piece *P;
	const size_t *IA;
	const uint64_t *IS;

	if (!L)
		return;
	if (!(m = L->m)) { /* no iteration: the loop's code runs on every thread */
		s->buf.n = 0;
		put(s, &s->buf, nd->end - nd->begin, P_WORK);
		replicate(s, nthr, &s->buf);
		return;
	}
	P = s->loop.p + L->p0;
	IA = s->iter_at + L->i0;
	IS = s->iter_sum + L->i0;
	crit = L->crit;
	for (i = 0; i < nthr; i++) {
		cur[i] = stop[i] = 0; /* piece cursor in s->loop and the end of its current chunk's pieces */
		chunks[i] = 0;
		s->worked[i] = 0;
		add(s, i, TL_PC_OVERHEAD, cost[TL_COST_FOR_PROLOGUE]);
		heap_push(s, &h, i);
	}
	while (h.n) {
		i = h.id[0]; /* the earliest thread: it stays on top of the heap until its clock moves */
		if (cur[i] <
		    stop[i]) { /* its next piece, and what follows up to the next lock: no other thread can matter */
			do
				run_piece(s, i, &P[cur[i]++], &lock_free);
			while (cur[i] < stop[i] && P[cur[i]].kind != P_CRIT);
			heap_down(s, &h);
			continue;
		}
		/* the thread's next chunk of iterations [a, b) */
		size_t a = m, b = m;
		if (d->schedule == TL_SCHED_STATIC) {
			size_t len = c ? c : (m + (size_t)nthr - 1) / (size_t)nthr;
			size_t j = c ? chunks[i] * (size_t)nthr + (size_t)i : (chunks[i] ? m : (size_t)i);
			a = j * len < m ? j * len : m;
			b = a + len < m ? a + len : m;
		} else if (next < m) {
			size_t len = c ? c : 1;
			if (d->schedule == TL_SCHED_GUIDED) {
				size_t g = (m - next + (size_t)nthr - 1) / (size_t)nthr;
				len = g > len ? g : len;
			}
			a = next;
			b = a + len < m ? a + len : m;
			next = b;
			add(s, i, TL_PC_OVERHEAD, cost[TL_COST_NEXT_CHUNK]);
		}
		chunks[i]++;
		if (a >= b) {
			add(s, i, TL_PC_OVERHEAD, cost[TL_COST_FOR_EPILOGUE]);
			heap_pop(s, &h);
			continue; /* done: out of the heap */
		}
		s->worked[i] = 1;
		if (crit) {
			cur[i] = IA[a];
			stop[i] = IA[b];
		} else {
			add(s, i, TL_PC_PARALLEL, IS[b] - IS[a]);
		}
		heap_down(s, &h);
	}
	sync_all(s, nthr, TL_PC_IMBALANCE, 1);
	for (i = 0; i < nthr; i++)
		add(s, i, TL_PC_OVERHEAD, cost[TL_COST_BARRIER]);
}

/* A region's body on its team (or a plain task inside it): its own code replicated, its children by their directives. */
static void body(struct sim *s, uint32_t k, int nthr)
{
	const struct node *nd = &s->nodes[k];
	uint64_t at = nd->begin;

	if (nd->dir && (nd->dir->kinds & TL_DIR_FOR) && (nd->dir->kinds & TL_DIR_PARALLEL)) {
		share_loop(s, k, nthr); /* parallel for */
		return;
	}
	for (uint32_t c = nd->child;; c = s->nodes[c].next) {
		const struct tl_directive *d = c ? s->nodes[c].dir : NULL;

		s->buf.n = 0;
		put(s, &s->buf, (c ? s->nodes[c].begin : nd->end) - at, P_WORK);
		replicate(s, nthr, &s->buf);
		if (!c)
			break;
		at = s->nodes[c].end;
		if (d && (d->kinds & TL_DIR_FOR)) {
			share_loop(s, c, nthr);
		} else if (d && (d->kinds & TL_DIR_SINGLE)) {
			int first = 0;
			uint64_t lock_free = 0;
			for (int i = 1; i < nthr; i++)
				first = s->T[i] < s->T[first] ? i : first;
			s->buf.n = 0;
			flatten(s, c, &s->buf);
			for (size_t p = 0; p < s->buf.n; p++)
				run_piece(s, first, &s->buf.p[p], &lock_free);
			sync_all(s, nthr, TL_PC_IMBALANCE, 0);
		} else if (d && (d->kinds & TL_DIR_BARRIER)) {
			s->buf.n = 0;
			flatten(s, c, &s->buf);
			replicate(s, nthr, &s->buf);
			sync_all(s, nthr, TL_PC_IMBALANCE, 0);
			for (int i = 0; i < nthr; i++)
				add(s, i, TL_PC_OVERHEAD, s->pf->cost[TL_COST_BARRIER]);
		} else if (d && (d->kinds & TL_DIR_CRITICAL)) {
			s->buf.n = 0;
			flatten(s, c, &s->buf);
			replicate(s, nthr, &s->buf);
		} else { /* plain, or a nested parallel (runs as if not parallel): its own children by theirs */
			body(s, c, nthr);
		}
	}
}

/* A parallel region from master time t0 (Algorithm 5.3's steps): fork, body, join.  Its end. */
static uint64_t region(struct sim *s, uint32_t k, uint64_t t0)
{
	const struct node *nd = &s->nodes[k];
	const uint64_t *cost = s->pf->cost;
	int nthr = nd->dir->num_threads > 0 && nd->dir->num_threads < s->n ? nd->dir->num_threads : s->n;
	uint64_t end;

	memset(s->rc, 0, sizeof(s->rc));
	for (int i = 0; i < nthr; i++)
		s->T[i] = t0;
	add(s, 0, TL_PC_OVERHEAD, cost[TL_COST_PAR_OPEN]);
	for (int i = 1; i < nthr; i++)
		add(s, i, TL_PC_OVERHEAD, cost[TL_COST_THR_CREATE]);
	for (int i = 1; i < nthr; i++) { /* the master launches each worker in turn; it starts once launched */
		add(s, 0, TL_PC_OVERHEAD, cost[TL_COST_THR_LAUNCH]);
		if (s->T[i] < s->T[0])
			add(s, i, TL_PC_OVERHEAD, s->T[0] - s->T[i]);
	}
	add(s, 0, TL_PC_OVERHEAD, cost[TL_COST_LAUNCH_MASTER]);
	for (int i = 0; i < nthr; i++)
		add(s, i, TL_PC_OVERHEAD, cost[TL_COST_THR_PROLOGUE]);
	body(s, k, nthr);
	for (int i = 0; i < nthr; i++)
		add(s, i, TL_PC_OVERHEAD, cost[TL_COST_THR_EPILOGUE]);
	sync_all(s, nthr, TL_PC_IMBALANCE, 0); /* the join */
	add(s, 0, TL_PC_OVERHEAD, (uint64_t)(nthr - 1) * cost[TL_COST_THR_FREE] + cost[TL_COST_PAR_CLOSE]);
	end = s->T[0];
	for (int i = 1; i < nthr; i++) /* released */
		add(s, i, TL_PC_OVERHEAD, end - s->T[i]);
	s->rc[TL_PC_LIMITED] += (uint64_t)(s->n - nthr) * (end - t0);
	for (int c = 0; c < TL_PC__COUNT; c++) {
		s->cat[c] += s->rc[c];
		s->rcat[nd->region][c] += s->rc[c];
	}
	s->rtime[nd->region] += end - t0;
	return end;
}

/* Task k on the master from time t, outside any region.  Where it ends. */
static uint64_t sequential(struct sim *s, uint32_t k, uint64_t t)
{
	const struct node *nd = &s->nodes[k];
	uint64_t at = nd->begin, gap;

	if (nd->dir && (nd->dir->kinds & TL_DIR_PARALLEL))
		return region(s, k, t);
	for (uint32_t c = nd->child;; c = s->nodes[c].next) {
		gap = (c ? s->nodes[c].begin : nd->end) - at;
		s->cat[TL_PC_SEQUENTIAL] += gap;
		s->cat[TL_PC_IDLE] += (uint64_t)(s->n - 1) * gap;
		t += gap;
		if (!c)
			return t;
		t = sequential(s, c, t);
		at = s->nodes[c].end;
	}
}

/* The time in outermost `parallel` tasks of the sequential run. */
static uint64_t parallel_time(const struct node *nodes, uint32_t k)
{
	uint64_t sum = 0;

	if (nodes[k].dir && (nodes[k].dir->kinds & TL_DIR_PARALLEL))
		return nodes[k].end - nodes[k].begin;
	for (uint32_t c = nodes[k].child; c; c = nodes[c].next)
		sum += parallel_time(nodes, c);
	return sum;
}

/*
 * The core counts are independent simulations: up to PREDICT_THREADS
 * workers (no more than the CPUs) take every step-th core count each,
 * each with its own sim (its loops built anew), writing only its own
 * entries of the result.  The results do not depend on the workers.
 */
#define PREDICT_THREADS 8

struct worker {
	struct tl_predict_result *r;
	const struct node *nodes;
	int first, step, max;
	double seq_share;
	int oom;
	pthread_t th;
};

static void *simulate(void *arg)
{
	struct worker *w = arg;
	struct tl_predict_result *r = w->r;
	struct sim s = { .nodes = w->nodes, .pf = &r->pf };

	s.loop_id = calloc(r->tasks + 1, sizeof(*s.loop_id));
	s.rtime = calloc(r->nregions + 1, sizeof(*s.rtime));
	s.rcat = calloc(r->nregions + 1, sizeof(*s.rcat));
	w->oom = !s.rtime || !s.rcat || !s.loop_id;
	for (int n = w->first; !w->oom && n <= w->max; n += w->step) {
		struct tl_prediction *p = &r->p[n - 1];

		s.n = n;
		memset(s.cat, 0, sizeof(s.cat));
		memset(s.rtime, 0, (r->nregions + 1) * sizeof(*s.rtime));
		memset(s.rcat, 0, (r->nregions + 1) * sizeof(*s.rcat));
		p->cores = n;
		p->time_ns = sequential(&s, 0, 0);
		if ((w->oom = s.oom))
			break;
		memcpy(p->core_ns, s.cat, sizeof(s.cat));
		p->speedup = p->time_ns ? (double)r->seq_ns / (double)p->time_ns : 0;
		p->efficiency = p->speedup / n;
		p->amdahl = 1.0 / (w->seq_share + (1.0 - w->seq_share) / n);
		for (size_t j = 0; j < r->nregions; j++) {
			r->regions[j].time_ns[n - 1] = s.rtime[j];
			memcpy(r->regions[j].core_ns[n - 1], s.rcat[j], sizeof(s.rcat[j]));
		}
	}
	free(s.rtime);
	free(s.rcat);
	free(s.buf.p);
	free(s.loop.p);
	free(s.iter_at);
	free(s.iter_sum);
	free(s.loops);
	free(s.loop_id);
	return NULL;
}

static int predict_all(struct tl_predict_result *r, const struct node *nodes, const struct tl_predict_opts *o)
{
	struct worker w[PREDICT_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nw = o->max_cores < 4 ? 1 : (int)(cpus < 1 ? 1 : cpus > PREDICT_THREADS ? PREDICT_THREADS : cpus);
	int started = 1, oom = 0;

	r->np = (size_t)o->max_cores;
	if (!(r->p = calloc(r->np, sizeof(*r->p))))
		return tl_error("out of memory");
	for (size_t j = 0; j < r->nregions; j++) {
		r->regions[j].time_ns = calloc(r->np, sizeof(uint64_t));
		r->regions[j].core_ns = calloc(r->np, sizeof(*r->regions[j].core_ns));
		if (!r->regions[j].time_ns || !r->regions[j].core_ns)
			return tl_error("out of memory");
	}
	for (int k = 0; k < nw; k++)
		w[k] = (struct worker){ .r = r,
			                .nodes = nodes,
			                .first = k + 1,
			                .step = nw,
			                .max = o->max_cores,
			                .seq_share =
			                        r->seq_ns ? (double)(r->seq_ns - r->par_ns) / (double)r->seq_ns : 1 };
	for (int k = 1; k < nw && started == k; k++) /* a worker that cannot start: this thread does its share */
		started += pthread_create(&w[k].th, NULL, simulate, &w[k]) == 0;
	for (int k = started; k < nw; k++)
		simulate(&w[k]);
	simulate(&w[0]);
	for (int k = 0; k < nw; k++) {
		if (k && k < started)
			pthread_join(w[k].th, NULL);
		oom |= w[k].oom;
	}
	return oom ? tl_error("out of memory") : 0;
}

/* Instances and sequential time of each region. */
static void region_seq(struct tl_predict_result *r, const struct node *nodes, size_t n)
{
	for (size_t k = 1; k <= n; k++)
		if (nodes[k].region >= 0) {
			r->regions[nodes[k].region].instances++;
			r->regions[nodes[k].region].seq_ns += nodes[k].end - nodes[k].begin;
		}
}

int tl_predict(struct tl_run *run, const struct tl_predict_opts *o, struct tl_predict_result *r)
{
	struct tl_walk_opts wo = { 0 };
	struct tl_walk *w = NULL;
	struct gather g = { .dirs = o->dirs, .run = run };
	struct node *nodes = NULL;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->run = run;
	if (o->pf)
		r->pf = *o->pf;
	if (o->max_cores < 1 || o->max_cores > TL_PREDICT_MAX_CORES)
		return tl_error("cores: 1 to %d", TL_PREDICT_MAX_CORES);
	if (tl_run_start(run) < 0)
		return -1;
	tl_run_walk_opts(run, &wo);
	wo.ctx = &g;
	wo.on_span = on_span;
	if (!(w = tl_walk_new(&wo, &run->info)) || tl_walk_run(w, run->trace) < 0)
		goto out;
	if (g.oom) {
		tl_error("out of memory while reading the tasks");
		goto out;
	}
	if (tl_run_keep(run, tl_walk_result(w)) < 0)
		goto out;
	if (!g.n) {
		tl_error("no complete task in the trace: mark them with tl_task_begin/tl_task_end (docs/MARKERS.md)");
		goto out;
	}
	if (g.nother) {
		tl_error("tasks were marked on %d%s threads: predict reads a sequential run (one thread's tasks); "
		         "--tid picks one",
		         1 + g.nother, g.nother == 16 ? " or more" : "");
		goto out;
	}
	r->tid = g.tid;
	r->tasks = g.n;
	for (size_t i = 0; o->dirs && i < o->dirs->n; i++) {
		size_t k = 0;
		while (k < g.n && g.s[k].dir != &o->dirs->d[i])
			k++;
		r->unused += k == g.n;
	}
	if (!(nodes = build_tree(&g, r)))
		goto out;
	tl_predict_unmark(nodes, g.n, o, r);
	r->seq_ns = nodes[0].end - nodes[0].begin;
	r->par_ns = parallel_time(nodes, 0);
	region_seq(r, nodes, g.n);
	rc = predict_all(r, nodes, o);
out:
	tl_walk_free(w);
	free(g.s);
	free(nodes);
	if (rc)
		tl_predict_release(r);
	return rc;
}

void tl_predict_release(struct tl_predict_result *r)
{
	for (size_t j = 0; j < r->nregions; j++) {
		free(r->regions[j].time_ns);
		free(r->regions[j].core_ns);
	}
	free(r->regions);
	free(r->p);
	memset(r, 0, sizeof(*r));
}
