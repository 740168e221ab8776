/*
 * stacktab.c - stack table with an arena and an open-addressing index
 * (see stacktab.h).
 *
 * Invariants: off[id] is valid for every id < count (off[0] = 0: no
 * frames); the index (when present) holds every id >= 1 exactly once and
 * is at most half full.
 */
#include "base/stacktab.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"

#define OFF_FRAMES(o) ((unsigned)((o)&0xffff))
#define OFF_START(o) ((size_t)((o) >> 16))

void tl_stacktab_init(struct tl_stacktab *t)
{
	memset(t, 0, sizeof(*t));
}

void tl_stacktab_release(struct tl_stacktab *t)
{
	free(t->arena);
	free(t->off);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

/* FNV-1a over the frames' bytes, then mixed: stacks share long tails. */
static uint32_t hash_frames(const uint64_t *ips, unsigned n)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned i = 0; i < n; i++) {
		h ^= ips[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	h ^= n;
	return (uint32_t)(h ^ (h >> 32));
}

const uint64_t *tl_stacktab_get(const struct tl_stacktab *t, uint32_t id, unsigned *n)
{
	if (!id || id >= t->count) {
		*n = 0;
		return NULL;
	}
	*n = OFF_FRAMES(t->off[id]);
	return t->arena + OFF_START(t->off[id]);
}

uint32_t tl_stacktab_append(struct tl_stacktab *t, const uint64_t *ips, unsigned n)
{
	size_t start;

	if (n > TL_STACK_MAX_FRAMES)
		n = TL_STACK_MAX_FRAMES;
	if (!t->count) {
		if (TL_GROW(t->off, t->off_cap, 16) < 0)
			return 0;
		t->off[0] = 0;
		t->count = 1;
	}
	if (t->count == UINT32_MAX || t->arena_len > (SIZE_MAX >> 17))
		return tl_error("too many stacks"), 0;
	start = t->arena_len;
	if (TL_GROW(t->off, t->off_cap, (size_t)t->count + 1) < 0 || TL_GROW(t->arena, t->arena_cap, start + n + 1) < 0)
		return 0;
	if (n)
		memcpy(t->arena + start, ips, n * sizeof(*ips));
	t->arena_len = start + n;
	t->off[t->count] = ((uint64_t)start << 16) | n;
	return t->count++;
}

static void index_put(uint32_t *index, uint32_t cap, uint32_t h, uint32_t id)
{
	uint32_t i = h & (cap - 1);

	while (index[i])
		i = (i + 1) & (cap - 1);
	index[i] = id;
}

static int index_grow(struct tl_stacktab *t)
{
	uint32_t cap = t->index_cap ? t->index_cap * 2 : 1024;
	uint32_t *index = calloc(cap, sizeof(*index));

	if (!index || cap < t->index_cap) {
		free(index);
		return tl_error("out of memory");
	}
	for (uint32_t id = 1; id < t->count; id++) {
		unsigned n;
		const uint64_t *f = tl_stacktab_get(t, id, &n);
		index_put(index, cap, hash_frames(f, n), id);
	}
	free(t->index);
	t->index = index;
	t->index_cap = cap;
	return 0;
}

uint32_t tl_stacktab_intern(struct tl_stacktab *t, const uint64_t *ips, unsigned n)
{
	uint32_t h, i, id;

	if (!n)
		return 0;
	if (n > TL_STACK_MAX_FRAMES)
		n = TL_STACK_MAX_FRAMES;
	if ((uint64_t)(tl_stacktab_next_id(t) + 1) * 2 > t->index_cap && index_grow(t) < 0)
		return 0;
	h = hash_frames(ips, n);
	for (i = h & (t->index_cap - 1); (id = t->index[i]); i = (i + 1) & (t->index_cap - 1)) {
		unsigned m;
		const uint64_t *f = tl_stacktab_get(t, id, &m);
		if (m == n && !memcmp(f, ips, n * sizeof(*ips)))
			return id;
	}
	id = tl_stacktab_append(t, ips, n);
	if (id)
		t->index[i] = id;
	return id;
}
