/*
 * test_procmaps.c - /proc/PID/maps lines into mappings
 * (capture/procmaps.h): exact fields of real lines (Linux 6.18), paths with
 * spaces and " (deleted)", anonymous and special mappings, and malformed
 * lines refused.
 */
#include <string.h>

#include "harness.h"

#include "capture/procmaps.h"

static int parse(const char *line, struct tl_map *m)
{
	return tl_procmaps_parse_line(line, strlen(line), m);
}

static int path_is(const struct tl_map *m, const char *s)
{
	return m->path_len == strlen(s) && !memcmp(m->path, s, m->path_len);
}

TEST(real_lines)
{
	struct tl_map m;

	CHECK_EQ_INT(parse("5616633eb000-5616633ee000 r-xp 00002000 fe:00 1834121                    "
	                   "/work/main/build/tests/wl_util\n",
	                   &m),
	             1);
	CHECK_EQ_INT(m.start, 0x5616633eb000ll);
	CHECK_EQ_INT(m.end, 0x5616633ee000ll);
	CHECK_EQ_INT(m.pgoff, 0x2000);
	CHECK_EQ_INT(m.exec, 1);
	CHECK(path_is(&m, "/work/main/build/tests/wl_util"));
	CHECK_EQ_INT(
	        parse("7f859205b000-7f85921b1000 r--p 00026000 fe:00 262370 /usr/lib/x86_64-linux-gnu/libc.so.6", &m),
	        1);
	CHECK_EQ_INT(m.exec, 0);
	CHECK_EQ_INT(m.pgoff, 0x26000);
	CHECK_EQ_INT(parse("7ffd5c1fe000-7ffd5c200000 r-xp 00000000 00:00 0                          [vdso]\n", &m), 1);
	CHECK(path_is(&m, "[vdso]"));
	CHECK_EQ_INT(parse("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]", &m), 1);
	CHECK_EQ_INT(m.start, (int64_t)0xffffffffff600000ull);
	CHECK_EQ_INT(m.exec, 1);
	/* anonymous: no path */
	CHECK_EQ_INT(parse("7f8592000000-7f8592021000 rw-p 00000000 00:00 0 \n", &m), 1);
	CHECK_EQ_INT(m.path_len, 0);
	CHECK_EQ_INT(parse("7f8592000000-7f8592021000 rwxp 00000000 00:00 0", &m), 1);
	CHECK_EQ_INT(m.path_len, 0);
	/* a path with spaces, and a deleted file: kept as the kernel prints them */
	CHECK_EQ_INT(parse("400000-401000 r-xp 00000000 08:01 77 /opt/my app/bin (deleted)\n", &m), 1);
	CHECK(path_is(&m, "/opt/my app/bin (deleted)"));
}

TEST(malformed_lines)
{
	struct tl_map m;
	static const char *const bad[] = {
		"",
		"\n",
		"400000 r-xp 00000000 08:01 77 /bin/x",        /* no end */
		"400000-3ff000 r-xp 00000000 08:01 77 /bin/x", /* end before start */
		"400000-401000",
		"400000-401000 r-",
		"400000-401000 r-xp",
		"400000-401000 r-xp zz 08:01 77 /bin/x",
		"400000-401000 r-xp 00000000 08:01",
		"400000-401000 r-xp 00000000 08:01 x7 /bin/x",
		"g00000-401000 r-xp 00000000 08:01 77 /bin/x",
		"12345678901234567-401000 r-xp 00000000 08:01 77 /bin/x", /* 17 hex digits */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &m) != 0)
			fprintf(stderr, "  accepted: '%s'\n", bad[i]);
		CHECK_EQ_INT(parse(bad[i], &m), 0);
	}
	/* no NUL needed: only len bytes are read */
	CHECK_EQ_INT(tl_procmaps_parse_line("400000-401000 r-xp 00000000 08:01 77 /bin/xyz", 43, &m), 1);
	CHECK(path_is(&m, "/bin/x"));
}

int main(void)
{
	RUN_TESTS(real_lines, malformed_lines);
}
