/*
 * grow.c - growing arrays (see grow.h).
 */
#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

int tl_grow(void *pp, size_t *cap, size_t need, size_t size, int zero)
{
	void *p, *np;
	size_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	if (size && ncap > SIZE_MAX / size)
		return tl_error("out of memory");
	memcpy(&p, pp, sizeof(p));
	np = realloc(p, ncap * size);
	if (!np)
		return tl_error("out of memory");
	if (zero)
		memset((char *)np + *cap * size, 0, (ncap - *cap) * size);
	memcpy(pp, &np, sizeof(np));
	*cap = ncap;
	return 0;
}
