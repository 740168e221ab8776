/*
 * fuzz_symfile.c - libFuzzer target: arbitrary bytes as an ELF image into
 * tl_symfile_load_mem() must never crash, read out of bounds, leak or
 * hang; the symbols it keeps are sorted with distinct starts, and lookups
 * at the first 8 bytes' offset and at every symbol's start stay in range;
 * the unwind table's functions (.eh_frame_hdr, .eh_frame) are sorted and
 * not empty.  The image's last bytes, as the code before a return
 * address, into tl_call_ends_here() (callsite.h): 0 or 1, never a read
 * before them.
 * The image is copied into an exact-size heap buffer (AddressSanitizer sees
 * any read past its end).  Seeds: tests/data/elf/inline*.elf.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/callsite.h"
#include "symbols/symfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_symfile f;
	uint8_t *image = malloc(size ? size : 1);
	uint64_t off = 0, into;

	if (!image)
		return 0;
	memcpy(image, data, size);
	tl_symfile_load_mem(&f, image, size, "fuzz");
	for (size_t i = 1; i < f.nsyms; i++)
		if (f.syms[i - 1].start >= f.syms[i].start)
			abort();
	if (size >= 8)
		memcpy(&off, data, 8);
	tl_symfile_lookup(&f, off, &into);
	for (size_t i = 0; i < f.nsyms && i < 64; i++) {
		const char *n = tl_symfile_lookup(&f, f.syms[i].start, &into);
		if (n && !*n && f.syms[i].name >= f.names_len)
			abort();
	}
	/* the unwind table's functions: sorted, each not empty, an entry at or below what it holds */
	for (size_t i = 0; i < f.nfuncs; i++)
		if (f.funcs[i].start >= f.funcs[i].end || (i && f.funcs[i - 1].start >= f.funcs[i].start))
			abort();
	if (!tl_symfile_unwind_func(&f, off, &into) && into > off && f.nsegs == 1)
		abort();
	tl_symfile_release(&f);
	/* the same image's data objects (lock names), by link-time address and through a mapping's offset */
	tl_symfile_load_data_mem(&f, image, size, "fuzz");
	for (size_t i = 1; i < f.nsyms; i++)
		if (f.syms[i - 1].start >= f.syms[i].start)
			abort();
	if (!tl_symfile_vaddr_of(&f, off & ~4095ull, &into))
		tl_symfile_holds(&f, into + 16);
	tl_symfile_lookup_vaddr(&f, off, &into);
	tl_symfile_release(&f);
	/* the bytes before a return address (profile's check of callers): any bytes, any length */
	for (size_t n = 0; n <= size && n <= TL_CALLSITE_MAX + 2; n++)
		if (tl_call_ends_here(image + size - n, n) > 1)
			abort();
	free(image);
	return 0;
}
