/*
 * test_dwinline.c - the inlined copies of a function from DWARF
 * (lib/symbols/dwinline.h), on the committed fixture
 * tests/data/elf/inline.elf (gcc 12 -O2 -g of inline.c; see README.md
 * there): exact addresses, file offsets and call sites.  Run from the
 * repository root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "base/errors.h"
#include "elf_build.h"
#include "symbols/dwinline.h"
#include "symbols/elfsym.h"

#define FIXTURE "tests/data/elf/inline.elf"

/* sq has no symbol and two copies, at inline.c:29 and :30, in address order. */
TEST(static_function_inlined_twice)
{
	struct tl_inline_sites s;
	struct tl_elfsym es;
	char where[160];

	CHECK_EQ_INT(tl_inline_find(FIXTURE, "sq", &s), 0);
	CHECK_EQ_INT(s.dwarf, 1);
	CHECK_EQ_INT(s.n, 2);
	CHECK_EQ_INT(s.more, 0);
	if (s.n == 2) {
		CHECK_EQ_INT(s.v[0].vaddr, 0x1051);
		CHECK_EQ_INT(s.v[0].offset, 0x1051); /* PIE: the text segment's vaddr is its offset */
		CHECK_EQ_STR(s.v[0].file, "inline.c");
		CHECK_EQ_INT(s.v[0].line, 29);
		CHECK_EQ_INT(s.v[1].vaddr, 0x1054);
		CHECK_EQ_INT(s.v[1].line, 30);
	}
	CHECK_EQ_STR(tl_inline_where(&s, where, sizeof(where)), "inline.c:29, inline.c:30");
	tl_inline_sites_free(&s);
	CHECK_EQ_INT(s.n, 0);
	CHECK(s.v == NULL);
	/* and no symbol: what record --func says when DWARF has nothing either */
	CHECK_EQ_INT(tl_elfsym_lookup(FIXTURE, "sq", &es), -1);
}

/* twice: one inlined copy besides its own symbol; never_inlined and main: none. */
TEST(extern_function_also_inlined)
{
	struct tl_inline_sites s;
	struct tl_elfsym es;

	CHECK_EQ_INT(tl_inline_find(FIXTURE, "twice", &s), 0);
	CHECK_EQ_INT(s.n, 1);
	if (s.n == 1) {
		CHECK_EQ_INT(s.v[0].vaddr, 0x1062);
		CHECK_EQ_INT(s.v[0].line, 31);
	}
	tl_inline_sites_free(&s);
	CHECK_EQ_INT(tl_elfsym_lookup(FIXTURE, "twice", &es), 0);
	CHECK_EQ_INT(es.vaddr, 0x1180);
	CHECK_EQ_INT(tl_inline_find(FIXTURE, "never_inlined", &s), 0);
	CHECK_EQ_INT(s.dwarf, 1);
	CHECK_EQ_INT(s.n, 0);
	CHECK_EQ_INT(tl_inline_find(FIXTURE, "main", &s), 0);
	CHECK_EQ_INT(s.n, 0);
	CHECK_EQ_INT(tl_inline_find(FIXTURE, "s", &s), 0); /* a variable's name is no function */
	CHECK_EQ_INT(s.n, 0);
}

/* The same from memory; an image without DWARF; files that are not ELF. */
TEST(memory_and_bad_input)
{
	struct tl_inline_sites s;
	struct eb_spec spec = { .e_type = ET_EXEC, .nph = 1 };
	uint8_t *img = malloc(EB_MAX);
	char where[64];
	FILE *f = fopen(FIXTURE, "rb");
	uint8_t *buf = malloc(1 << 16);
	size_t len = f ? fread(buf, 1, 1 << 16, f) : 0;

	if (f)
		fclose(f);
	CHECK(len > 10000 && len < (1 << 16));
	CHECK_EQ_INT(tl_inline_find_mem(buf, len, "fixture", "sq", &s), 0);
	CHECK_EQ_INT(s.n, 2);
	tl_inline_sites_free(&s);
	/* every cut of the image: an answer or one error, never a crash */
	for (size_t cut = 0; cut < len; cut += 509) {
		if (!tl_inline_find_mem(buf, cut, "cut", "sq", &s))
			CHECK(s.n <= 2);
		tl_inline_sites_free(&s);
	}
	spec.ph[0] = (struct eb_phdr){ .vaddr = 0x400000, .offset = 0, .filesz = 0x400, .flags = PF_R | PF_X };
	CHECK_EQ_INT(tl_inline_find_mem(img, eb_build(&spec, img), "plain", "sq", &s), 0);
	CHECK_EQ_INT(s.dwarf, 0);
	CHECK_EQ_INT(s.n, 0);
	CHECK_EQ_INT(tl_inline_find_mem("#!/bin/sh\n", 10, "script", "sq", &s), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot read 'script': not an ELF file");
	CHECK_EQ_INT(tl_inline_find("tests/data/elf/no-such-file", "sq", &s), -1);
	CHECK(strstr(tl_error_msg(), "cannot open 'tests/data/elf/no-such-file'") != NULL);
	/* where: the count of copies past the ones shown */
	s.n = 0;
	s.more = 5;
	CHECK_EQ_STR(tl_inline_where(&s, where, sizeof(where)), " and 5 more");
	free(img);
	free(buf);
}

int main(void)
{
	RUN_TESTS(static_function_inlined_twice, extern_function_also_inlined, memory_and_bad_input);
}
