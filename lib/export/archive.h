/*
 * archive.h - the files a trace's samples need, by build ID, in one tar
 * archive, as `perf archive` makes one: a trace read on another machine
 * (or after the programs were rebuilt or upgraded) is named from them.
 * On the machine that reads the trace: mkdir -p ~/.debug; tar -xf FILE -C
 * ~/.debug.  `profile` then finds each file by the build ID its MAP events
 * give (format 1.14; analysis/profile/profile_files.c), and so do perf
 * report and gdb.
 *
 * The files are those a sample's frame lies in, as `profile` resolves the
 * samples (the same read of the trace), each taken where profile found
 * the build that ran: at its path, or in this machine's build-ID cache
 * (record keeps copies there: capture/buildids.h).  Each is one entry,
 * .build-id/xx/yyyy/elf (xx the build ID's first two hex digits, yyyy the
 * rest), once per build ID.  A file without a build ID in the trace (an
 * older trace), rebuilt with no copy found, or unreadable, is left out:
 * the result says which.
 */
#ifndef TL_ARCHIVE_H
#define TL_ARCHIVE_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/profile/profile.h"
#include "timeline/run.h"

struct tl_archive_result {
	struct tl_profile_result prof; /* the samples' profile: its modules, rebuilt and unreadable lists */
	size_t files;                  /* entries written */
	uint64_t bytes;                /* their files' bytes */
	size_t no_id;                  /* files left out for want of a build ID in the trace */
};

/*
 * Write the archive of run's trace to out.  0, or -1 with tl_error set
 * (the trace cannot be read, a file cannot be read, out cannot be
 * written).  Release r with tl_archive_release() either way.
 */
int tl_archive(struct tl_run *run, FILE *out, struct tl_archive_result *r);
void tl_archive_release(struct tl_archive_result *r);

#endif
