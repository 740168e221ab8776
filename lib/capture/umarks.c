/*
 * umarks.c - the marker library's functions in a running process (umarks.h).
 *
 * Invariant: a file is in the list once, by its path as the process maps
 * it; its offsets are those elfsym.h gives, as `record --func` uses them.
 */
#include "capture/umarks.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "capture/procmaps.h"
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

int tl_umarks_find(int32_t pid, struct tl_umarks_file *files, int *n, int max)
{
	char p[64], exe[PATH_MAX] = "", *line = NULL;
	size_t cap = 0;
	ssize_t len, e;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/exe", (int)pid);
	if ((e = readlink(p, exe, sizeof(exe) - 1)) > 0)
		exe[e] = 0;
	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(p, "r")))
		return tl_error_errno("cannot read the maps of process %d", (int)pid);
	while ((len = getline(&line, &cap, f)) > 0) {
		struct tl_map m;
		char path[sizeof(files[0].path)];
		int known = 0;

		if (!tl_procmaps_parse_line(line, (size_t)len, &m) || !m.exec || m.path_len >= sizeof(path))
			continue;
		memcpy(path, m.path, m.path_len);
		path[m.path_len] = 0;
		if (!tl_umarks_candidate(path, exe))
			continue;
		for (int i = 0; i < *n && !known; i++)
			known = !strcmp(files[i].path, path);
		if (!known && *n < max && tl_umarks_resolve(path, &files[*n]))
			(*n)++;
	}
	free(line);
	fclose(f);
	return 0;
}
