/*
 * load.c - the number of each process's threads that want a CPU, over time
 * (load.h).
 *
 * Invariants: a thread's record says whether its current state wants a
 * CPU; a process's level is the number of its live threads whose record
 * says so; at_level[] holds the time up to `since`, and the level has not
 * changed since `since`.  A change dated before `since` (the first
 * interval of a thread that was running when the trace began closes after
 * other threads' changes; small disorder) is applied to the past exactly:
 * the process keeps a log of its last LOG_CAP level changes, and the time
 * of each logged stretch after the change's date moves to the level one
 * up (or down).  Older than the log, the change is dated at the log's
 * start, and that time is counted in `approx_ns`.  The log starts small
 * and doubles up to LOG_CAP (most processes of a system-wide trace live
 * for a few changes: a fixed log of LOG_CAP was 16 kB each, 150 MB for the
 * 5,400 short processes of a 2 s recording of 200 shell loops).
 *
 * Lookups are constant time, for traces of many processes: a thread's
 * record is at its serial, it remembers its process's index, and a pid
 * map finds the rest.
 *
 * Idle CPUs: the machine keeps the number of threads on a CPU (`oncpu`,
 * from the same intervals; `idle` is N less it, at least 0) and, for j =
 * 1..N-1, idle_int[j], the integral of min(j, idle) over the window up to
 * mach_since (mach_at: it clipped to the window); the value at any later
 * instant follows from `idle` since then (idle_integral()).  A
 * process at level k in 1..N-1 marks idle_integral(1) and (N - k) when
 * its level changes and adds the growth to idle_under_ns and
 * idle_spare_ns when it changes again: exact in time order.  A change
 * dated before mach_since (a thread on a CPU when the trace began) counts
 * from mach_since; a rewritten stretch keeps the idle time it was given.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/load/load.h"
#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"

/* A thread instance, at its serial (state_machine.h: dense from 1, a reused tid gets a new one). */
struct thr {
	int32_t pid;
	uint32_t proc; /* its process's index in procs, + 1; 0 until looked up */
	uint8_t seen, wants, oncpu;
};

#define LOG_CAP 1024 /* a power of two, as is every size of the log */
#define LOG_MIN 8

/* A stretch at one level: from t to the next entry's t (the newest: to `since`). */
struct seg {
	uint64_t t;
	int level;
};

struct proc {
	struct tl_load_proc st;
	int level;
	uint64_t since;
	struct seg *log; /* a ring of lcap: the last `nlog` stretches, the newest at head - 1 */
	size_t lcap, head, nlog;
	uint64_t mark_under, mark_spare; /* idle_integral(1) and (N - level) at since */
};

struct tl_load {
	const struct tl_walk_result *r;
	struct thr *thr; /* by serial */
	size_t thr_cap;
	struct tl_tidmap pids; /* pid (> 0) -> struct pidx */
	struct proc *procs;
	size_t n, cap;
	int oom;
	/* the machine: threads on a CPU since mach_since; idle_int[1..ncpus - 1] (NULL: no CPUs known) */
	int ncpus, oncpu, idle;
	uint64_t mach_since, mach_at;
	uint64_t *idle_int;
};

struct pidx {
	int32_t pid; /* the tidmap key: first */
	uint32_t i;  /* index in procs */
};

static int wants(unsigned state)
{
	return tl_state_is_oncpu(state) || tl_state_is_ready(state);
}

struct tl_load *tl_load_new(const struct tl_walk_result *r)
{
	struct tl_load *l = calloc(1, sizeof(*l));

	if (!l) {
		tl_error("out of memory");
		return NULL;
	}
	l->r = r;
	if (tl_tidmap_init(&l->pids, sizeof(struct pidx)) < 0) {
		free(l);
		return NULL;
	}
	return l;
}

/* Process pid's record, made on first use; NULL when out of memory (l->oom set). */
static struct proc *proc_of(struct tl_load *l, int32_t pid)
{
	struct pidx *x = NULL;
	struct proc *p;
	int created = 1;

	if (pid > 0) {
		if (!(x = tl_tidmap_put(&l->pids, pid, &created)))
			goto oom;
		if (!created)
			return &l->procs[x->i];
	} else {
		/* a thread whose process is not known yet: few, looked for one by one */
		for (size_t i = l->n; i-- > 0;)
			if (l->procs[i].st.pid == pid)
				return &l->procs[i];
	}
	if (TL_GROW(l->procs, l->cap, l->n + 1) < 0)
		goto oom;
	p = &l->procs[l->n];
	memset(p, 0, sizeof(*p));
	if (!(p->log = malloc(LOG_MIN * sizeof(*p->log))))
		goto oom;
	if (x)
		x->i = (uint32_t)l->n;
	l->n++;
	p->st.pid = pid;
	p->lcap = LOG_MIN;
	p->log[0] = (struct seg){ 0, 0 }; /* level 0 from the beginning of time */
	p->head = p->nlog = 1;
	return p;
oom:
	if (x)
		tl_tidmap_remove(&l->pids, pid);
	l->oom = 1;
	return NULL;
}

static uint64_t clip(const struct tl_load *l, uint64_t t)
{
	return t < l->r->win_start ? l->r->win_start : t > l->r->win_end ? l->r->win_end : t;
}

/* The integral of min(j, idle CPUs), 1 <= j < ncpus, over the window up to `at` (before mach_since: to it). */
static inline uint64_t idle_integral(const struct tl_load *l, int j, uint64_t at)
{
	uint64_t b = clip(l, at);

	return l->idle_int[j] + (b > l->mach_at ? (uint64_t)(j < l->idle ? j : l->idle) * (b - l->mach_at) : 0);
}

/* The machine's count from `at` (the first interval's start), before any process's level changes. */
static void machine_start(struct tl_load *l, uint64_t at)
{
	if (l->r->ncpus < 2)
		return; /* one CPU: never a level in 1..N-1 */
	if (!(l->idle_int = calloc((size_t)l->r->ncpus, sizeof(*l->idle_int)))) {
		l->oom = 1;
		return;
	}
	l->ncpus = l->idle = l->r->ncpus;
	l->mach_since = at;
	l->mach_at = clip(l, at);
}

/* One thread more (+1) or less (-1) on a CPU, at `at`. */
static void machine_change(struct tl_load *l, uint64_t at, int delta)
{
	if (!l->idle_int)
		return;
	if (at > l->mach_since) {
		uint64_t b = clip(l, at);

		if (b > l->mach_at)
			for (int j = 1; j < l->ncpus; j++)
				l->idle_int[j] += (uint64_t)(j < l->idle ? j : l->idle) * (b - l->mach_at);
		l->mach_since = at;
		l->mach_at = b;
	}
	l->oncpu += delta; /* dated earlier: from now on */
	l->idle = l->oncpu <= 0 ? l->ncpus : l->oncpu >= l->ncpus ? 0 : l->ncpus - l->oncpu;
}

/* Room for one more stretch: a full log below LOG_CAP doubles, oldest first; at LOG_CAP the oldest goes. */
static int log_room(struct proc *p)
{
	struct seg *g;

	if (p->nlog < p->lcap || p->lcap >= LOG_CAP)
		return 0;
	if (!(g = malloc(2 * p->lcap * sizeof(*g))))
		return -1;
	for (size_t i = 0; i < p->nlog; i++)
		g[i] = p->log[(p->head + i) & (p->lcap - 1)]; /* full: the oldest is at head */
	free(p->log);
	p->log = g;
	p->head = p->nlog;
	p->lcap *= 2;
	return 0;
}

static unsigned bucket(int level)
{
	return level < TL_LOAD_LEVELS ? (unsigned)level : TL_LOAD_LEVELS - 1;
}

/* Add the time from p->since to `at` (clipped to the window) at p's level, then move since to at. */
static void advance(struct tl_load *l, struct proc *p, uint64_t at)
{
	uint64_t a = p->since, b = at;

	if (at <= p->since)
		return;
	if (a < l->r->win_start)
		a = l->r->win_start;
	if (b > l->r->win_end)
		b = l->r->win_end;
	if (b > a)
		p->st.at_level[bucket(p->level)] += b - a;
	if (p->level >= 1 && p->level < l->ncpus) {
		p->st.idle_under_ns += idle_integral(l, 1, at) - p->mark_under;
		p->st.idle_spare_ns += idle_integral(l, l->ncpus - p->level, at) - p->mark_spare;
	}
	p->since = at;
}

/* Move the time of [a, b) (clipped to the window) from one level to another. */
static void move(struct tl_load *l, struct proc *p, uint64_t a, uint64_t b, int from, int to)
{
	uint64_t *src = &p->st.at_level[bucket(from)], d;

	a = a > l->r->win_start ? a : l->r->win_start;
	b = b < l->r->win_end ? b : l->r->win_end;
	if (b <= a)
		return;
	d = b - a < *src ? b - a : *src;
	*src -= d;
	p->st.at_level[bucket(to)] += d;
}

/* A change dated `at`, before p->since: redo the logged stretches after it one level up or down. */
static void rewrite(struct tl_load *l, struct proc *p, uint64_t at, int delta)
{
	uint64_t end = p->since;
	size_t i;

	for (i = 0; i < p->nlog; i++) {
		struct seg *g = &p->log[(p->head + p->lcap - 1 - i) & (p->lcap - 1)];
		uint64_t from = g->t > at ? g->t : at;

		move(l, p, from, end, g->level, g->level + delta);
		g->level += delta;
		if (from < end && g->level > p->st.max_level)
			p->st.max_level = g->level; /* the past reached it */
		if (g->t <= at)
			return;
		end = g->t;
	}
	/* older than the log: dated at its start */
	if (end > at && end > l->r->win_start)
		p->st.approx_ns += end - (at > l->r->win_start ? at : l->r->win_start);
}

static void change(struct tl_load *l, struct thr *t, uint64_t at, int delta)
{
	struct proc *p = t->proc ? &l->procs[t->proc - 1] : proc_of(l, t->pid);

	if (p)
		t->proc = (uint32_t)(p - l->procs) + 1;
	if (!p || p->level + delta < 0)
		return; /* below zero cannot happen: a thread leaves only what it entered */
	if (at < p->since)
		rewrite(l, p, at, delta);
	advance(l, p, at);
	p->level += delta;
	if (p->level >= 1 && p->level < l->ncpus) {
		p->mark_under = idle_integral(l, 1, p->since);
		p->mark_spare = idle_integral(l, l->ncpus - p->level, p->since);
	}
	if (p->level > p->st.max_level)
		p->st.max_level = p->level;
	if (log_room(p) < 0) {
		l->oom = 1;
		return;
	}
	p->log[p->head] = (struct seg){ p->since, p->level };
	p->head = (p->head + 1) & (p->lcap - 1);
	if (p->nlog < p->lcap)
		p->nlog++;
}

void tl_load_interval(struct tl_load *l, const struct tl_thread *th, const struct tl_interval *iv)
{
	struct thr *t;
	int was, now, on;

	if (th->outsider || th->tid <= 0)
		return;
	if (!l->idle_int && !l->ncpus && !l->oom)
		machine_start(l, iv->start);
	if (th->serial >= l->thr_cap && TL_GROW_ZERO(l->thr, l->thr_cap, (size_t)th->serial + 1) < 0) {
		l->oom = 1;
		return;
	}
	t = &l->thr[th->serial];
	if (!t->seen) {
		t->seen = 1;
		t->pid = th->tgid;
	} else if (t->pid != th->tgid) {
		/* its process became known: its count moves there */
		if (t->wants)
			change(l, t, iv->start, -1);
		t->wants = 0;
		t->proc = 0;
		t->pid = th->tgid;
	}
	/* the machine first: a process's change at the same instant reads its idle CPUs up to then */
	on = tl_state_is_oncpu(iv->state);
	if (on != t->oncpu) {
		machine_change(l, iv->start, on ? 1 : -1);
		t->oncpu = on;
	}
	on = iv->next < TL_ST__COUNT && tl_state_is_oncpu(iv->next);
	if (on != t->oncpu) {
		machine_change(l, iv->end, on ? 1 : -1);
		t->oncpu = on;
	}
	/* the interval's own state: it may be the first seen of this thread */
	was = wants(iv->state);
	if (was != t->wants) {
		change(l, t, iv->start, was ? 1 : -1);
		t->wants = was;
	}
	now = iv->next < TL_ST__COUNT && wants(iv->next);
	if (now != t->wants) {
		change(l, t, iv->end, now ? 1 : -1);
		t->wants = now;
	}
}

static int cmp_pid(const void *x, const void *y)
{
	const struct tl_load_proc *a = x, *b = y;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

int tl_load_finish(struct tl_load *l, struct tl_load_result *out)
{
	memset(out, 0, sizeof(*out));
	if (l->oom)
		return tl_error("out of memory while following the load");
	out->procs = malloc((l->n ? l->n : 1) * sizeof(*out->procs));
	if (!out->procs)
		return tl_error("out of memory");
	for (size_t i = 0; i < l->n; i++) {
		advance(l, &l->procs[i], l->r->win_end);
		out->procs[i] = l->procs[i].st;
	}
	out->n = l->n;
	if (out->n > 1)
		qsort(out->procs, out->n, sizeof(*out->procs), cmp_pid);
	return 0;
}

const struct tl_load_proc *tl_load_find(const struct tl_load_result *r, int32_t pid)
{
	struct tl_load_proc key = { .pid = pid };

	return r->n ? bsearch(&key, r->procs, r->n, sizeof(*r->procs), cmp_pid) : NULL; /* sorted by tl_load_finish() */
}

void tl_load_free(struct tl_load *l)
{
	if (!l)
		return;
	free(l->thr);
	tl_tidmap_release(&l->pids);
	for (size_t i = 0; i < l->n; i++)
		free(l->procs[i].log);
	free(l->procs);
	free(l->idle_int);
	free(l);
}

void tl_load_release(struct tl_load_result *r)
{
	free(r->procs);
	memset(r, 0, sizeof(*r));
}
