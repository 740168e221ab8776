/*
 * locks.c - the contended locks, by futex word (locks.h).
 *
 * Invariants: every lock seen is one `struct lk` in `locks`, found through
 * `slots` (open addressing, linear probing, index + 1, 0 empty; kept at
 * most half full) by (pid, addr); its waiters and holders are tidmaps of
 * struct tl_lock_thread until tl_locks_finish() turns them into sorted
 * arrays.  Nothing is dropped: a lock's threads add up to its waits.  A
 * word named but never waited on as a lock's (a condition's) has no
 * waits and is left out at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/locks/locks.h"
#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"

struct lk {
	struct tl_lock pub;
	struct tl_tidmap waiters, holders;
};

struct tl_locks {
	struct lk *locks;
	size_t n, cap;
	uint32_t *slots; /* index + 1 into locks; 0 empty */
	size_t nslots;   /* a power of two, or 0 */
};

static size_t slot_of(const struct tl_locks *l, int32_t pid, uint64_t addr)
{
	uint64_t h = ((addr >> 2) ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (l->nslots - 1);
}

/* Double the slots (or make the first 64) and put every lock back. */
static int rehash(struct tl_locks *l)
{
	size_t n = l->nslots ? l->nslots * 2 : 64;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -1;
	free(l->slots);
	l->slots = s;
	l->nslots = n;
	for (size_t i = 0; i < l->n; i++) {
		size_t k = slot_of(l, l->locks[i].pub.pid, l->locks[i].pub.addr);

		while (l->slots[k])
			k = (k + 1) & (n - 1);
		l->slots[k] = (uint32_t)(i + 1);
	}
	return 0;
}

/* The lock (pid, addr), made on first sight.  NULL out of memory. */
static struct lk *lock_of(struct tl_locks *l, int32_t pid, uint64_t addr)
{
	struct lk *k;
	size_t s;

	if ((l->n + 1) * 2 > l->nslots && rehash(l) < 0)
		return NULL;
	for (s = slot_of(l, pid, addr); l->slots[s]; s = (s + 1) & (l->nslots - 1)) {
		k = &l->locks[l->slots[s] - 1];
		if (k->pub.pid == pid && k->pub.addr == addr)
			return k;
	}
	if (l->n >= UINT32_MAX - 1 || TL_GROW(l->locks, l->cap, l->n + 1) < 0)
		return NULL;
	k = &l->locks[l->n];
	memset(k, 0, sizeof(*k));
	k->pub.pid = pid;
	k->pub.addr = addr;
	/* a few threads each, and there can be thousands of locks: small maps */
	if (tl_tidmap_init_room(&k->waiters, sizeof(struct tl_lock_thread), 4) < 0)
		return NULL;
	if (tl_tidmap_init_room(&k->holders, sizeof(struct tl_lock_thread), 4) < 0) {
		tl_tidmap_release(&k->waiters);
		return NULL;
	}
	l->slots[s] = (uint32_t)++l->n;
	return k;
}

struct tl_locks *tl_locks_new(void)
{
	struct tl_locks *l = calloc(1, sizeof(*l));

	if (!l)
		tl_error("out of memory");
	return l;
}

/* th's part in a lock (a waiter's, or a holder's). */
static int add_thread(struct tl_tidmap *m, const struct tl_thread *th, uint64_t ns)
{
	struct tl_lock_thread *t = tl_tidmap_put(m, th->tid, NULL);

	if (!t)
		return -1;
	memcpy(t->name, th->name, sizeof(t->name)); /* the latest name */
	t->waits++;
	t->ns += ns;
	return 0;
}

int tl_locks_name(struct tl_locks *l, int32_t pid, uint64_t addr, const char *name)
{
	struct lk *k = addr ? lock_of(l, pid, addr) : NULL;

	if (addr && !k)
		return tl_error("out of memory while adding up lock waits");
	if (k)
		snprintf(k->pub.name, sizeof(k->pub.name), "%s", name ? name : "");
	return 0;
}

int tl_locks_wait(struct tl_locks *l, const struct tl_thread *th, uint64_t addr, uint64_t ns, uint64_t whole,
                  const struct tl_thread *holder, const uint64_t did[TL_LH__COUNT], uint64_t convoy)
{
	struct lk *k = lock_of(l, th->tgid, addr);

	if (!k || (th->tid > 0 && add_thread(&k->waiters, th, ns) < 0) ||
	    (holder && holder->tid > 0 && add_thread(&k->holders, holder, ns) < 0))
		return tl_error("out of memory while adding up lock waits");
	k->pub.waits++;
	k->pub.wait_ns += ns;
	if (whole > k->pub.max_ns)
		k->pub.max_ns = whole;
	for (unsigned c = 0; c < TL_LH__COUNT; c++)
		k->pub.holder_ns[c] += did[c];
	k->pub.convoy_ns += convoy;
	return 0;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct tl_lock_thread *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_lock(const void *a, const void *b)
{
	const struct tl_lock *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The map's threads as a sorted array (NULL when none), the map released.  -1 out of memory. */
static int to_array(struct tl_tidmap *m, struct tl_lock_thread **out, size_t *n)
{
	struct tl_lock_thread *t;
	size_t pos = 0;

	*out = NULL;
	*n = 0;
	if (m->count && !(*out = malloc(m->count * sizeof(**out))))
		return -1;
	while ((t = tl_tidmap_next(m, &pos)))
		(*out)[(*n)++] = *t;
	tl_tidmap_release(m);
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_thread);
	return 0;
}

int tl_locks_finish(struct tl_locks *l, struct tl_lock_result *out)
{
	int bad = 0;

	memset(out, 0, sizeof(*out));
	if (l->n && !(out->items = calloc(l->n, sizeof(*out->items))))
		bad = 1;
	for (size_t i = 0; i < l->n; i++) {
		struct lk *k = &l->locks[i];

		if (!bad && (to_array(&k->waiters, &k->pub.waiters, &k->pub.nwaiters) < 0 ||
		             to_array(&k->holders, &k->pub.holders, &k->pub.nholders) < 0))
			bad = 1;
		if (bad) { /* release what is left; what was moved goes with out */
			tl_tidmap_release(&k->waiters);
			tl_tidmap_release(&k->holders);
		}
		if (out->items && k->pub.waits) {
			out->items[out->n++] = k->pub;
		} else if (!bad) { /* named, never waited on as a lock */
			free(k->pub.waiters);
			free(k->pub.holders);
		}
	}
	l->n = 0;
	if (bad) {
		tl_locks_release(out);
		return tl_error("out of memory while adding up lock waits");
	}
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), cmp_lock);
	return 0;
}

void tl_locks_free(struct tl_locks *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		tl_tidmap_release(&l->locks[i].waiters);
		tl_tidmap_release(&l->locks[i].holders);
	}
	free(l->locks);
	free(l->slots);
	free(l);
}

void tl_locks_release(struct tl_lock_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->items[i].waiters);
		free(r->items[i].holders);
	}
	free(r->items);
	memset(r, 0, sizeof(*r));
}

const struct tl_lock *tl_locks_find(const struct tl_lock_result *r, int32_t pid, uint64_t addr)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->items[i].pid == pid && r->items[i].addr == addr)
			return &r->items[i];
	return NULL;
}
