/*
 * umarks.c - the marker library's functions in a running process (umarks.h).
 *
 * Invariants: a path is examined once (u->checked), so a file is in the
 * list once, by its path as the process maps it; its offsets are those
 * elfsym.h gives, as `record --func` uses them.
 */
#include "capture/umarks.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"
#include "capture/procmaps.h"
#include "symbols/elfneed.h"
#include "symbols/elfsym.h"

const char *const tl_umark_symbols[TL_UMARK__COUNT] = {
	[TL_UMARK_FRAME_BEGIN] = "tl_frame_begin", [TL_UMARK_FRAME_END] = "tl_frame_end",
	[TL_UMARK_FRAME_JOIN] = "tl_frame_join",   [TL_UMARK_REGION_BEGIN] = "tl_region_begin",
	[TL_UMARK_REGION_END] = "tl_region_end",   [TL_UMARK_TASK_BEGIN] = "tl_task_begin",
	[TL_UMARK_TASK_END] = "tl_task_end",       [TL_UMARK_INSTANT] = "tl_instant",
};

int tl_umarks_resolve(const char *path, struct tl_umarks_file *f)
{
	memset(f, 0, sizeof(*f));
	if (strlen(path) >= sizeof(f->path))
		return 0;
	snprintf(f->path, sizeof(f->path), "%s", path);
	for (int i = 0; i < TL_UMARK__COUNT; i++) {
		struct tl_elfsym s;

		/* not defined here (imported, stripped, not ELF): no probe on it */
		if (tl_elfsym_lookup(path, tl_umark_symbols[i], &s) == 0) {
			f->offset[i] = s.offset;
			f->have |= 1u << i;
		} else if (i == TL_UMARK_FRAME_BEGIN) {
			break;
		}
	}
	return (f->have & (1u << TL_UMARK_FRAME_BEGIN)) != 0;
}

int tl_umarks_candidate(const char *path, const char *exe)
{
	const char *base;

	if (path[0] != '/')
		return 0;
	if (exe && *exe && !strcmp(path, exe))
		return 1;
	base = strrchr(path, '/') + 1;
	return strstr(base, "threadlens") != NULL;
}

struct tl_umarks *tl_umarks_new(void)
{
	struct tl_umarks *u = calloc(1, sizeof(*u));

	if (!u)
		tl_error("out of memory");
	return u;
}

void tl_umarks_free(struct tl_umarks *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->checked.n; i++)
		free(u->checked.v[i]);
	free(u->checked.v);
	for (size_t i = 0; i < u->omp_checked.n; i++)
		free(u->omp_checked.v[i]);
	free(u->omp_checked.v);
	free(u);
}

/* 1 if path was examined before; else it is noted (0), or -1 out of memory. */
static int checked_before(struct tl_umarks_paths *l, const char *path)
{
	char *copy;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], path))
			return 1;
	if (TL_GROW(l->v, l->cap, l->n + 1) < 0 || !(copy = strdup(path)))
		return tl_error("out of memory");
	l->v[l->n++] = copy;
	return 0;
}

/* Call fn with the path of each executable file mapping of pid, in the maps' order, until it returns nonzero. */
static int each_code_file(int32_t pid, int (*fn)(void *ctx, const char *path), void *ctx)
{
	char p[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(p, "r")))
		return tl_error_errno("cannot read the maps of process %d", (int)pid);
	while (!ret && (len = getline(&line, &cap, f)) > 0) {
		struct tl_map m;
		char path[PATH_MAX];

		if (!tl_procmaps_parse_line(line, (size_t)len, &m) || !m.exec || m.path_len >= sizeof(path) ||
		    m.path[0] != '/')
			continue;
		memcpy(path, m.path, m.path_len);
		path[m.path_len] = 0;
		ret = fn(ctx, path);
	}
	free(line);
	fclose(f);
	return ret;
}

struct find {
	struct tl_umarks *u;
	char exe[PATH_MAX];
};

static int find_one(void *ctx, const char *path)
{
	struct find *x = ctx;
	struct tl_umarks *u = x->u;
	struct tl_umarks_file *t, spare;
	int ret = 0;

	if (strlen(path) >= sizeof(t->path) || !tl_umarks_candidate(path, x->exe) ||
	    (ret = checked_before(&u->checked, path)))
		return ret < 0 ? ret : 0;
	t = u->n < TL_UMARKS_MAX_FILES ? &u->files[u->n] : &spare;
	if (tl_umarks_resolve(path, t)) {
		if (t == &spare)
			u->left_out++;
		else
			u->n++;
	}
	return 0;
}

int tl_umarks_find(struct tl_umarks *u, int32_t pid)
{
	struct find x = { .u = u };
	char p[64];
	ssize_t e;

	snprintf(p, sizeof(p), "/proc/%d/exe", (int)pid);
	if ((e = readlink(p, x.exe, sizeof(x.exe) - 1)) > 0)
		x.exe[e] = 0;
	return each_code_file(pid, find_one, &x) < 0 ? -1 : 0;
}

/*
 * fn(u, pid) for every process in /proc: one that is gone or unreadable
 * meanwhile is passed over.  0, or -1 when /proc cannot be listed or
 * memory runs out (tl_error set).
 */
static int each_process(struct tl_umarks *u, int (*fn)(struct tl_umarks *u, int32_t pid))
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = 0;

	if (!d)
		return tl_error_errno("cannot list /proc");
	while (!ret && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		if (fn(u, (int32_t)pid) < 0 && !strcmp(tl_error_msg(), "out of memory"))
			ret = -1;
	}
	closedir(d);
	return ret;
}

int tl_umarks_find_all(struct tl_umarks *u)
{
	return each_process(u, tl_umarks_find);
}

/* 1 if s is "." and digits, nothing after (the counter a compiler appends). */
static int counter(const char *s)
{
	if (*s++ != '.' || !*s)
		return 0;
	while (*s >= '0' && *s <= '9')
		s++;
	return !*s;
}

int tl_umarks_is_omp(const char *name)
{
	const char *p;

	/* the function ends there: "FUNC._omp_fn.0.cold" is a piece of its body, "...part.1" a piece it calls */
	if (!strncmp(name, ".omp_outlined.", 14))
		return !name[14] || counter(name + 14);
	for (p = name; (p = strstr(p, "._omp_fn.")); p++)
		if (counter(p + 8))
			return 1;
	return 0;
}

static const char *const omp_barriers[] = {
	"GOMP_barrier",      "GOMP_barrier_cancel",      "GOMP_loop_end",  "GOMP_loop_end_cancel",
	"GOMP_sections_end", "GOMP_sections_end_cancel", "__kmpc_barrier",
};

int tl_umarks_is_omp_barrier(const char *name)
{
	const char *f = strrchr(name, ':') ? strrchr(name, ':') + 1 : name;

	for (size_t i = 0; i < sizeof(omp_barriers) / sizeof(omp_barriers[0]); i++)
		if (!strcmp(f, omp_barriers[i]))
			return 1;
	return 0;
}

struct omp_scan {
	struct tl_umarks *u;
	const char *path;
	int added;
};

/* 1 if the function at offset in path is a span already (.symtab and .dynsym, or a second process of the program). */
static int have_span(const struct tl_umarks *u, const char *path, uint64_t offset)
{
	for (int i = 0; i < u->nspans; i++)
		if (u->spans[i].offset == offset && !strcmp(u->spans[i].path, path))
			return 1;
	return 0;
}

static int omp_one(void *ctx, const char *name, uint64_t offset)
{
	struct omp_scan *o = ctx;
	struct tl_umarks *u = o->u;
	struct tl_umarks_span *sp;

	if (!tl_umarks_is_omp(name) || strlen(name) >= sizeof(sp->name) || have_span(u, o->path, offset))
		return 0;
	if (u->nspans == TL_UMARKS_MAX_SPANS) {
		u->spans_left_out++;
		return 0;
	}
	sp = &u->spans[u->nspans++];
	snprintf(sp->path, sizeof(sp->path), "%s", o->path);
	snprintf(sp->name, sizeof(sp->name), "%s", name);
	sp->offset = offset;
	o->added++;
	return 0;
}

int tl_umarks_omp(struct tl_umarks *u, const char *path)
{
	struct omp_scan o = { u, path, 0 };

	if (strlen(path) >= sizeof(u->spans[0].path))
		return 0;
	if (tl_elfsym_each(path, omp_one, &o) < 0)
		return -1;
	return o.added;
}

int tl_umarks_add_span(struct tl_umarks *u, const char *path, const char *name, uint64_t offset)
{
	struct tl_umarks_span *sp;

	if (u->nspans == TL_UMARKS_MAX_SPANS)
		return -1;
	sp = &u->spans[u->nspans];
	snprintf(sp->path, sizeof(sp->path), "%s", path);
	snprintf(sp->name, sizeof(sp->name), "%s", name);
	sp->offset = offset;
	return u->nspans++;
}

/* A start-up library of a command: its OpenMP functions, if any (a stripped one has none to find). */
int tl_umarks_is_omp_runtime(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return !strncmp(base, "libgomp.so", 10) || !strncmp(base, "libomp.so", 9) || !strncmp(base, "libiomp5.so", 11);
}

int tl_umarks_omp_barriers(struct tl_umarks *u, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int added = 0;

	if (strlen(path) >= sizeof(u->spans[0].path))
		return 0;
	for (size_t i = 0; i < sizeof(omp_barriers) / sizeof(omp_barriers[0]); i++) {
		struct tl_elfsym sym;
		struct tl_umarks_span *sp;

		if (tl_elfsym_lookup(path, omp_barriers[i], &sym) < 0)
			continue; /* this runtime has no such function (libomp has no GOMP_loop_end) */
		if (have_span(u, path, sym.offset) || u->nspans == TL_UMARKS_MAX_SPANS)
			continue;
		sp = &u->spans[u->nspans++];
		snprintf(sp->path, sizeof(sp->path), "%s", path);
		snprintf(sp->name, sizeof(sp->name), "%.60s:%s", base, omp_barriers[i]);
		sp->offset = sym.offset;
		sp->barrier = 1;
		u->nbarriers++;
		added++;
	}
	return added;
}

/* A file of the program: an OpenMP runtime is noted and its barriers added, any other searched for OpenMP functions. */
static void omp_file(struct tl_umarks *u, const char *path)
{
	if (!tl_umarks_is_omp_runtime(path)) {
		tl_umarks_omp(u, path);
		return;
	}
	if (!u->omp_runtime[0])
		snprintf(u->omp_runtime, sizeof(u->omp_runtime), "%s",
		         strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	tl_umarks_omp_barriers(u, path);
}

static int omp_lib(void *ctx, const char *path)
{
	omp_file(ctx, path);
	return 0;
}

int tl_umarks_omp_libs(struct tl_umarks *u, const char *exe)
{
	int before = u->nspans;

	if (tl_elfneed_each(exe, omp_lib, u) < 0)
		return -1;
	return u->nspans - before;
}

/* A mapped file: its OpenMP functions, the first time any process maps it. */
static int omp_mapped(void *ctx, const char *path)
{
	struct tl_umarks *u = ctx;
	size_t n = strlen(path);
	int r;

	/* a file replaced since it was mapped is not the code that runs: passed over */
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		return 0;
	if ((r = checked_before(&u->omp_checked, path)))
		return r < 0 ? -1 : 0;
	omp_file(u, path);
	return 0;
}

int tl_umarks_omp_maps(struct tl_umarks *u, int32_t pid)
{
	int before = u->nspans;

	if (each_code_file(pid, omp_mapped, u) < 0)
		return -1;
	return u->nspans - before;
}

int tl_umarks_omp_all(struct tl_umarks *u)
{
	int before = u->nspans;

	return each_process(u, tl_umarks_omp_maps) < 0 ? -1 : u->nspans - before;
}
