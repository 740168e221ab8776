/*
 * fuzz_elfsym.c - libFuzzer target: arbitrary bytes as an ELF image into
 * tl_elfsym_lookup_mem() (libelf's elf_memory() underneath) and
 * tl_elfsym_each_mem() and tl_elfdyn_read_mem() must never crash, read out of bounds, leak or
 * hang; a lookup may only succeed or fail with a message.
 *
 * Input layout: byte 0 picks the name to look up from a list that the
 * seeds in tests/fuzz/corpus/fuzz_elfsym/ define (functions, a local, an
 * IFUNC, versioned names, a missing one, C++ names that demangle every _Z
 * symbol of the image); the rest is the image, copied
 * into an exact-size heap buffer so that AddressSanitizer sees any read
 * past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elfneed.h"
#include "symbols/elfsym.h"
#include "base/errors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = { "foo",    "bar",  "main", "fi",       "impl",        "foo@VER_1",
	                             "dup",    "gl",   "dv",   "ver",      "mc",          "usleep",
	                             "_start", "nope", "",     "ns::work", "ns::Foo::get" };
#define NNAMES (sizeof(names) / sizeof(names[0]))

static int each_fn(void *ctx, const char *name, uint64_t offset)
{
	volatile size_t n = strlen(name); /* read to its end: ASan sees a name that runs off */

	(void)n;
	(void)ctx;
	(void)offset;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_elfsym e;
	uint8_t *image;

	if (size < 1)
		return 0;
	image = malloc(size - 1 ? size - 1 : 1);
	if (!image)
		return 0;
	memcpy(image, data + 1, size - 1);
	if (!tl_elfsym_lookup_mem(image, size - 1, "fuzz", names[data[0] % NNAMES], &e)) {
		/* a success names a symbol and an offset inside the image's segments */
		if (!e.name[0])
			abort();
	} else if (!tl_error_msg()[0]) {
		abort(); /* a failure always says why */
	}
	/* every function (record's OpenMP scan): each name a string that ends inside the image */
	if (tl_elfsym_each_mem(image, size - 1, "fuzz", each_fn, &size) < 0 && !tl_error_msg()[0])
		abort();
	/* the dependencies (elfneed.h: .dynamic's names and search paths), every string read to its end */
	{
		struct tl_elfdyn d;

		if (tl_elfdyn_read_mem(image, size - 1, "fuzz", &d) == 0) {
			for (int i = 0; i < d.nneeded; i++)
				each_fn(NULL, d.needed[i], 0);
			if (d.rpath)
				each_fn(NULL, d.rpath, 0);
			if (d.runpath)
				each_fn(NULL, d.runpath, 0);
		} else if (!tl_error_msg()[0]) {
			abort();
		}
		tl_elfdyn_free(&d);
	}
	free(image);
	return 0;
}
