/*
 * tidmap.c - the tid-keyed hash map (see tidmap.h).
 */
#include "base/tidmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

#define INITIAL_CAP 1024

static inline int32_t key_at(const struct tl_tidmap *m, size_t i)
{
	int32_t k;
	memcpy(&k, m->slots + i * m->vsize, sizeof(k));
	return k;
}

static inline void *slot(const struct tl_tidmap *m, size_t i)
{
	return m->slots + i * m->vsize;
}

static inline size_t home_of(const struct tl_tidmap *m, int32_t tid)
{
	return (size_t)(((uint64_t)(uint32_t)tid * 0x9E3779B97F4A7C15ull) >> m->shift);
}

static int resize(struct tl_tidmap *m, size_t cap)
{
	unsigned char *old = m->slots;
	size_t oldcap = m->cap;
	unsigned bits = 0;

	while (((size_t)1 << bits) < cap)
		bits++;
	m->slots = calloc(cap, m->vsize);
	if (!m->slots) {
		m->slots = old;
		return tl_error("out of memory for a thread table");
	}
	m->cap = cap;
	m->shift = 64 - bits;
	for (size_t i = 0; i < oldcap; i++) {
		int32_t k;
		size_t j;
		memcpy(&k, old + i * m->vsize, sizeof(k));
		if (!k)
			continue;
		for (j = home_of(m, k); key_at(m, j); j = (j + 1) & (cap - 1))
			;
		memcpy(slot(m, j), old + i * m->vsize, m->vsize);
	}
	free(old);
	return 0;
}

int tl_tidmap_init_room(struct tl_tidmap *m, size_t value_size, size_t room)
{
	size_t cap = 8;

	memset(m, 0, sizeof(*m));
	m->vsize = value_size < sizeof(int32_t) ? sizeof(int32_t) : value_size;
	while (cap < 2 * room && cap < ((size_t)1 << 30))
		cap *= 2;
	return resize(m, cap); /* at most half full */
}

int tl_tidmap_init(struct tl_tidmap *m, size_t value_size)
{
	return tl_tidmap_init_room(m, value_size, INITIAL_CAP / 2);
}

void tl_tidmap_release(struct tl_tidmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

void *tl_tidmap_get(const struct tl_tidmap *m, int32_t tid)
{
	int32_t k;

	if (tid <= 0)
		return NULL;
	for (size_t i = home_of(m, tid); (k = key_at(m, i)) != 0; i = (i + 1) & (m->cap - 1))
		if (k == tid)
			return slot(m, i);
	return NULL;
}

void *tl_tidmap_put(struct tl_tidmap *m, int32_t tid, int *created)
{
	void *v = tl_tidmap_get(m, tid);
	size_t i;

	if (created)
		*created = 0;
	if (v)
		return v;
	if (tid <= 0) {
		tl_error("thread id %d cannot be a key", tid);
		return NULL;
	}
	if (2 * (m->count + 1) > m->cap && resize(m, 2 * m->cap) < 0)
		return NULL;
	for (i = home_of(m, tid); key_at(m, i); i = (i + 1) & (m->cap - 1))
		;
	v = slot(m, i);
	memset(v, 0, m->vsize);
	memcpy(v, &tid, sizeof(tid));
	m->count++;
	if (created)
		*created = 1;
	return v;
}

void tl_tidmap_remove(struct tl_tidmap *m, int32_t tid)
{
	size_t mask = m->cap - 1, i, j;
	int32_t k;

	if (tid <= 0)
		return;
	for (i = home_of(m, tid); (k = key_at(m, i)) != tid; i = (i + 1) & mask)
		if (!k)
			return;
	/* backward shift: move later members of the probe run into the hole */
	for (j = (i + 1) & mask; (k = key_at(m, j)) != 0; j = (j + 1) & mask) {
		size_t home = home_of(m, k);
		/* j may move to i unless its home lies cyclically in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			memcpy(slot(m, i), slot(m, j), m->vsize);
			i = j;
		}
	}
	memset(slot(m, i), 0, m->vsize);
	m->count--;
}

void *tl_tidmap_next(const struct tl_tidmap *m, size_t *pos)
{
	while (*pos < m->cap) {
		size_t i = (*pos)++;
		if (key_at(m, i))
			return slot(m, i);
	}
	return NULL;
}
