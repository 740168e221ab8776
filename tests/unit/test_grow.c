/*
 * test_grow.c - growing arrays (base/grow.h): capacities, zeroing, and the
 * array left alone on failure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "harness.h"

TEST(test_doubles_and_keeps)
{
	int *v = NULL;
	size_t cap = 0;

	CHECK_EQ_INT(TL_GROW(v, cap, 1), 0);
	CHECK_EQ_INT(cap, 16); /* the first capacity */
	CHECK(v != NULL);
	for (int i = 0; i < 16; i++)
		v[i] = i;
	CHECK_EQ_INT(TL_GROW(v, cap, 16), 0); /* room already: nothing moves */
	CHECK_EQ_INT(cap, 16);
	CHECK_EQ_INT(TL_GROW(v, cap, 17), 0);
	CHECK_EQ_INT(cap, 32);
	CHECK_EQ_INT(TL_GROW(v, cap, 100), 0); /* doubled until it fits */
	CHECK_EQ_INT(cap, 128);
	CHECK_EQ_INT(v[15], 15);
	free(v);
}

TEST(test_zero)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	CHECK_EQ_INT(TL_GROW_ZERO(v, cap, 3), 0);
	for (size_t i = 0; i < cap; i++)
		CHECK_EQ_INT(v[i], 0);
	v[0] = 7;
	CHECK_EQ_INT(TL_GROW_ZERO(v, cap, 40), 0);
	CHECK_EQ_INT(cap, 64);
	CHECK_EQ_INT(v[0], 7);
	for (size_t i = 1; i < cap; i++)
		CHECK_EQ_INT(v[i], 0);
	free(v);
}

TEST(test_failure_leaves_it)
{
	uint64_t *v = NULL;
	uint64_t *before;
	size_t cap = 0;

	CHECK_EQ_INT(TL_GROW(v, cap, 5), 0);
	before = v;
	v[4] = 44;
	/* more bytes than size_t holds: refused, array and capacity unchanged */
	CHECK_EQ_INT(TL_GROW(v, cap, SIZE_MAX / 4), -1);
	CHECK(strstr(tl_error_msg(), "out of memory") != NULL);
	CHECK(v == before);
	CHECK_EQ_INT(cap, 16);
	CHECK_EQ_INT(v[4], 44);
	free(v);
}

int main(void)
{
	RUN_TESTS(test_doubles_and_keeps, test_zero, test_failure_leaves_it);
}
