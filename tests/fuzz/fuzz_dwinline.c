/*
 * fuzz_dwinline.c - libFuzzer target: arbitrary bytes as an ELF image into
 * tl_inline_find_mem() (elfutils' libdw reads its DWARF) must never crash,
 * read out of bounds, leak or hang; a search may only succeed (with sites
 * in address order, each inside a loadable segment) or fail with a message.
 *
 * Input layout: byte 0 picks the function to look for from the names of
 * the seed (tests/data/elf/inline.c: sq inlined twice, twice once, others
 * never); the rest is the image, in an exact-size heap buffer so that
 * AddressSanitizer sees any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "symbols/dwinline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = { "sq", "twice", "never_inlined", "main", "", "nope" };
#define NNAMES (sizeof(names) / sizeof(names[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_inline_sites s;
	uint8_t *image;
	char where[160];

	if (size < 1)
		return 0;
	image = malloc(size - 1 ? size - 1 : 1);
	if (!image)
		return 0;
	memcpy(image, data + 1, size - 1);
	if (!tl_inline_find_mem(image, size - 1, "fuzz", names[data[0] % NNAMES], &s)) {
		if (s.n > TL_INLINE_MAX)
			abort();
		for (size_t i = 1; i < s.n; i++)
			if (s.v[i - 1].vaddr >= s.v[i].vaddr)
				abort(); /* distinct, in address order */
		tl_inline_where(&s, where, sizeof(where));
		tl_inline_sites_free(&s);
	} else if (!tl_error_msg()[0]) {
		abort(); /* a failure always says why */
	}
	free(image);
	return 0;
}
