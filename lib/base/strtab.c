/*
 * strtab.c - string table with an arena and an open-addressing index.
 *
 * Invariants: off[0] points at an empty string; off[id] < arena_len for
 * every id < count; the index (when present) holds every id >= 1 exactly
 * once and is at most half full, so probing always ends at an empty slot.
 * Index slots hold ids, 0 meaning empty.  The arena is limited to 4 GiB
 * (32-bit offsets), far beyond any real trace's names.
 */
#include "base/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

#define MAX_IDS (1u << 30)

void tl_strtab_init(struct tl_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void tl_strtab_release(struct tl_strtab *t)
{
	free(t->arena);
	free(t->off);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

static uint32_t hash_bytes(const char *s, size_t len)
{
	/* FNV-1a: short strings (comms, paths) dominate; good enough and tiny. */
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* Make room for the first entry (id 0 = ""), lazily. */
static int ensure_started(struct tl_strtab *t)
{
	if (t->count)
		return 0;
	t->arena_cap = 4096;
	t->arena = malloc(t->arena_cap);
	t->off_cap = 256;
	t->off = malloc(t->off_cap * sizeof(*t->off));
	if (!t->arena || !t->off) {
		tl_strtab_release(t);
		return tl_error("out of memory");
	}
	t->arena[0] = 0;
	t->arena_len = 1;
	t->off[0] = 0;
	t->count = 1;
	return 0;
}

static uint32_t add(struct tl_strtab *t, const char *s, size_t len)
{
	if (ensure_started(t) < 0)
		return 0;
	if (t->count >= MAX_IDS) {
		tl_error("string table is full (%u strings)", t->count);
		return 0;
	}
	if (t->arena_len + len + 1 > t->arena_cap) {
		size_t cap = t->arena_cap;
		while (cap < t->arena_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX) {
			tl_error("string table is full (%zu bytes)", t->arena_len);
			return 0;
		}
		char *a = realloc(t->arena, cap);
		if (!a) {
			tl_error("out of memory");
			return 0;
		}
		t->arena = a;
		t->arena_cap = cap;
	}
	if (t->count == t->off_cap) {
		uint32_t *o = realloc(t->off, 2 * (size_t)t->off_cap * sizeof(*o));
		if (!o) {
			tl_error("out of memory");
			return 0;
		}
		t->off = o;
		t->off_cap *= 2;
	}
	t->off[t->count] = (uint32_t)t->arena_len;
	memcpy(t->arena + t->arena_len, s, len);
	t->arena[t->arena_len + len] = 0;
	t->arena_len += len + 1;
	return t->count++;
}

static void index_put(uint32_t *index, uint32_t cap, uint32_t h, uint32_t id)
{
	uint32_t i = h & (cap - 1);
	while (index[i])
		i = (i + 1) & (cap - 1);
	index[i] = id;
}

static int index_grow(struct tl_strtab *t)
{
	uint32_t cap = t->index_cap ? t->index_cap * 2 : 1024;
	uint32_t *index = calloc(cap, sizeof(*index));
	if (!index)
		return tl_error("out of memory");
	for (uint32_t id = 1; id < t->count; id++) {
		const char *s = t->arena + t->off[id];
		index_put(index, cap, hash_bytes(s, strlen(s)), id);
	}
	free(t->index);
	t->index = index;
	t->index_cap = cap;
	return 0;
}

uint32_t tl_strtab_intern(struct tl_strtab *t, const char *s, size_t len)
{
	uint32_t h, i, id;

	if (len > TL_STRTAB_MAX_LEN)
		len = TL_STRTAB_MAX_LEN;
	/* A string is its bytes up to the first NUL, as the reader will see it. */
	len = strnlen(s, len);
	if (!len)
		return 0;
	if ((uint64_t)(t->count + 1) * 2 > t->index_cap && index_grow(t) < 0)
		return 0;
	h = hash_bytes(s, len);
	for (i = h & (t->index_cap - 1); (id = t->index[i]); i = (i + 1) & (t->index_cap - 1)) {
		const char *c = t->arena + t->off[id];
		if (!strncmp(c, s, len) && c[len] == 0)
			return id;
	}
	id = add(t, s, len);
	if (id)
		t->index[i] = id;
	return id;
}

uint32_t tl_strtab_append(struct tl_strtab *t, const char *s, size_t len)
{
	if (len > TL_STRTAB_MAX_LEN)
		len = TL_STRTAB_MAX_LEN;
	return add(t, s, len);
}

const char *tl_strtab_get(const struct tl_strtab *t, uint32_t id)
{
	if (!id || id >= t->count)
		return "";
	return t->arena + t->off[id];
}

size_t tl_strtab_len(const struct tl_strtab *t, uint32_t id)
{
	return strlen(tl_strtab_get(t, id));
}
