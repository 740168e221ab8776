/*
 * elfneed.c - a program's start-up libraries, found as the loader finds
 * them (elfneed.h), with elfutils' libelf for .dynamic.
 *
 * The walk keeps two lists: the DT_NEEDED names handled (the loader maps a
 * name once) and the files found, by real path (a soname link and its
 * target are one file).  Files are taken in the order found, each read
 * once, so the walk is breadth first and ends after TL_ELFNEED_MAX files
 * whatever the files say.
 */
#include "symbols/elfneed.h"
#include "symbols/elfsym.h"

#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"

#define CONF_DEPTH 8

/* ------------------------------------------------------------------ */
/* One object's .dynamic */

static int dup_into(char **dst, const char *s)
{
	return (*dst = strdup(s)) ? 0 : tl_error("out of memory");
}

static int add_needed(struct tl_elfdyn *d, size_t *cap, const char *name)
{
	if (TL_GROW(d->needed, *cap, (size_t)d->nneeded + 1) < 0)
		return tl_error("out of memory");
	if (dup_into(&d->needed[d->nneeded], name))
		return -1;
	d->nneeded++;
	return 0;
}

static int read_dyn(struct Elf *e, const char *label, void *ctx)
{
	struct tl_elfdyn *d = ctx;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	if (!gelf_getehdr(e, &eh))
		return tl_error("cannot read '%s': %s", label, elf_errmsg(-1));
	d->elfclass = eh.e_ident[EI_CLASS];
	d->machine = eh.e_machine;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		if (!(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < data->d_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
				continue;
			/* elf_strptr checks the offset against the string table the section links to */
			if (!(s = elf_strptr(e, sh.sh_link, (size_t)dyn.d_un.d_val)))
				continue;
			if (dyn.d_tag == DT_NEEDED && add_needed(d, &cap, s))
				return -1;
			if (dyn.d_tag == DT_RPATH && !d->rpath && dup_into(&d->rpath, s))
				return -1;
			if (dyn.d_tag == DT_RUNPATH && !d->runpath && dup_into(&d->runpath, s))
				return -1;
		}
		break; /* one .dynamic, as the loader reads one PT_DYNAMIC */
	}
	return 0;
}

int tl_elfdyn_read(const char *path, struct tl_elfdyn *d)
{
	memset(d, 0, sizeof(*d));
	return tl_elfsym_with(path, read_dyn, d);
}

int tl_elfdyn_read_mem(const void *image, size_t size, const char *label, struct tl_elfdyn *d)
{
	memset(d, 0, sizeof(*d));
	return tl_elfsym_with_mem(image, size, label, read_dyn, d);
}

void tl_elfdyn_free(struct tl_elfdyn *d)
{
	for (int i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->rpath);
	free(d->runpath);
	memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------------ */
/* ld.so.conf */

int tl_elfneed_conf_line(const char *line, size_t len, const char **out, size_t *out_len)
{
	const char *s = line, *end = line + len;
	const char *hash = memchr(line, '#', len);

	if (hash)
		end = hash;
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && (isspace((unsigned char)end[-1]) || !end[-1]))
		end--;
	if (s == end || (end - s >= 5 && !memcmp(s, "hwcap", 5)))
		return 0;
	if (end - s > 7 && !memcmp(s, "include", 7) && isspace((unsigned char)s[7])) {
		for (s += 7; s < end && isspace((unsigned char)*s);)
			s++;
		*out = s;
		*out_len = (size_t)(end - s);
		return 2;
	}
	*out = s;
	*out_len = (size_t)(end - s);
	return 1;
}

static void conf_file(const char *path, void (*fn)(void *ctx, const char *dir), void *ctx, int depth)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, item[PATH_MAX];
	size_t cap = 0, n;
	const char *s;
	ssize_t len;

	if (!f)
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		int kind = tl_elfneed_conf_line(line, (size_t)len, &s, &n);
		const char *slash = strrchr(path, '/');
		glob_t g;

		if (!kind || n >= sizeof(item))
			continue;
		memcpy(item, s, n);
		item[n] = 0;
		if (kind == 1) {
			fn(ctx, item);
			continue;
		}
		/* an include: a glob, relative to this file's directory */
		if (depth >= CONF_DEPTH)
			continue;
		if (item[0] != '/' && slash) {
			char pattern[PATH_MAX * 2];

			snprintf(pattern, sizeof(pattern), "%.*s/%s", (int)(slash - path), path, item);
			if (glob(pattern, 0, NULL, &g))
				continue;
		} else if (glob(item, 0, NULL, &g)) {
			continue;
		}
		for (size_t i = 0; i < g.gl_pathc; i++)
			conf_file(g.gl_pathv[i], fn, ctx, depth + 1);
		globfree(&g);
	}
	free(line);
	fclose(f);
}

int tl_elfneed_conf(const char *path, void (*fn)(void *ctx, const char *dir), void *ctx)
{
	conf_file(path, fn, ctx, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The walk */

struct strs {
	char **v;
	size_t n, cap;
};

struct walk {
	struct strs names, files, conf;
	int oom;
	int elfclass, machine;
	const char *exe;
	char *exe_rpath; /* the executable's DT_RPATH when it has no DT_RUNPATH: every object searches it */
};

static int strs_has(const struct strs *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

static int strs_add(struct strs *l, const char *s)
{
	if (TL_GROW(l->v, l->cap, l->n + 1) < 0 || !(l->v[l->n] = strdup(s)))
		return -1;
	l->n++;
	return 0;
}

static void strs_free(struct strs *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static void conf_dir(void *ctx, const char *dir)
{
	struct walk *w = ctx;

	if (!strs_has(&w->conf, dir) && strs_add(&w->conf, dir))
		w->oom = 1;
}

/* 1 if path is a regular ELF file of the walk's class and machine (the loader skips others). */
static int fits(const struct walk *w, const char *path)
{
	unsigned char h[20];
	struct stat st;
	int fd, ok, machine;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	ok = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, ELFMAG, SELFMAG);
	close(fd);
	if (!ok || h[EI_CLASS] != w->elfclass)
		return 0;
	machine = h[EI_DATA] == ELFDATA2MSB ? h[18] << 8 | h[19] : h[19] << 8 | h[18];
	return machine == w->machine;
}

/* dir/name into out when it fits, with $ORIGIN (origin: the object's directory) replaced. */
static int try_dir(const struct walk *w, const char *dir, size_t dirlen, const char *origin, const char *name,
                   char *out, size_t len)
{
	char d[PATH_MAX];
	size_t n = 0;

	for (size_t i = 0; i < dirlen && n < sizeof(d) - 1;) {
		size_t skip = !strncmp(dir + i, "$ORIGIN", 7) ? 7 : !strncmp(dir + i, "${ORIGIN}", 9) ? 9 : 0;

		if (skip) {
			n += (size_t)snprintf(d + n, sizeof(d) - n, "%s", origin);
			i += skip;
		} else if (dir[i] == '$') {
			return 0; /* $LIB, $PLATFORM: the loader's own choice, not guessed */
		} else {
			d[n++] = dir[i++];
		}
	}
	if (n >= sizeof(d) - 1 || !n)
		return 0; /* an empty entry is the working directory of the program: not guessed either */
	d[n] = 0;
	if ((size_t)snprintf(out, len, "%s/%s", d, name) >= len)
		return 0;
	return fits(w, out);
}

/* The first directory of a ':'- (or ';'-) separated list that holds name. */
static int try_list(const struct walk *w, const char *list, const char *origin, const char *name, char *out, size_t len)
{
	while (list && *list) {
		size_t n = strcspn(list, ":;");

		if (try_dir(w, list, n, origin, name, out, len))
			return 1;
		list += n + (list[n] != 0);
	}
	return 0;
}

/* Where the loader finds `name` that the object at obj (with d) needs: 1 with out filled, or 0. */
static int find(const struct walk *w, const char *obj, int is_exe, const struct tl_elfdyn *d, const char *name,
                char *out, size_t len)
{
	char origin[PATH_MAX], exe_origin[PATH_MAX];
	const char *dir;

	if (strchr(name, '/'))
		return snprintf(out, len, "%s", name) < (int)len && fits(w, out);
	snprintf(origin, sizeof(origin), "%s", obj);
	*(strrchr(origin, '/') ? strrchr(origin, '/') : origin) = 0;
	snprintf(exe_origin, sizeof(exe_origin), "%s", w->exe);
	*(strrchr(exe_origin, '/') ? strrchr(exe_origin, '/') : exe_origin) = 0;
	if (!d->runpath && (try_list(w, d->rpath, origin, name, out, len) ||
	                    (!is_exe && try_list(w, w->exe_rpath, exe_origin, name, out, len))))
		return 1;
	if (try_list(w, getenv("LD_LIBRARY_PATH"), origin, name, out, len) ||
	    try_list(w, d->runpath, origin, name, out, len))
		return 1;
	for (size_t i = 0; i < w->conf.n; i++)
		if (try_dir(w, w->conf.v[i], strlen(w->conf.v[i]), origin, name, out, len))
			return 1;
	for (size_t i = 0; (dir = tl_elfsym_lib_dir(i)); i++)
		if (try_dir(w, dir, strlen(dir), origin, name, out, len))
			return 1;
	return 0;
}

static void walk_free(struct walk *w)
{
	strs_free(&w->names);
	strs_free(&w->files);
	strs_free(&w->conf);
	free(w->exe_rpath);
}

int tl_elfneed_each(const char *exe, int (*fn)(void *ctx, const char *path), void *ctx)
{
	struct walk w = { .exe = exe };
	struct tl_elfdyn d;
	char rexe[PATH_MAX];
	int ret = 0;

	if (realpath(exe, rexe)) /* $ORIGIN of the executable is where it really is */
		w.exe = rexe;

	if (tl_elfdyn_read(exe, &d)) {
		tl_elfdyn_free(&d);
		return -1;
	}
	w.elfclass = d.elfclass;
	w.machine = d.machine;
	if (!d.runpath && d.rpath && !(w.exe_rpath = strdup(d.rpath)))
		w.oom = 1;
	tl_elfneed_conf("/etc/ld.so.conf", conf_dir, &w);
	/* files[0] is the executable; each file's names are looked up once it is reached */
	if (strs_add(&w.files, w.exe))
		w.oom = 1;
	for (size_t i = 0; i < w.files.n && !ret && !w.oom; i++) {
		if (i && tl_elfdyn_read(w.files.v[i], &d)) {
			tl_elfdyn_free(&d);
			continue; /* not readable now: the loader would fail, not our concern */
		}
		for (int k = 0; k < d.nneeded && !ret && !w.oom && w.files.n < TL_ELFNEED_MAX; k++) {
			char path[PATH_MAX], real[PATH_MAX];

			if (strs_has(&w.names, d.needed[k]))
				continue;
			if (strs_add(&w.names, d.needed[k])) {
				w.oom = 1;
				break;
			}
			if (!find(&w, w.files.v[i], i == 0, &d, d.needed[k], path, sizeof(path)) ||
			    !realpath(path, real) || strs_has(&w.files, real))
				continue;
			if (strs_add(&w.files, real))
				w.oom = 1;
			else
				ret = fn(ctx, real);
		}
		tl_elfdyn_free(&d);
	}
	tl_elfdyn_free(&d); /* the executable's, when the walk did not start */
	walk_free(&w);
	if (w.oom)
		return tl_error("out of memory");
	return ret;
}
