/*
 * herd.c - wakeups that find nothing to do (herd.h).
 *
 * Invariants: a thread's record (at its serial) has `burst` set while its
 * run is going on: the burst it was woken in (index + 1) and its slot
 * there; `ns` is the run's time on a CPU so far.  A burst is `open` while
 * it is its waker's latest (more wakeups may join it); it is judged and
 * its slot reused once it is closed and every run of it has ended.  The
 * waker map's entry points at the waker's latest burst, which is open, so
 * it never points at a reused slot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/herd/herd.h"
#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"
#include "timeline/taken.h"

struct thr {
	uint32_t burst;  /* index + 1 in bursts of the run going on; 0: none */
	uint32_t slot;   /* its run's index in the burst */
	uint64_t ns;     /* the run's time on a CPU so far */
	uint64_t queued; /* and waiting for one */
	char name[TL_NAME_MAX];
	uint64_t pend; /* steal in its stays (CLOCK_TAKEN, timeline/taken.h) not yet taken out of a run */
};

struct run {
	int32_t tid;
	uint32_t serial;
	uint64_t ns, queued;
};

struct burst {
	int32_t waker, pid;
	char waker_name[TL_NAME_MAX];
	uint64_t start, last;
	int open;
	uint32_t ended;
	uint64_t longest;
	struct run *runs;
	size_t nruns, runs_cap;
	uint32_t next_free; /* index + 1 of the next free slot, while free */
};

struct waker {
	int32_t tid;    /* the tidmap key: first */
	uint32_t burst; /* index + 1 of its latest burst */
};

struct tl_herds {
	struct tl_sched *sched;
	const struct tl_walk_result *r;
	struct thr *thr; /* by serial */
	size_t thr_cap;
	struct burst *bursts;
	size_t nbursts, bursts_cap;
	uint32_t free; /* index + 1 of the first free burst slot */
	struct tl_tidmap wakers;
	struct tl_tidmap woken; /* tids woken in bursts of TL_HERD_MIN or more (int32_t keys only) */
	struct tl_herd *out;
	size_t nout, out_cap;
	struct tl_taken tk;
	int oom;
};

struct tl_herds *tl_herd_new(struct tl_sched *sched, const struct tl_walk_result *r)
{
	struct tl_herds *h = calloc(1, sizeof(*h));

	if (!h || tl_tidmap_init(&h->wakers, sizeof(struct waker)) < 0) {
		free(h);
		tl_error("out of memory");
		return NULL;
	}
	if (tl_tidmap_init(&h->woken, sizeof(int32_t)) < 0) {
		tl_tidmap_release(&h->wakers);
		free(h);
		tl_error("out of memory");
		return NULL;
	}
	h->sched = sched;
	h->r = r;
	return h;
}

static struct tl_herd *result_of(struct tl_herds *h, const struct burst *b)
{
	struct tl_herd *x;

	for (size_t i = 0; i < h->nout; i++)
		if (h->out[i].pid == b->pid && h->out[i].waker == b->waker)
			return &h->out[i];
	if (TL_GROW(h->out, h->out_cap, h->nout + 1) < 0)
		return NULL;
	x = &h->out[h->nout++];
	memset(x, 0, sizeof(*x));
	x->pid = b->pid;
	x->waker = b->waker;
	memcpy(x->waker_name, b->waker_name, sizeof(x->waker_name));
	x->first = b->start;
	return x;
}

static void count_thread(struct tl_herds *h, struct tl_herd *x, const struct run *u)
{
	size_t i;

	for (i = 0; i < x->nthreads && x->threads[i].tid != u->tid; i++)
		;
	if (i == x->nthreads) {
		if (i == TL_HERD_THREADS)
			return; /* the first TL_HERD_THREADS threads are kept */
		x->nthreads++;
		x->threads[i].tid = u->tid;
		memcpy(x->threads[i].name, h->thr[u->serial].name, sizeof(x->threads[i].name));
	}
	x->threads[i].futile++;
}

/* A closed burst whose runs have all ended: count it, free its slot. */
static void judge(struct tl_herds *h, struct burst *b)
{
	struct tl_herd *x;

	if (b->nruns >= TL_HERD_MIN && b->start >= h->r->win_start && b->start <= h->r->win_end) {
		if (!(x = result_of(h, b))) {
			h->oom = 1;
		} else {
			/*
			 * A burst whose work another thread took (one still running
			 * from the burst before) has futile runs only: judged against
			 * what the longest run took in the bursts before it.
			 */
			uint64_t ref = b->longest > x->work_run ? b->longest : x->work_run;

			x->bursts++;
			x->woken += b->nruns;
			x->last = b->start;
			if (!x->work_run) {
				x->work_run = b->longest;
			} else {
				/*
				 * Every burst moves it, and no burst by more than
				 * twice it: taken only from bursts that had work,
				 * one stretched run (202 us against 60) made every
				 * later burst look workless and it never came down
				 * (1,500 bursts, +7% futile runs, in 2 of 31 runs).
				 */
				uint64_t in = b->longest < 2 * x->work_run ? b->longest : 2 * x->work_run;

				x->work_run = x->work_run - x->work_run / 8 + in / 8;
			}
			for (size_t i = 0; i < b->nruns; i++) {
				const struct run *u = &b->runs[i];

				if (!tl_tidmap_put(&h->woken, u->tid, NULL))
					h->oom = 1;
				x->queued_ns += u->queued;
				if (u->ns < TL_HERD_FUTILE_NS && u->ns * TL_HERD_FUTILE_DIV < ref) {
					x->futile++;
					x->futile_ns += u->ns;
					count_thread(h, x, u);
				} else {
					x->work_ns += u->ns;
				}
			}
		}
	}
	b->nruns = 0;
	b->next_free = h->free;
	h->free = (uint32_t)(b - h->bursts) + 1;
}

static void end_run(struct tl_herds *h, struct thr *t)
{
	struct burst *b = &h->bursts[t->burst - 1];

	b->runs[t->slot].ns = t->ns;
	b->runs[t->slot].queued = t->queued;
	if (t->ns > b->longest)
		b->longest = t->ns;
	b->ended++;
	t->burst = 0;
	if (!b->open && b->ended == b->nruns)
		judge(h, b);
}

static void close_burst(struct tl_herds *h, struct burst *b)
{
	b->open = 0;
	if (b->ended == b->nruns)
		judge(h, b);
}

static struct burst *new_burst(struct tl_herds *h)
{
	struct burst *b;

	if (h->free) {
		b = &h->bursts[h->free - 1];
		h->free = b->next_free;
	} else {
		if (TL_GROW_ZERO(h->bursts, h->bursts_cap, h->nbursts + 1) < 0)
			return NULL;
		b = &h->bursts[h->nbursts++];
	}
	b->open = 1;
	b->ended = 0;
	b->longest = 0;
	b->nruns = 0;
	return b;
}

/* Whether thread `serial` was woken in burst b already (a burst wakes each thread once). */
static int member(const struct burst *b, uint32_t serial)
{
	for (size_t i = 0; i < b->nruns; i++)
		if (b->runs[i].serial == serial)
			return 1;
	return 0;
}

/* t (thread th) was woken at `at` from a wait for work by thread `waker`: its run begins. */
static void join(struct tl_herds *h, struct thr *t, const struct tl_thread *th, int32_t waker, uint64_t at)
{
	struct waker *w = tl_tidmap_put(&h->wakers, waker, NULL);
	struct burst *b = w && w->burst ? &h->bursts[w->burst - 1] : NULL;

	if (!w) {
		h->oom = 1;
		return;
	}
	if (!b || b->pid != th->tgid || at > b->last + TL_HERD_GAP_NS || member(b, th->serial)) {
		if (b)
			close_burst(h, b);
		if (!(b = new_burst(h))) {
			h->oom = 1;
			return;
		}
		w->burst = (uint32_t)(b - h->bursts) + 1;
		b->waker = waker;
		b->pid = th->tgid;
		b->start = at;
	}
	if (TL_GROW(b->runs, b->runs_cap, b->nruns + 1) < 0) {
		h->oom = 1;
		return;
	}
	b->runs[b->nruns] = (struct run){ th->tid, th->serial, 0, 0 };
	t->burst = (uint32_t)(b - h->bursts) + 1;
	t->slot = (uint32_t)b->nruns++;
	t->ns = t->queued = 0;
	memcpy(t->name, th->name, sizeof(t->name));
	b->last = at;
	if (b->nruns == TL_HERD_MIN) {
		/* a burst that counts: name its waker (most wakeups are one thread's, and not named) */
		const struct tl_thread *wt = tl_sched_thread(h->sched, waker);

		snprintf(b->waker_name, sizeof(b->waker_name), "%s", wt ? wt->name : "?");
	}
}

/* th's record, NULL for none (or out of memory). */
static struct thr *thr_of(struct tl_herds *h, const struct tl_thread *th)
{
	if (h->oom || !th || th->tid <= 0)
		return NULL;
	if (th->serial >= h->thr_cap && TL_GROW_ZERO(h->thr, h->thr_cap, (size_t)th->serial + 1) < 0) {
		h->oom = 1;
		return NULL;
	}
	return &h->thr[th->serial];
}

void tl_herd_event(struct tl_herds *h, const struct tl_thread *th, const struct tl_event *ev)
{
	uint64_t ns;
	struct thr *t;

	/* th: ev->tid's thread for a CLOCK_TAKEN (report.c looks it up) */
	if (tl_taken_event(&h->tk, ev, &ns) == TL_TAKEN_GREW && ns && th && ev->tid == th->tid && (t = thr_of(h, th)))
		t->pend += ns;
	h->oom |= h->tk.oom;
}

void tl_herd_interval(struct tl_herds *h, const struct tl_thread *th, const struct tl_interval *iv, int lock)
{
	struct thr *t = thr_of(h, th);

	if (!t)
		return;
	if (tl_state_is_oncpu(iv->state)) {
		uint64_t len = iv->end - iv->start, steal = t->pend < len ? t->pend : len;

		t->pend -= steal; /* what the hypervisor took of it: no run */
		if (t->burst)
			t->ns += len - steal;
		return;
	}
	if (tl_state_is_ready(iv->state)) {
		if (t->burst)
			t->queued += iv->end - iv->start;
		return;
	}
	if (iv->state == TL_ST_SYNC_WAIT && lock)
		return; /* part of the run */
	if (t->burst)
		end_run(h, t); /* it waits for work again, or sleeps otherwise */
	if ((iv->state == TL_ST_SYNC_WAIT || iv->state == TL_ST_SLEEPING) && iv->next == TL_ST_RUNNABLE && iv->by > 0)
		join(h, t, th, iv->by, iv->end);
}

static int cmp_futile(const void *a, const void *b)
{
	const struct tl_herd *x = a, *y = b;

	if (x->futile_ns != y->futile_ns)
		return x->futile_ns < y->futile_ns ? 1 : -1;
	return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : (x->waker < y->waker ? -1 : x->waker > y->waker);
}

static int cmp_woken(const void *a, const void *b)
{
	const struct tl_herd_woken *x = a, *y = b;

	if (x->futile != y->futile)
		return x->futile < y->futile ? 1 : -1;
	return x->tid - y->tid;
}

int tl_herd_finish(struct tl_herds *h, struct tl_herd_result *out)
{
	memset(out, 0, sizeof(*out));
	/* the runs still going count as they stand; then every burst is closed */
	for (size_t i = 0; i < h->thr_cap && !h->oom; i++)
		if (h->thr[i].burst)
			end_run(h, &h->thr[i]);
	for (size_t i = 0; i < h->nbursts && !h->oom; i++)
		if (h->bursts[i].open)
			close_burst(h, &h->bursts[i]);
	if (h->oom)
		return tl_error("out of memory while looking for wakeups that find nothing to do");
	for (size_t i = 0; i < h->nout; i++) {
		h->out[i].peer = tl_tidmap_get(&h->woken, h->out[i].waker) != NULL;
		qsort(h->out[i].threads, h->out[i].nthreads, sizeof(h->out[i].threads[0]), cmp_woken);
	}
	if (h->nout > 1)
		qsort(h->out, h->nout, sizeof(*h->out), cmp_futile);
	out->items = h->out;
	out->n = h->nout;
	h->out = NULL;
	h->nout = h->out_cap = 0;
	return 0;
}

void tl_herd_free(struct tl_herds *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nbursts; i++)
		free(h->bursts[i].runs);
	free(h->bursts);
	free(h->thr);
	tl_taken_free(&h->tk);
	free(h->out);
	tl_tidmap_release(&h->wakers);
	tl_tidmap_release(&h->woken);
	free(h);
}

void tl_herd_release(struct tl_herd_result *r)
{
	free(r->items);
	memset(r, 0, sizeof(*r));
}
