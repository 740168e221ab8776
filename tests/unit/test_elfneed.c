/*
 * test_elfneed.c - a program's start-up libraries (lib/symbols/elfneed.c).
 *
 * The truth for the walk is the loader itself: the libraries this test
 * program's loader mapped, as the kernel lists them in /proc/self/maps,
 * must be exactly the files the walk finds from its executable (a library
 * dlopen()ed would be in the maps only; this program opens none).  The
 * ld.so.conf reader gets a hand-written file with comments, includes and
 * a loop; a file that is not ELF is an error with its message.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"
#include "symbols/elfneed.h"
#include "harness.h"

#define MAXLIBS 64

struct list {
	char v[MAXLIBS][PATH_MAX];
	int n;
};

static int has(const struct list *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

static void add(struct list *l, const char *s)
{
	if (l->n < MAXLIBS && !has(l, s))
		snprintf(l->v[l->n++], PATH_MAX, "%s", s);
}

static int on_lib(void *ctx, const char *path)
{
	add(ctx, path);
	return 0;
}

static int stop_at_first(void *ctx, const char *path)
{
	(*(int *)ctx)++;
	return 7;
}

TEST(self_libraries)
{
	static struct list walked, mapped;
	char exe[PATH_MAX], line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "r");
	int calls = 0;

	CHECK(realpath("/proc/self/exe", exe) != NULL);
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/'), real[PATH_MAX];

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (realpath(path, real) && strcmp(real, exe))
			add(&mapped, real);
	}
	if (f)
		fclose(f);
	CHECK_EQ_INT(tl_elfneed_each(exe, on_lib, &walked), 0);
	CHECK(mapped.n >= 2); /* libc and the loader at least */
	CHECK_EQ_INT(walked.n, mapped.n);
	for (int i = 0; i < mapped.n; i++)
		if (!has(&walked, mapped.v[i])) {
			fprintf(stderr, "  mapped but not found: %s\n", mapped.v[i]);
			harness_failed = 1;
		}
	for (int i = 0; i < walked.n; i++)
		if (!has(&mapped, walked.v[i])) {
			fprintf(stderr, "  found but not mapped: %s\n", walked.v[i]);
			harness_failed = 1;
		}
	/* fn's nonzero result ends the walk and comes back */
	CHECK_EQ_INT(tl_elfneed_each(exe, stop_at_first, &calls), 7);
	CHECK_EQ_INT(calls, 1);
}

TEST(self_dynamic)
{
	struct tl_elfdyn d;
	int libc = 0;

	CHECK_EQ_INT(tl_elfdyn_read("/proc/self/exe", &d), 0);
	CHECK_EQ_INT(d.elfclass, sizeof(void *) == 8 ? 2 : 1);
	for (int i = 0; i < d.nneeded; i++)
		libc += !strcmp(d.needed[i], "libc.so.6");
	CHECK_EQ_INT(libc, 1);
	tl_elfdyn_free(&d);
	CHECK_EQ_INT(d.nneeded, 0);
}

static void on_dir(void *ctx, const char *dir)
{
	char *out = ctx;

	strcat(out, dir);
	strcat(out, "|");
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(conf_file)
{
	char dir[] = "/tmp/tl_elfneed_XXXXXX", p[PATH_MAX], out[1024] = "";

	CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/sub", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/2.conf", dir);
	put(p, "/d\n");
	snprintf(p, sizeof(p), "%s/sub/1.conf", dir);
	put(p, "# one\n/c # after\n");
	snprintf(p, sizeof(p), "%s/sub/loop.conf", dir);
	put(p, "include loop.conf\n"); /* includes itself: ends at the depth limit */
	snprintf(p, sizeof(p), "%s/ld.so.conf", dir);
	put(p, "# comment\n/a\ninclude sub/*.conf\n  /b  \nhwcap 0x1 x\n\n");
	CHECK_EQ_INT(tl_elfneed_conf(p, on_dir, out), 0);
	CHECK_EQ_STR(out, "/a|/c|/d|/b|");
	out[0] = 0;
	CHECK_EQ_INT(tl_elfneed_conf("/nonexistent/ld.so.conf", on_dir, out), 0);
	CHECK_EQ_STR(out, "");
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	CHECK_EQ_INT(system(p), 0);
}

static int line_is(const char *line, int kind, const char *want)
{
	const char *out = NULL;
	size_t n = 0;
	int k = tl_elfneed_conf_line(line, strlen(line), &out, &n);

	if (k != kind)
		return 0;
	return !k || (n == strlen(want) && !memcmp(out, want, n));
}

TEST(conf_lines)
{
	CHECK(line_is("/usr/local/lib\n", 1, "/usr/local/lib"));
	CHECK(line_is("  /opt/lib  # a comment\n", 1, "/opt/lib"));
	CHECK(line_is("include /etc/ld.so.conf.d/*.conf\n", 2, "/etc/ld.so.conf.d/*.conf"));
	CHECK(line_is("include\tsub/*.conf  ", 2, "sub/*.conf"));
	CHECK(line_is("hwcap 0 nosegneg\n", 0, ""));
	CHECK(line_is("# only a comment\n", 0, ""));
	CHECK(line_is("   \t\n", 0, ""));
	CHECK(line_is("", 0, ""));
	CHECK(line_is("/a#b", 1, "/a")); /* the comment starts at '#', as ldconfig reads it */
}

TEST(not_elf)
{
	struct tl_elfdyn d;
	int calls = 0;

	CHECK_EQ_INT(tl_elfdyn_read_mem("hello", 5, "text", &d), -1);
	tl_elfdyn_free(&d);
	CHECK_EQ_INT(tl_elfneed_each("/nonexistent/app", stop_at_first, &calls), -1);
	CHECK(strstr(tl_error_msg(), "/nonexistent/app") != NULL);
	CHECK_EQ_INT(calls, 0);
}

int main(void)
{
	RUN_TESTS(self_libraries, self_dynamic, conf_file, conf_lines, not_elf);
}
