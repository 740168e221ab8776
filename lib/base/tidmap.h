/*
 * tidmap.h - a hash map keyed by thread id, with the values stored inline.
 *
 * Both the recorder (thread identities) and the state machine (live threads)
 * look a thread up for nearly every event, so this is an open-addressing
 * table with linear probing and Fibonacci hashing (consecutive tids spread
 * well), kept at most half full, with backward-shift deletion (no
 * tombstones, so lookups stay short however many threads come and go).
 *
 * Each value is `value_size` bytes and must begin with an int32_t holding
 * its tid: the map reads the key from there; tid 0 marks an empty slot, so
 * tids must be > 0.  A pointer returned by the map is valid until the next
 * tl_tidmap_put() or tl_tidmap_remove(), which may move values.
 */
#ifndef TL_TIDMAP_H
#define TL_TIDMAP_H

#include <stddef.h>
#include <stdint.h>

struct tl_tidmap {
	unsigned char *slots;
	size_t vsize; /* bytes per slot */
	size_t cap;   /* a power of two */
	size_t count;
	unsigned shift; /* 64 - log2(cap) */
};

/* Set up an empty map (room for 512 before it grows).  Returns 0, or -1 with tl_error set. */
int tl_tidmap_init(struct tl_tidmap *m, size_t value_size);

/*
 * The same with room for `room` values before it first grows (at least 4):
 * for a map per object (a lock's waiters), of which there can be
 * thousands, most with a thread or two.
 */
int tl_tidmap_init_room(struct tl_tidmap *m, size_t value_size, size_t room);

/* Free the slots (not anything the values point to). */
void tl_tidmap_release(struct tl_tidmap *m);

/* The value for tid, or NULL. */
void *tl_tidmap_get(const struct tl_tidmap *m, int32_t tid);

/*
 * The value for tid; if absent, a new zeroed value with its tid set, and
 * *created = 1 (created may be NULL).  NULL with tl_error set if tid <= 0
 * or memory ran out.
 */
void *tl_tidmap_put(struct tl_tidmap *m, int32_t tid, int *created);

/* Remove tid if present. */
void tl_tidmap_remove(struct tl_tidmap *m, int32_t tid);

/* Iterate: start with *pos = 0; returns the next value or NULL at the end.  No changes while iterating. */
void *tl_tidmap_next(const struct tl_tidmap *m, size_t *pos);

#endif
