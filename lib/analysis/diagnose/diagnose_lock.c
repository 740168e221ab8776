/*
 * diagnose_lock.c - lock contention (docs/DIAGNOSE.md, lock-contention):
 * threads that wait for a lock a large share of their lives, one finding
 * per lock where the trace names the lock (the futex word: analysis/locks),
 * else one per thread.
 *
 * A thread qualifies as before: its lock waits (SYNC_WAIT in a lock's
 * futex: FUTEX_WAIT or LOCK_PI, which glibc's mutexes use; a condition
 * variable, a join or a semaphore waits with WAIT_BITSET and is waiting
 * for work, not for a lock), less its waits at parallel regions'
 * barriers, take at least lock_wait_pct of its life and min_cost_ns.  Its
 * lock is the one it waited on longest, when that is at least half of its
 * lock waits; the qualifying threads of one lock make one finding, with
 * the lock's waiters, its holders (the threads whose wakeups ended the
 * waits) and what they did meanwhile, from which the cause and the fix
 * follow.  A thread whose waits have no known word (traces before format
 * 1.9, `record --no-futex`) gets a finding of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose/diagnose_int.h"

/* A qualifying thread, and its lock (NULL: none known). */
struct waiter {
	const struct tl_thread_stats *t;
	const struct tl_lock *lock;
	uint64_t w;  /* its lock waits less its waits at regions' barriers */
	uint64_t on; /* its waits on the lock */
};

/*
 * What the holders did while the waiters waited (h: lockhold.h's classes,
 * back along a convoy: the holders before a holder that waited for the
 * lock too; convoy: the part in which the last holder waited for a lock):
 * on a CPU, asleep or blocked, waiting for a CPU.  The cause and the fix
 * follow the largest share, asleep or blocked told apart by the larger
 * (blocked: uninterruptible in the kernel, mostly block I/O); on a CPU
 * when the trace cannot tell (all unknown).  The convoy's share is evidence, and named in the cause from
 * 50%.  `many`: the finding is a lock's, with several waiters.
 */
static void lock_holders(struct tl_finding *f, const uint64_t h[TL_LH__COUNT], uint64_t convoy, int many)
{
	uint64_t all = 0, run = h[TL_LH_RUNNING], queued = h[TL_LH_QUEUED], slept = h[TL_LH_ASLEEP] + h[TL_LH_BLOCKED];
	const char *waits = many ? "their waits" : "its waits", *waiting = many ? "they wait" : "it waits";
	char cv[160] = "";

	for (unsigned k = 0; k < TL_LH__COUNT; k++)
		all += h[k];
	tl_dg_add_evidence(f, "holders on a CPU meanwhile, % of the waits", tl_dg_pct(run, all), NAN, "%", 1);
	tl_dg_add_evidence(f, "holders asleep or blocked meanwhile, %", tl_dg_pct(slept, all), NAN, "%", 1);
	tl_dg_add_evidence(f, "holders blocked in I/O (D state) meanwhile, %", tl_dg_pct(h[TL_LH_BLOCKED], all), NAN,
	                   "%", 1);
	tl_dg_add_evidence(f, "holders waiting for a CPU meanwhile, %", tl_dg_pct(queued, all), NAN, "%", 1);
	tl_dg_add_evidence(f, "holder waiting for the lock too (a convoy), %", tl_dg_pct(convoy, all), NAN, "%", 1);
	if (tl_dg_pct(convoy, all) >= 50)
		snprintf(cv, sizeof(cv),
		         "; a convoy: in %.0f%% of %s the holder waited for the lock too, and what the holders before "
		         "it did counts",
		         tl_dg_pct(convoy, all), waits);
	if (slept > run && slept >= queued && h[TL_LH_BLOCKED] > h[TL_LH_ASLEEP]) {
		snprintf(f->cause, sizeof(f->cause),
		         "the holders block on I/O while they hold the lock (%.0f%% of %s asleep or blocked, %.0f%% "
		         "blocked in the kernel: a write, a read or a sync of a file, or a page fault, inside the "
		         "critical section), and %s on a lock's futex until they release it%s",
		         tl_dg_pct(slept, all), waits, tl_dg_pct(h[TL_LH_BLOCKED], all), waiting, cv);
		snprintf(f->fix, sizeof(f->fix),
		         "move the I/O out of the critical section: fill the buffer under the lock and write or sync "
		         "it after unlocking (or from one thread that owns the file), so that the lock is never held "
		         "across the disk");
	} else if (slept > run && slept >= queued) {
		snprintf(f->cause, sizeof(f->cause),
		         "the holders sleep or block while they hold the lock (%.0f%% of %s: a sleep, I/O, another "
		         "lock or a condition inside the critical section), and %s on a lock's futex until they "
		         "release it%s",
		         tl_dg_pct(slept, all), waits, waiting, cv);
		snprintf(f->fix, sizeof(f->fix),
		         "move the blocking call (the I/O, the sleep, the wait on another lock or condition) out of "
		         "the critical section: prepare outside the lock and hold it only to publish the result");
	} else if (queued > run) {
		snprintf(f->cause, sizeof(f->cause),
		         "the holders wait for a CPU while they hold the lock (%.0f%% of %s): other runnable "
		         "threads preempt them inside the critical section, and %s on a lock's futex meanwhile%s",
		         tl_dg_pct(queued, all), waits, waiting, cv);
		snprintf(f->fix, sizeof(f->fix),
		         "keep the runnable threads to the CPUs (see oversubscription), or give the holders a CPU of "
		         "their own or a higher priority while they hold the lock");
	} else {
		snprintf(f->cause, sizeof(f->cause),
		         "%s on a lock's futex (a mutex, a reader-writer lock, or a barrier outside marked regions) "
		         "that the threads "
		         "named as holders release, and they run their critical sections on a CPU meanwhile (%.0f%% "
		         "of %s): long critical sections%s",
		         many ? "they block" : "it blocks", tl_dg_pct(run, all), waits, cv);
		snprintf(f->fix, sizeof(f->fix),
		         "shorten the critical sections of the holders, split the lock, or hand work over through a "
		         "queue so that the waiters do not depend on one lock");
	}
}

/* A thread's finding of its own: its lock waits whatever the lock (no futex words). */
static int thread_finding(struct tl_dg_ctx *c, const struct waiter *x)
{
	const struct tl_thread_stats *t = x->t;
	uint64_t rs = t->lock_wait_ns - x->w;
	struct tl_finding *f;
	int r = tl_dg_share_finding(c, t, TL_FIND_LOCK_CONTENTION, x->w, c->o->lock_wait_pct, "waits on a lock",
	                            "waiter", "share of the thread's life waiting on locks",
	                            "time waiting on locks (in a lock's futex)", &f);

	if (r <= 0)
		return r;
	tl_dg_add_wakers(f, t->lock_wakers, t->nlock_wakers, "holder", 3); /* who ended its lock waits */
	tl_dg_add_evidence(f, "all SYNC_WAIT (conditions and joins too)", (double)t->state_ns[TL_ST_SYNC_WAIT], NAN,
	                   "ns", 1);
	tl_dg_add_evidence(f, "waits that ended (SYNC_WAIT entries)", (double)t->entries[TL_ST_SYNC_WAIT], NAN, "", 1);
	if (rs)
		tl_dg_add_evidence(f, "left out: waits at parallel regions' barriers", (double)rs, NAN, "ns", 1);
	lock_holders(f, t->lock_holder_ns, t->lock_convoy_ns, 0);
	return 0;
}

/* The finding of lock k's qualifying waiters w[0..n) (n >= 1, the most time on it first). */
static int lock_finding(struct tl_dg_ctx *c, const struct tl_lock *k, const struct waiter *w, size_t n)
{
	uint64_t cost = 0, base = 0, from = UINT64_MAX, to = 0;
	double lo = 100, hi = 0;
	char lock[TL_LOCK_NAME_MAX + 24];
	struct tl_finding *f;

	for (size_t i = 0; i < n; i++) {
		double pct = tl_dg_pct(w[i].w, tl_dg_lifetime(w[i].t));

		cost += w[i].on < w[i].w ? w[i].on : w[i].w;
		base += tl_dg_lifetime(w[i].t);
		lo = pct < lo ? pct : lo;
		hi = pct > hi ? pct : hi;
		from = w[i].t->start < from ? w[i].t->start : from;
		to = w[i].t->end > to ? w[i].t->end : to;
	}
	if (!(f = tl_dg_new_finding_at(c, TL_FIND_LOCK_CONTENTION, k->pid, w[0].t->process, from, to, cost, base)))
		return -1;
	/* what holds the word, as the recorder read it (FUTEX_NAME), and what diff matches it by, run after run */
	snprintf(f->lock, sizeof(f->lock), "%s", k->name);
	tl_lock_label(k->addr, k->name, lock, sizeof(lock)); /* "[heap]" with its address: many share it */
	if (n == 1)
		snprintf(f->title, sizeof(f->title), "%.32s (%d) waits on lock %.64s %.0f%% of its life", w[0].t->name,
		         w[0].t->tid, lock, hi);
	else if (lrint(lo) == lrint(hi)) /* "50% of their lives", not "50-50%" */
		snprintf(f->title, sizeof(f->title), "%zu threads wait on lock %.64s, %.0f%% of their lives", n, lock,
		         hi);
	else
		snprintf(f->title, sizeof(f->title), "%zu threads wait on lock %.64s, %.0f-%.0f%% of their lives", n,
		         lock, lo, hi);
	for (size_t i = 0; i < n; i++)
		tl_dg_add_thread(f, w[i].t->tid, w[i].t->pid, w[i].t->name, "waiter");
	for (size_t i = 0, added = 0; i < k->nholders && added < 3; i++) {
		size_t j = 0;

		while (j < f->nthreads && f->threads[j].tid != k->holders[i].tid)
			j++;
		if (j == f->nthreads) { /* a holder that is no waiter named here */
			tl_dg_add_thread(f, k->holders[i].tid, k->pid, k->holders[i].name, "holder");
			added++;
		}
	}
	tl_dg_add_evidence(
	        f, n == 1 ? "share of the thread's life waiting on locks" : "most of a waiter's life waiting on locks",
	        hi, c->o->lock_wait_pct, "%", 1);
	tl_dg_add_evidence(f, "time waiting on this lock (in its futex)", (double)cost, (double)c->o->min_cost_ns, "ns",
	                   1);
	tl_dg_add_evidence(f, "threads that waited on it", (double)k->nwaiters, NAN, "", 1);
	tl_dg_add_evidence(f, "waits on it that ended", (double)k->waits, NAN, "", 1);
	lock_holders(f, k->holder_ns, k->convoy_ns, n > 1);
	return 0;
}

/* t's lock: the one it waited on longest, if known and at least half of its lock waits; *on its time there. */
static const struct tl_lock *lock_of(const struct tl_model *m, const struct tl_thread_stats *t, uint64_t *on)
{
	const struct tl_lock *best = NULL;

	*on = 0;
	for (size_t i = 0; i < m->locks.n; i++) {
		const struct tl_lock *k = &m->locks.items[i];

		if (k->pid != t->pid || !k->addr)
			continue;
		for (size_t j = 0; j < k->nwaiters; j++)
			if (k->waiters[j].tid == t->tid && k->waiters[j].ns > *on) {
				*on = k->waiters[j].ns;
				best = k;
			}
	}
	return best && *on * 2 >= t->lock_wait_ns ? best : NULL;
}

static int cmp_waiter(const void *a, const void *b)
{
	const struct waiter *x = a, *y = b;

	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	if (x->on != y->on)
		return x->on > y->on ? -1 : 1;
	return (x->t->tid > y->t->tid) - (x->t->tid < y->t->tid);
}

int tl_dg_locks(struct tl_dg_ctx *c)
{
	const struct tl_model *m = c->m;
	struct waiter *w = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*w));
	size_t n = 0;
	int ret = 0;

	if (!w)
		return -1;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct tl_thread_stats *t = &m->threads[i];
		uint64_t rs = tl_dg_rsync(c, t), life = tl_dg_lifetime(t);
		struct waiter x = { .t = t, .w = t->lock_wait_ns > rs ? t->lock_wait_ns - rs : 0 };

		if (tl_dg_pct(x.w, life) < c->o->lock_wait_pct || x.w < c->o->min_cost_ns)
			continue;
		x.lock = lock_of(m, t, &x.on);
		w[n++] = x;
	}
	if (n > 1)
		qsort(w, n, sizeof(*w), cmp_waiter);
	for (size_t i = 0; i < n && !ret;) {
		size_t j = i + 1;

		if (!w[i].lock) {
			ret = thread_finding(c, &w[i]);
			i++;
			continue;
		}
		while (j < n && w[j].lock == w[i].lock)
			j++;
		ret = lock_finding(c, w[i].lock, w + i, j - i);
		i = j;
	}
	free(w);
	return ret;
}
