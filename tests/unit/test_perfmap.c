/*
 * test_perfmap.c - a JIT's perf map file (lib/symbols/perfmap.c): exact
 * parses of well-formed, reused and malformed lines, lookups at every edge,
 * and a process without a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/perfmap.h"
#include "harness.h"

TEST(parse_and_lookup)
{
	static const char text[] = "7e0000001000 40 JS:o* file:///tmp/page.html:2:9\n"
	                           "7e0000000800 10 Builtin:MathRandom\n"
	                           "not a line\n"
	                           "7e0000002000 0 zero size\n"
	                           "7e0000003000 20\n"
	                           "0x7e0000004000 8 LazyCompile:f  with  spaces\r\n"
	                           "7e0000001000 30 JS:o reused\n"
	                           "7e0000005000 10 last, no newline";
	struct tl_perfmap m;

	CHECK_EQ_INT(tl_perfmap_parse(text, sizeof(text) - 1, &m), 0);
	CHECK_EQ_INT(m.nsyms, 4); /* 0x800, 0x1000 (its later line), 0x4000, 0x5000 */
	CHECK_EQ_INT(m.skipped, 3);
	CHECK(tl_perfmap_lookup(&m, 0x7e00000007ffull) == NULL);
	CHECK_EQ_STR(tl_perfmap_lookup(&m, 0x7e0000000800ull), "Builtin:MathRandom");
	CHECK_EQ_STR(tl_perfmap_lookup(&m, 0x7e000000080full), "Builtin:MathRandom");
	CHECK(tl_perfmap_lookup(&m, 0x7e0000000810ull) == NULL);
	CHECK_EQ_STR(tl_perfmap_lookup(&m, 0x7e000000102full), "JS:o reused");
	CHECK(tl_perfmap_lookup(&m, 0x7e0000001030ull) == NULL); /* the reused entry's size: 0x30 */
	CHECK_EQ_STR(tl_perfmap_lookup(&m, 0x7e0000004007ull), "LazyCompile:f  with  spaces\r");
	CHECK_EQ_STR(tl_perfmap_lookup(&m, 0x7e0000005000ull), "last, no newline");
	CHECK(tl_perfmap_lookup(&m, 0) == NULL && tl_perfmap_lookup(&m, UINT64_MAX) == NULL);
	tl_perfmap_release(&m);
	CHECK_EQ_INT(tl_perfmap_parse("", 0, &m), 0);
	CHECK_EQ_INT(m.nsyms, 0);
	CHECK(tl_perfmap_lookup(&m, 0x1000) == NULL);
	tl_perfmap_release(&m);
}

/* tl_perfmap_add/done (a trace's JSYM events): names with their lengths, the last of a start wins, size 0 skipped */
TEST(built_a_function_at_a_time)
{
	struct tl_perfmap m = { 0 };
	const struct tl_perfmap_sym *s;

	CHECK_EQ_INT(tl_perfmap_add(&m, 0x2000, 0x10, "second", 6), 0);
	CHECK_EQ_INT(tl_perfmap_add(&m, 0x1000, 0x20, "first, cut here", 5), 0);
	CHECK_EQ_INT(tl_perfmap_add(&m, 0x3000, 0, "empty", 5), 0);
	CHECK_EQ_INT(tl_perfmap_add(&m, 0x2000, 0x8, "second again", 12), 0);
	for (int i = 0; i < 600; i++) /* past the first growth of both arrays */
		CHECK_EQ_INT(tl_perfmap_add(&m, 0x10000 + 0x10 * (uint64_t)i, 0x10, "many", 4), 0);
	tl_perfmap_done(&m);
	CHECK_EQ_INT(m.nsyms, 602);
	CHECK_EQ_STR(tl_perfmap_lookup(&m, 0x101f), "first");
	CHECK(tl_perfmap_lookup(&m, 0x1020) == NULL);
	CHECK_EQ_STR(tl_perfmap_lookup(&m, 0x2007), "second again");
	CHECK(tl_perfmap_lookup(&m, 0x2008) == NULL); /* the later entry's size */
	CHECK(tl_perfmap_lookup(&m, 0x3000) == NULL);
	CHECK((s = tl_perfmap_find(&m, 0x1255f)) != NULL);
	CHECK(s && s->start == 0x12550 && s->size == 0x10 && !strcmp(m.names + s->name, "many"));
	CHECK(tl_perfmap_find(&m, 0x10000 + 0x10 * 600) == NULL);
	tl_perfmap_release(&m);
}

TEST(load_from_a_directory)
{
	char dir[] = "/tmp/tl-test-pmap-XXXXXX", path[128];
	struct tl_perfmap m;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	CHECK((f = fopen(path, "w")) != NULL);
	if (f) {
		fputs("1000 100 JS:work\n", f);
		fclose(f);
	}
	CHECK_EQ_INT(tl_perfmap_load(&m, dir, 4242), 0);
	CHECK_EQ_STR(tl_perfmap_lookup(&m, 0x10ff), "JS:work");
	tl_perfmap_release(&m);
	/* a process without a file: no names, no error */
	CHECK_EQ_INT(tl_perfmap_load(&m, dir, 4243), 0);
	CHECK_EQ_INT(m.nsyms, 0);
	tl_perfmap_release(&m);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	RUN_TESTS(parse_and_lookup, built_a_function_at_a_time, load_from_a_directory);
}
