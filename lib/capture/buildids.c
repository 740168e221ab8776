/*
 * buildids.c - the build IDs of mapped files (see buildids.h).
 *
 * Invariants: files[] holds every (device, inode) read so far with its
 * build ID (hex, "" for none); a file is read at most once.  With keep, a
 * file with a build ID is held open (fd) while at most MAX_FDS are, and
 * ranges[] holds every mapping of a held file, in any process: at the end
 * a sample's address in one of them marks the file as hit (a false hit
 * across processes keeps one file more, never one less).
 */
#include "capture/buildids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"

struct known {
	dev_t dev;
	ino_t ino;
	char hex[TL_BUILD_ID_HEX];
	char *path; /* as mapped (with keep: for the cache's layout) */
	int fd;     /* with keep: the file as mapped, open until the end; -1 none */
};

/* With keep: a mapping of a kept file (its index), to tell which files the samples hit. */
struct range {
	uint64_t start, end;
	size_t file;
};

struct tl_buildids {
	struct known *files;
	size_t n, cap;
	int keep;
	unsigned nfds;
	struct range *ranges;
	size_t nranges, capranges;
};

#define MAX_FDS 256 /* files held open for the cache; more are not kept */

struct tl_buildids *tl_buildids_new(int keep)
{
	struct tl_buildids *b = calloc(1, sizeof(*b));

	if (!b)
		tl_error("out of memory");
	else
		b->keep = keep;
	return b;
}

void tl_buildids_free(struct tl_buildids *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		free(b->files[i].path);
		if (b->files[i].fd >= 0)
			close(b->files[i].fd);
	}
	free(b->files);
	free(b->ranges);
	free(b);
}

/* With keep: file i is mapped at m.  0, or -1 (tl_error set). */
static int note_range(struct tl_buildids *b, const struct tl_map *m, size_t i)
{
	if (!b->keep || b->files[i].fd < 0)
		return 0;
	if (TL_GROW(b->ranges, b->capranges, b->nranges + 1) < 0)
		return -1;
	b->ranges[b->nranges++] = (struct range){ m->start, m->end, i };
	return 0;
}

int tl_buildids_of(struct tl_buildids *b, int32_t pid, const struct tl_map *m, char *hex)
{
	char path[4096];
	struct stat st;

	hex[0] = 0;
	if (!m->path_len || m->path[0] != '/' || m->path_len >= sizeof(path))
		return 0;
	/* the mapped file itself, as long as the process lives; then the path */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid, (unsigned long long)m->start,
	         (unsigned long long)m->end);
	if (stat(path, &st)) {
		memcpy(path, m->path, m->path_len);
		path[m->path_len] = 0;
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			return 0;
	}
	for (size_t i = 0; i < b->n; i++)
		if (b->files[i].dev == st.st_dev && b->files[i].ino == st.st_ino) {
			strcpy(hex, b->files[i].hex);
			return note_range(b, m, i) ? -1 : (int)strlen(hex);
		}
	if (TL_GROW(b->files, b->cap, b->n + 1) < 0)
		return -1;
	struct known *k = &b->files[b->n++];
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->fd = -1;
	k->path = NULL;
	if (tl_symfile_build_id(path, k->hex) < 0)
		k->hex[0] = 0; /* not ELF, or unreadable: no build ID */
	if (b->keep && k->hex[0] && b->nfds < MAX_FDS && (k->path = strndup(m->path, m->path_len)) &&
	    (k->fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		b->nfds++;
	strcpy(hex, k->hex);
	return note_range(b, m, b->n - 1) ? -1 : (int)strlen(hex);
}

/* mkdir -p of dir (modified in place, restored). 0 or -1 (errno). */
static int make_dirs(char *dir)
{
	for (char *s = dir + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			int r = mkdir(dir, 0755);
			*s = '/';
			if (r && errno != EEXIST)
				return -1;
		}
	return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

/* Copy the file open at fd into a new file `to`: 0, or -1 (errno). */
static int copy_fd(int fd, const char *to)
{
	char buf[65536];
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	off_t at = 0;
	ssize_t n;

	if (out < 0)
		return -1;
	while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
		at += n;
	}
	if (close(out) || n < 0) {
		unlink(to);
		return -1;
	}
	return 0;
}

/* Keep file k in the cache under root (home/.debug): 1 if added, 0 if there already, -1 (tl_error set). */
static int keep_one(const struct known *k, const char *root)
{
	char dir[8192], elf[8300], tmp[8300], link[8300], target[8300], proc[64], hex[TL_BUILD_ID_HEX];
	struct stat st;

	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", root, k->hex, k->hex + 2);
	if (snprintf(elf, sizeof(elf), "%s/elf", link) >= (int)sizeof(elf) || !stat(elf, &st))
		return 0; /* there already (under this path or another) */
	if (snprintf(dir, sizeof(dir), "%s%s/%s", root, k->path, k->hex) >= (int)sizeof(dir) || make_dirs(dir))
		return tl_error_errno("cannot make '%s'", dir);
	snprintf(elf, sizeof(elf), "%s/elf", dir);
	snprintf(tmp, sizeof(tmp), "%s/elf.%d.tmp", dir, (int)getpid());
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", k->fd);
	unlink(tmp);
	/* a hard link, as perf makes: the file as mapped, however the path changes after */
	if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) && copy_fd(k->fd, tmp))
		return tl_error_errno("cannot copy '%s' into '%s'", k->path, dir);
	if (tl_symfile_build_id(tmp, hex) <= 0 || strcmp(hex, k->hex)) {
		unlink(tmp); /* rewritten in place since it was read: not the build that ran */
		return 0;
	}
	if (rename(tmp, elf)) {
		unlink(tmp);
		return tl_error_errno("cannot write '%s'", elf);
	}
	/* .build-id/xx/yyyy -> ../../PATH/ID, relative as perf makes it */
	snprintf(target, sizeof(target), "../..%s/%s", k->path, k->hex);
	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s", root, k->hex);
	if (make_dirs(dir) || ((void)unlink(link), symlink(target, link) && errno != EEXIST))
		return tl_error_errno("cannot link '%s'", link);
	return 1; /* EEXIST: another recording linked it meanwhile */
}

/* 1 if a sorted address of a[n] lies in [start, end). */
static int any_in(const uint64_t *a, size_t n, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] < end;
}

int tl_buildids_keep(struct tl_buildids *b, const char *home, const uint64_t *addrs, size_t naddrs, size_t *kept)
{
	char root[4200];
	int rc = 0;
	uint8_t *hit;

	*kept = 0;
	if (!b->keep || !b->nranges || !home || home[0] != '/')
		return 0; /* no HOME (a service's environment): no cache, as no perf report would look there */
	if (!(hit = calloc(b->n, 1)))
		return tl_error("out of memory");
	for (size_t i = 0; i < b->nranges; i++)
		hit[b->ranges[i].file] |= any_in(addrs, naddrs, b->ranges[i].start, b->ranges[i].end);
	snprintf(root, sizeof(root), "%s/.debug", home);
	for (size_t i = 0; i < b->n; i++) {
		int r = hit[i] && b->files[i].hex[0] ? keep_one(&b->files[i], root) : 0;
		if (r > 0)
			(*kept)++;
		else if (r < 0)
			rc = -1; /* the others are still tried; the last error is told */
	}
	free(hit);
	return rc;
}
