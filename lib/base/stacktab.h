/*
 * stacktab.h - the trace's stack table: ids <-> call stacks (lists of
 * instruction addresses, innermost first), as strtab.h is for strings.
 *
 * Ids are dense: 1, 2, 3... in the order stacks were added; 0 means "no
 * stack".  The writer interns (the same frames always get the same id: a
 * hash index finds them), the reader only appends what STACKS blocks say
 * and looks ids up.  Frames live in one arena, so a stack costs its frames
 * plus a few bytes.  A stack has at most TL_STACK_MAX_FRAMES frames; a
 * longer one is cut there when added.  Returned pointers stay valid until
 * the next add.
 */
#ifndef TL_STACKTAB_H
#define TL_STACKTAB_H

#include <stddef.h>
#include <stdint.h>

#define TL_STACK_MAX_FRAMES 512

struct tl_stacktab {
	uint64_t *arena; /* the frames of every stack, back to back */
	size_t arena_len, arena_cap;
	uint64_t *off;  /* off[id] = (offset in the arena << 16) | frames */
	uint32_t count; /* ids in use, including 0 */
	size_t off_cap;
	uint32_t *index;    /* open-addressing hash index of ids (writer only) */
	uint32_t index_cap; /* a power of 2, or 0 before the first intern */
};

/* An empty table (id 0 = no stack). */
void tl_stacktab_init(struct tl_stacktab *t);

/* Free the contents; the struct can be initialised again. */
void tl_stacktab_release(struct tl_stacktab *t);

/* The id of frames ips[0..n), adding them if new; n 0 gives 0.  0 with tl_error set when out of memory. */
uint32_t tl_stacktab_intern(struct tl_stacktab *t, const uint64_t *ips, unsigned n);

/* Add ips[0..n) under the next id without looking for a duplicate (the reader).  The id, or 0 with tl_error set. */
uint32_t tl_stacktab_append(struct tl_stacktab *t, const uint64_t *ips, unsigned n);

/* The frames of id into *n; NULL and 0 for id 0 or an id not in the table. */
const uint64_t *tl_stacktab_get(const struct tl_stacktab *t, uint32_t id, unsigned *n);

/* The id the next added stack will get. */
static inline uint32_t tl_stacktab_next_id(const struct tl_stacktab *t)
{
	return t->count ? t->count : 1;
}

#endif
