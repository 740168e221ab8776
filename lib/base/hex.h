/*
 * hex.h - lowercase hexadecimal numbers as /proc prints them (maps,
 * kallsyms): the one parser both readers use.
 */
#ifndef TL_HEX_H
#define TL_HEX_H

#include <stdint.h>

/*
 * The number of the hex digits (0-9, a-f) at p, up to end and at most 16,
 * into *v.  The position after them, or NULL if there is none.  A 17th
 * digit is left for the caller, who then finds no separator.
 */
static inline const char *tl_hex_u64(const char *p, const char *end, uint64_t *v)
{
	const char *s = p;

	*v = 0;
	for (; p < end && p - s < 16; p++) {
		unsigned c = (unsigned char)*p, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			break;
		*v = *v << 4 | d;
	}
	return p > s ? p : NULL;
}

#endif
