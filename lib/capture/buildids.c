/*
 * buildids.c - the build IDs of mapped files (see buildids.h).
 *
 * Invariant: files[] holds every (device, inode) read so far with its
 * build ID (hex, "" for none); a file is read at most once.
 */
#include "capture/buildids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/errors.h"
#include "base/grow.h"

struct known {
	dev_t dev;
	ino_t ino;
	char hex[TL_BUILD_ID_HEX];
};

struct tl_buildids {
	struct known *files;
	size_t n, cap;
};

struct tl_buildids *tl_buildids_new(void)
{
	struct tl_buildids *b = calloc(1, sizeof(*b));

	if (!b)
		tl_error("out of memory");
	return b;
}

void tl_buildids_free(struct tl_buildids *b)
{
	if (!b)
		return;
	free(b->files);
	free(b);
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
			return (int)strlen(hex);
		}
	if (TL_GROW(b->files, b->cap, b->n + 1) < 0)
		return -1;
	struct known *k = &b->files[b->n++];
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	if (tl_symfile_build_id(path, k->hex) < 0)
		k->hex[0] = 0; /* not ELF, or unreadable: no build ID */
	strcpy(hex, k->hex);
	return (int)strlen(hex);
}
