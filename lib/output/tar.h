/*
 * tar.h - writing a POSIX tar archive (ustar), as `tar -xf` reads it:
 * regular files only, each a 512-byte header and its bytes padded to 512,
 * then two zero blocks.  Names up to 100 bytes, or 255 split at a '/'
 * into the header's prefix (155) and name (100).  Mode 0644, owner 0,
 * the file's modification time as given.
 */
#ifndef TL_TAR_H
#define TL_TAR_H

#include <stdint.h>
#include <stdio.h>

#define TL_TAR_BLOCK 512

/*
 * One regular file of `size` bytes named `name` (relative, no "..") with
 * modification time mtime (seconds since the epoch): its header, then
 * `size` bytes read from fd at offset 0, padded.  0, or -1 with tl_error
 * set (a name that does not fit, a short read, a write error).
 */
int tl_tar_add_fd(FILE *out, const char *name, int fd, uint64_t size, int64_t mtime);

/* The archive's end: two zero blocks.  0, or -1 with tl_error set. */
int tl_tar_end(FILE *out);

/* The header of such a file into b[TL_TAR_BLOCK]: 0, or -1 (tl_error set) if the name does not fit. */
int tl_tar_header(unsigned char *b, const char *name, uint64_t size, int64_t mtime);

#endif
