/*
 * fuzz_bins.c - libFuzzer target: any bytes given to the bins file parser
 * (`threadlens hist --bins FILE`) must never crash, hang, read out of bounds
 * or leak.
 *
 * Beyond crashes, three invariants are checked on every input the parser
 * accepts: each entry's iterative binning can be made and its bins are
 * contiguous where it matters (bin 0, the first and last inner bins, the
 * last bin) with every saved value [c_min, c_max] inside the inner bins;
 * what the formatter writes parses back to the same entries (names, k,
 * ranges), so a saved file is always loadable.  Seeds are in
 * tests/fuzz/corpus/fuzz_bins/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hist/hist_binning.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_binning(const struct tl_bins_entry *e)
{
	struct tl_binning b;
	uint64_t lo, hi;

	if (tl_binning_iterative(&b, e->k, e->c_min, e->c_max))
		__builtin_trap(); /* the parser accepted what the binning refuses */
	if (tl_binning_lower(&b, 1) != tl_binning_upper(&b, 0) + 1 ||
	    tl_binning_lower(&b, b.k - 1) != tl_binning_upper(&b, b.k - 2) + 1)
		__builtin_trap();
	tl_binning_inner(&b, &lo, &hi);
	if (lo > e->c_min || hi < e->c_max)
		__builtin_trap(); /* Eq. 1-2 must cover the range they were made from */
	if (tl_binning_index(&b, e->c_min) < b.first_inner || tl_binning_index(&b, e->c_max) > b.k - 2)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_bins_file f, g;
	char *text;
	size_t len;

	tl_bins_init(&f);
	if (tl_bins_parse(&f, (const char *)data, size) == 0) {
		for (size_t i = 0; i < f.n; i++)
			check_binning(&f.e[i]);
		if (tl_bins_format(&f, &text, &len))
			__builtin_trap();
		tl_bins_init(&g);
		if (tl_bins_parse(&g, text, len) || g.n != f.n)
			__builtin_trap();
		for (size_t i = 0; i < f.n; i++)
			if (strcmp(f.e[i].name, g.e[i].name) || f.e[i].k != g.e[i].k || f.e[i].c_min != g.e[i].c_min ||
			    f.e[i].c_max != g.e[i].c_max)
				__builtin_trap();
		tl_bins_release(&g);
		free(text);
	}
	tl_bins_release(&f);
	return 0;
}
