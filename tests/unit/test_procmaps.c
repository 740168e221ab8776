/*
 * test_procmaps.c - the /proc files of sampling: /proc/PID/maps lines into
 * mappings (capture/procmaps.h): exact fields of real lines (Linux 6.18),
 * paths with spaces and " (deleted)", anonymous and special mappings,
 * malformed lines refused; and /proc/kallsyms into kernel functions
 * (capture/kallsyms.h): lines, text symbols only, ends, modules, hidden
 * addresses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#include "capture/kallsyms.h"
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

TEST(kallsyms_lines)
{
	uint64_t a;
	char t;
	const char *n, *m;
	size_t nl, ml;
	const char *l1 = "ffffffff81000000 T _text\n",
	           *l2 = "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]";

	CHECK_EQ_INT(tl_kallsyms_parse_line(l1, strlen(l1), &a, &t, &n, &nl, &m, &ml), 1);
	CHECK_EQ_INT(a, (int64_t)0xffffffff81000000ull);
	CHECK_EQ_INT(t, 'T');
	CHECK(nl == 5 && !memcmp(n, "_text", 5) && m == NULL);
	CHECK_EQ_INT(tl_kallsyms_parse_line(l2, strlen(l2), &a, &t, &n, &nl, &m, &ml), 1);
	CHECK(ml == 17 && !memcmp(m, "__builtin__ftrace", 17));
	CHECK_EQ_INT(tl_kallsyms_parse_line("", 0, &a, &t, &n, &nl, &m, &ml), 0);
	CHECK_EQ_INT(tl_kallsyms_parse_line("zz T x", 6, &a, &t, &n, &nl, &m, &ml), 0);
	CHECK_EQ_INT(tl_kallsyms_parse_line("ffff T", 6, &a, &t, &n, &nl, &m, &ml), 0);
	CHECK_EQ_INT(tl_kallsyms_parse_line("ffffffffffffffff0 T x", 21, &a, &t, &n, &nl, &m, &ml), 0);
	CHECK_EQ_INT(tl_kallsyms_parse_line("ff T x\t[mod", 12, &a, &t, &n, &nl, &m, &ml), 0);
}

TEST(kallsyms_table)
{
	char path[] = "/tmp/tl-test-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct tl_kallsyms k;
	const struct tl_ksym *s;

	CHECK(f != NULL);
	if (!f)
		return;
	fputs("ffffffff81000100 T do_syscall_64\n"
	      "ffffffff81000000 T _text\n"
	      "ffffffff81000000 T _stext\n"
	      "ffffffff81000080 D some_data\n"
	      "ffffffff81000200 t helper\n"
	      "ffffffffc0201000 t mod_func\t[mymod]\n"
	      "not a line\n",
	      f);
	fclose(f);
	CHECK_EQ_INT(tl_kallsyms_load(&k, path), 0);
	CHECK_EQ_INT(k.n, 4); /* one of the aliases at 0x...000; no data symbol */
	CHECK_EQ_INT(k.hidden, 0);
	s = tl_kallsyms_find(&k, 0xffffffff81000150ull);
	CHECK(s && !strcmp(s->name, "do_syscall_64") && s->end == 0xffffffff81000200ull);
	s = tl_kallsyms_find(&k, 0xffffffffc0201010ull);
	CHECK(s && !strcmp(s->name, "mod_func [mymod]") && s->end == 0xffffffffc0202000ull);
	CHECK(tl_kallsyms_find(&k, 0xffffffff80000000ull) == NULL);
	CHECK(tl_kallsyms_find(&k, 0xffffffffc0203000ull) == NULL);
	tl_kallsyms_release(&k);
	/* kptr_restrict: every address 0 */
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("0000000000000000 T _text\n0000000000000000 T do_syscall_64\n", f);
		fclose(f);
	}
	CHECK_EQ_INT(tl_kallsyms_load(&k, path), 0);
	CHECK_EQ_INT(k.n, 0);
	CHECK_EQ_INT(k.hidden, 1);
	tl_kallsyms_release(&k);
	unlink(path);
	CHECK_EQ_INT(tl_kallsyms_load(&k, path), -1);
}

int main(void)
{
	RUN_TESTS(real_lines, malformed_lines, kallsyms_lines, kallsyms_table);
}
