/*
 * procmaps.h - the code mappings of sampled processes, from
 * /proc/PID/maps, for the trace's MAP events (record --sample): what turns
 * a sampled address into a file and an offset, and then a symbol.
 *
 * The recorder notes each process that a sample names; a new one has its
 * maps read at once, one whose sample lies outside its code as last read
 * too (the libraries the loader maps after an exec: a program shorter than
 * a flush would otherwise end before they are read), and the ones sampled
 * since are read again at each flush, their MAP events written again only
 * when their maps changed (a dlopen, an exec).  Only executable mappings count (perm "x"), with their path or
 * "[vdso]"-like name; anonymous code (JIT) has none and is left out.
 *
 * tl_procmaps_parse_line() is pure (fuzz_procmaps); the rest reads /proc.
 */
#ifndef TL_PROCMAPS_H
#define TL_PROCMAPS_H

#include <stddef.h>
#include <stdint.h>

/* One line of /proc/PID/maps. */
struct tl_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;      /* file offset of start */
	int exec;            /* perm has 'x' */
	const char *path;    /* into the parsed line: the file, "[vdso]", or "" for anonymous */
	size_t path_len;
};

/*
 * Parse "start-end perms offset dev inode   path" (the path may hold
 * spaces and end in " (deleted)", kept).  The line needs no NUL: len
 * bytes, a trailing newline allowed.  1 with *out filled, 0 if malformed.
 */
int tl_procmaps_parse_line(const char *line, size_t len, struct tl_map *out);

struct tl_procmaps;

/* An empty set of processes; NULL with tl_error set. */
struct tl_procmaps *tl_procmaps_new(void);
void tl_procmaps_free(struct tl_procmaps *pm);

/*
 * A process a sample names, at user address ip (0: none) and time ts: 1
 * if it is new to the set, or ip lies outside its executable mappings as
 * last read (at most once per 50 ms of ts for a process: anonymous code,
 * a JIT's, lies outside whatever is read): read it now with
 * tl_procmaps_scan().  0 if known, -1 with tl_error set (out of memory).
 * At most 4096 processes are followed; more are left unmapped.
 */
int tl_procmaps_note(struct tl_procmaps *pm, int32_t pid, uint64_t ip, uint64_t ts);

/*
 * Read the maps of pid (when pid is 0: every known process that a sample
 * named since its last reading) and call fn for
 * each executable mapping of a process whose maps changed since its last
 * reading (all of them at its first).  A process that is gone is dropped.
 * Returns 0, or fn's nonzero result.
 */
int tl_procmaps_scan(struct tl_procmaps *pm, int32_t pid, int (*fn)(void *ctx, int32_t pid, const struct tl_map *m),
                     void *ctx);

#endif
