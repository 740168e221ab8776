/*
 * buildids.h - the build ID of each file a sampled process maps, read when
 * its MAP event is written (format 1.14: MAP's `arg` names the build ID's
 * hex string).  `profile` resolves a sample with the file at its path when
 * it runs: if that file was rebuilt since, its symbols are another
 * build's, and the names would be wrong without a word.  With the build ID
 * in the trace, a reader can tell, and find the right file elsewhere
 * (analysis/profile, as perf does with the build IDs of perf.data).
 *
 * The file is the one mapped, read through /proc/PID/map_files while the
 * process lives (a binary replaced on disk while it runs is read as it was
 * mapped), else through its path.  Files are known by device and inode:
 * each is read once per recording.
 *
 * With keep (record's default; --no-buildid-cache: not), each file with a
 * build ID is held open as mapped, and at the end, if a sample hit it (as
 * perf keeps the files with hits), kept where perf keeps
 * its build-ID cache, in perf's layout: HOME/.debug/PATH/ID/elf, and
 * HOME/.debug/.build-id/xx/yyyy -> ../../PATH/ID (xx the ID's first two
 * digits).  A hard link where the cache shares the file's file system
 * (perf does the same: no copy, and the link keeps the build that ran
 * when the path gets another), else a copy; nothing when that build ID is
 * there already.  `profile` looks there for a build that its path no
 * longer holds, and so do perf report and gdb.
 */
#ifndef TL_BUILDIDS_H
#define TL_BUILDIDS_H

#include <stdint.h>

#include "capture/procmaps.h"
#include "symbols/symfile.h"

struct tl_buildids;

/* An empty set, keeping the files (above) or not; NULL with tl_error set. */
struct tl_buildids *tl_buildids_new(int keep);
void tl_buildids_free(struct tl_buildids *b);

/*
 * The build ID of the file that process pid maps at m, into
 * hex[TL_BUILD_ID_HEX]: its length, or 0 (hex "") when the file has none,
 * is not an ELF file, or cannot be read (a pseudo-file: "[vdso]", an
 * anonymous mapping; a file gone with its process).  -1 only when memory
 * runs out (tl_error set).
 */
int tl_buildids_of(struct tl_buildids *b, int32_t pid, const struct tl_map *m, char *hex);

/*
 * With keep: each file read with a build ID that holds one of the
 * samples' user addresses (addrs, sorted: a frame of a sample in a
 * mapping of it, in any process), into the cache under home
 * (HOME/.debug; none without HOME), unless that build ID is there (an
 * unchanged program adds nothing).  *kept: how many were added.  0, or -1 with tl_error set when
 * one could not be (the others are still tried).
 */
int tl_buildids_keep(struct tl_buildids *b, const char *home, const uint64_t *addrs, size_t naddrs, size_t *kept);

#endif
