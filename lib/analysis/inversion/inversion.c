/*
 * inversion.c - priority inversion (inversion.h).
 *
 * Invariants: a thread's ring holds its last TL_INV_RING READY_PREEMPT
 * stretches, oldest first from `head`; an inversion record exists for
 * each (waiter, holder, preemptor) with some time.  A tid reused by a new
 * thread starts an empty ring (the serial differs).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/inversion/inversion.h"
#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"

struct stretch {
	uint64_t start, end;
	int32_t by;
};

struct ring {
	int32_t tid; /* the tidmap key: first */
	uint32_t serial;
	struct stretch s[TL_INV_RING];
	unsigned head, n;
};

struct tl_inversions {
	struct tl_sched *sched;
	const struct tl_walk_result *r;
	struct tl_tidmap rings;
	struct tl_inversion *items;
	size_t n, cap;
	int oom;
};

struct tl_inversions *tl_inversion_new(struct tl_sched *sched, const struct tl_walk_result *r)
{
	struct tl_inversions *v = calloc(1, sizeof(*v));

	if (!v) {
		tl_error("out of memory");
		return NULL;
	}
	v->sched = sched;
	v->r = r;
	if (tl_tidmap_init(&v->rings, sizeof(struct ring)) < 0) {
		free(v);
		return NULL;
	}
	return v;
}

void tl_inversion_preempted(struct tl_inversions *v, const struct tl_thread *th, const struct tl_interval *iv)
{
	struct ring *r;
	int created;

	if (iv->state != TL_ST_READY_PREEMPT || iv->by <= 0 || th->tid <= 0)
		return;
	if (!(r = tl_tidmap_put(&v->rings, th->tid, &created))) {
		v->oom = 1;
		return;
	}
	if (created || r->serial != th->serial) {
		r->serial = th->serial;
		r->head = r->n = 0;
	}
	r->s[(r->head + r->n) % TL_INV_RING] = (struct stretch){ iv->start, iv->end, iv->by };
	if (r->n < TL_INV_RING)
		r->n++;
	else
		r->head = (r->head + 1) % TL_INV_RING;
}

static struct tl_inversion *record(struct tl_inversions *v, const struct tl_thread *h, const struct tl_thread *l,
                                   const struct tl_thread *m)
{
	struct tl_inversion *x;

	for (size_t i = 0; i < v->n; i++)
		if (v->items[i].waiter == h->tid && v->items[i].holder == l->tid && v->items[i].preemptor == m->tid)
			return &v->items[i];
	if (TL_GROW(v->items, v->cap, v->n + 1) < 0) {
		v->oom = 1;
		return NULL;
	}
	x = &v->items[v->n++];
	memset(x, 0, sizeof(*x));
	x->pid = h->tgid;
	x->waiter = h->tid;
	x->holder = l->tid;
	x->preemptor = m->tid;
	return x;
}

void tl_inversion_lock_wait(struct tl_inversions *v, const struct tl_thread *th, const struct tl_interval *iv)
{
	const struct tl_thread *l;
	const struct ring *r;

	if (iv->by <= 0 || !(l = tl_sched_thread(v->sched, iv->by)) || l->prio <= th->prio)
		return; /* no holder known, or it is not less urgent than the waiter */
	if (!(r = tl_tidmap_get(&v->rings, l->tid)) || r->serial != l->serial)
		return;
	for (unsigned i = 0; i < r->n; i++) {
		const struct stretch *s = &r->s[(r->head + i) % TL_INV_RING];
		uint64_t a = s->start > iv->start ? s->start : iv->start, b = s->end < iv->end ? s->end : iv->end;

		a = a > v->r->win_start ? a : v->r->win_start;
		b = b < v->r->win_end ? b : v->r->win_end;
		const struct tl_thread *m;
		struct tl_inversion *x;

		if (b <= a || !(m = tl_sched_thread(v->sched, s->by)) || m->prio <= th->prio || m->prio >= l->prio)
			continue; /* not inside the wait, or not a middle priority */
		if (!(x = record(v, th, l, m)))
			return;
		memcpy(x->waiter_name, th->name, TL_NAME_MAX);
		memcpy(x->holder_name, l->name, TL_NAME_MAX);
		memcpy(x->preemptor_name, m->name, TL_NAME_MAX);
		x->waiter_prio = th->prio;
		x->holder_prio = l->prio;
		x->preemptor_prio = m->prio;
		if (!x->ns || x->last != iv->end)
			x->waits++;
		x->ns += b - a;
		if (!x->first)
			x->first = iv->start;
		x->last = iv->end;
	}
}

static int cmp_ns(const void *x, const void *y)
{
	const struct tl_inversion *a = x, *b = y;

	return a->ns > b->ns ? -1 : a->ns < b->ns;
}

int tl_inversion_finish(struct tl_inversions *v, struct tl_inversion_result *out)
{
	memset(out, 0, sizeof(*out));
	if (v->oom)
		return tl_error("out of memory while looking for priority inversions");
	out->items = v->items;
	out->n = v->n;
	v->items = NULL;
	v->n = v->cap = 0;
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), cmp_ns);
	return 0;
}

void tl_inversion_free(struct tl_inversions *v)
{
	if (!v)
		return;
	tl_tidmap_release(&v->rings);
	free(v->items);
	free(v);
}

void tl_inversion_release(struct tl_inversion_result *r)
{
	free(r->items);
	memset(r, 0, sizeof(*r));
}
