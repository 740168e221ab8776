/*
 * strtab.h - the trace's string table: ids <-> strings.
 *
 * Ids are dense: 1, 2, 3... in the order strings were added; 0 means "no
 * string".  The writer interns (the same string always gets the same id;
 * a hash index finds it), the reader only appends what STRINGS blocks say
 * and looks ids up.  All strings live in one arena, so the table costs a
 * few bytes per string beyond the text and frees in one go.
 *
 * Strings are stored NUL-terminated; a string longer than TL_STRTAB_MAX_LEN
 * bytes is cut there when added.  Returned pointers stay valid until the
 * table is released (the arena is addressed by offsets and may move, so
 * do not keep a pointer across an add).
 */
#ifndef TL_STRTAB_H
#define TL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define TL_STRTAB_MAX_LEN 4095

struct tl_strtab {
	char *arena; /* the strings, NUL-terminated, back to back */
	size_t arena_len, arena_cap;
	uint32_t *off;  /* off[id] = offset of string id in the arena */
	uint32_t count; /* ids in use, including 0 */
	uint32_t off_cap;
	uint32_t *index;    /* open-addressing hash index of ids (writer only) */
	uint32_t index_cap; /* a power of 2, or 0 before the first intern */
};

/* An empty table (id 0 = ""). */
void tl_strtab_init(struct tl_strtab *t);

/* Free the contents; the struct can be initialised again. */
void tl_strtab_release(struct tl_strtab *t);

/*
 * The id of s[0..len), adding it if new.  len 0 gives 0.  Returns 0 with
 * tl_error set on allocation failure or when the table is full.
 */
uint32_t tl_strtab_intern(struct tl_strtab *t, const char *s, size_t len);

/*
 * Add s[0..len) under the next id without looking for a duplicate (what the
 * reader does with a STRINGS block).  Returns the id, or 0 with tl_error set.
 */
uint32_t tl_strtab_append(struct tl_strtab *t, const char *s, size_t len);

/* The string of id; "" for 0 or an id not in the table. */
const char *tl_strtab_get(const struct tl_strtab *t, uint32_t id);

/* Length of string id (0 for unknown ids). */
size_t tl_strtab_len(const struct tl_strtab *t, uint32_t id);

/* The id the next added string will get (= number of ids including 0). */
static inline uint32_t tl_strtab_next_id(const struct tl_strtab *t)
{
	return t->count ? t->count : 1;
}

#endif
