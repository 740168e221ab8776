/*
 * grow.h - the one way library code grows an array.
 *
 *   struct item *v = NULL; size_t n = 0, cap = 0;
 *   if (TL_GROW(v, cap, n + 1) < 0)
 *           return -1;              (tl_error says "out of memory")
 *   v[n++] = x;
 *
 * tl_grow() makes room for at least `need` elements: the capacity doubles
 * (16 to start), or becomes `need` if that is more, so appending n elements
 * one by one costs O(n) copies.  Invariants: on failure, and when there is
 * room already, the array and its capacity are left exactly as they were;
 * the byte count is checked for overflow; new elements are not zeroed
 * (TL_GROW_ZERO zeroes them).
 */
#ifndef TL_GROW_H
#define TL_GROW_H

#include <stddef.h>

/* *(void **)pp: the array; *cap: its capacity in elements of `size` bytes. 0, or -1 with tl_error set. */
int tl_grow(void *pp, size_t *cap, size_t need, size_t size, int zero);

#define TL_GROW(arr, cap, need) tl_grow(&(arr), &(cap), (need), sizeof(*(arr)), 0)
#define TL_GROW_ZERO(arr, cap, need) tl_grow(&(arr), &(cap), (need), sizeof(*(arr)), 1)

#endif
