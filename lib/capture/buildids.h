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
 */
#ifndef TL_BUILDIDS_H
#define TL_BUILDIDS_H

#include <stdint.h>

#include "capture/procmaps.h"
#include "symbols/symfile.h"

struct tl_buildids;

/* An empty set; NULL with tl_error set. */
struct tl_buildids *tl_buildids_new(void);
void tl_buildids_free(struct tl_buildids *b);

/*
 * The build ID of the file that process pid maps at m, into
 * hex[TL_BUILD_ID_HEX]: its length, or 0 (hex "") when the file has none,
 * is not an ELF file, or cannot be read (a pseudo-file: "[vdso]", an
 * anonymous mapping; a file gone with its process).  -1 only when memory
 * runs out (tl_error set).
 */
int tl_buildids_of(struct tl_buildids *b, int32_t pid, const struct tl_map *m, char *hex);

#endif
