/*
 * lockhold.c - what a lock's holder did while a thread waited (lockhold.h).
 *
 * Invariants: a thread's record (at its serial) holds its last
 * TL_LOCKHOLD_RING intervals, oldest first from `head`; they follow one
 * another, and the thread's current state (state_since on) follows the
 * last.  A wait's time is split over the holder's intervals inside it and
 * its current state; what they do not cover (older than the ring) is
 * unknown, so the classes add up to the wait's time in the window.  A
 * holder's lock wait inside it is split the same way over the thread that
 * ended that wait, on a part of the wait that shrinks at each step, so
 * the classes still add up; the depth bounds the work and any cycle that
 * equal timestamps could make.  A holder that has exited by the time the
 * wait reaches here (the walk hands a wait over after its end; the holder
 * may exit meanwhile) is found by its tid among the rings (`serials`, the
 * latest thread of that tid), without a current state.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/lockhold/lockhold.h"
#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"

struct span {
	uint64_t start, end;
	int32_t by;     /* the interval's waker (state_machine.h) */
	uint16_t state; /* enum tl_state */
	uint8_t lock;   /* a SYNC_WAIT in a lock's futex */
};

struct thr {
	struct span ring[TL_LOCKHOLD_RING];
	unsigned head, n;
};

struct tl_lockhold {
	struct tl_sched *sched;
	const struct tl_walk_result *r;
	struct thr *thr; /* by serial */
	size_t thr_cap;
	struct tl_tidmap serials; /* tid -> the serial of its latest thread with a ring */
};

struct serial {
	int32_t tid; /* first: the map's key */
	uint32_t serial;
};

const char *tl_lockhold_class_name(unsigned c)
{
	static const char *const names[TL_LH__COUNT] = {
		[TL_LH_RUNNING] = "running", [TL_LH_QUEUED] = "queued",   [TL_LH_BLOCKED] = "blocked",
		[TL_LH_ASLEEP] = "asleep",   [TL_LH_UNKNOWN] = "unknown",
	};

	return c < TL_LH__COUNT ? names[c] : "?";
}

static unsigned class_of(unsigned state)
{
	if (tl_state_is_oncpu(state))
		return TL_LH_RUNNING;
	if (tl_state_is_ready(state))
		return TL_LH_QUEUED;
	if (state == TL_ST_IO_WAIT || state == TL_ST_BLOCKED)
		return TL_LH_BLOCKED;
	if (state == TL_ST_SLEEPING || state == TL_ST_SYNC_WAIT)
		return TL_LH_ASLEEP;
	return TL_LH_UNKNOWN;
}

struct tl_lockhold *tl_lockhold_new(struct tl_sched *sched, const struct tl_walk_result *r)
{
	struct tl_lockhold *h = calloc(1, sizeof(*h));

	if (!h) {
		tl_error("out of memory");
		return NULL;
	}
	h->sched = sched;
	h->r = r;
	if (tl_tidmap_init(&h->serials, sizeof(struct serial)) < 0) {
		free(h);
		return NULL;
	}
	return h;
}

int tl_lockhold_interval(struct tl_lockhold *h, const struct tl_thread *th, const struct tl_interval *iv, int lock)
{
	struct span s = { iv->start, iv->end, iv->by, iv->state, lock && iv->state == TL_ST_SYNC_WAIT };
	struct thr *t;

	if (th->serial >= h->thr_cap && TL_GROW_ZERO(h->thr, h->thr_cap, (size_t)th->serial + 1) < 0)
		return -1;
	t = &h->thr[th->serial];
	if (!t->n) { /* its first interval: the tid's latest thread from now on */
		struct serial *x = tl_tidmap_put(&h->serials, th->tid, NULL);

		if (!x)
			return -1;
		x->serial = th->serial;
	}
	if (t->n < TL_LOCKHOLD_RING) {
		t->ring[t->n++] = s;
	} else {
		t->ring[t->head] = s;
		t->head = (t->head + 1) % TL_LOCKHOLD_RING;
	}
	return 0;
}

/* The part of [start, end) inside [from, to). */
static uint64_t overlap(uint64_t start, uint64_t end, uint64_t from, uint64_t to)
{
	uint64_t a = start > from ? start : from, b = end < to ? end : to;

	return b > a ? b - a : 0;
}

/*
 * What thread `by` did in [from, to) (from < to), by class into out[]; its
 * own lock waits go to the threads that ended them, `depth` steps on at
 * most, and (at the first step) to *convoy as well.
 */
static void holder_did(const struct tl_lockhold *h, int32_t by, uint64_t from, uint64_t to, unsigned depth,
                       uint64_t out[TL_LH__COUNT], uint64_t *convoy)
{
	struct tl_thread *holder = by > 0 ? tl_sched_thread(h->sched, by) : NULL;
	const struct thr *t = holder && holder->serial < h->thr_cap ? &h->thr[holder->serial] : NULL;
	uint64_t covered = 0;

	if (!holder && by > 0) { /* exited since: its ring alone */
		const struct serial *x = tl_tidmap_get(&h->serials, by);

		t = x && x->serial < h->thr_cap ? &h->thr[x->serial] : NULL;
	}
	/* newest first: the spans follow one another, so the first that ends before the wait ends the search */
	for (unsigned i = t ? t->n : 0; i-- > 0;) {
		const struct span *s = &t->ring[(t->head + i) % TL_LOCKHOLD_RING];
		uint64_t ns = overlap(s->start, s->end, from, to);

		if (s->end <= from)
			break;
		if (ns && s->lock && s->by > 0 && s->by != by) {
			if (convoy)
				*convoy += ns;
			if (depth > 1)
				holder_did(h, s->by, s->start > from ? s->start : from, s->end < to ? s->end : to,
				           depth - 1, out, NULL);
			else
				out[TL_LH_UNKNOWN] += ns;
		} else {
			out[class_of(s->state)] += ns;
		}
		covered += ns;
	}
	if (holder) {
		uint64_t ns = overlap(holder->state_since, to, from, to);

		out[class_of(holder->state)] += ns;
		covered += ns;
	}
	out[TL_LH_UNKNOWN] += to - from > covered ? to - from - covered : 0;
}

void tl_lockhold_wait(struct tl_lockhold *h, const struct tl_interval *iv, uint64_t out[TL_LH__COUNT], uint64_t *convoy)
{
	uint64_t from = iv->start > h->r->win_start ? iv->start : h->r->win_start;
	uint64_t to = iv->end < h->r->win_end ? iv->end : h->r->win_end;

	if (to > from)
		holder_did(h, iv->by, from, to, TL_LOCKHOLD_DEPTH, out, convoy);
}

void tl_lockhold_free(struct tl_lockhold *h)
{
	if (!h)
		return;
	tl_tidmap_release(&h->serials);
	free(h->thr);
	free(h);
}
