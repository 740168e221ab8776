/*
 * readfile.h - a whole small file into memory, regular or not (a pipe,
 * /dev/stdin, a /proc file: read until its end, never sized with ftell).
 *
 * The caller words the errors, so each file kind keeps its own message;
 * nothing is written to tl_error here.
 */
#ifndef TL_READFILE_H
#define TL_READFILE_H

#include <stddef.h>

enum {
	TL_READ_OPEN = -1,  /* fopen failed: errno says why */
	TL_READ_LARGE = -2, /* more than max bytes (or no memory for them) */
	TL_READ_IO = -3,    /* a read failed: errno says why */
};

/*
 * The bytes of path, NUL-terminated, in *buf (the caller frees it), their
 * number in *len (without the NUL).  0, or a TL_READ_* code with *buf NULL.
 */
int tl_read_file(const char *path, size_t max, char **buf, size_t *len);

#endif
