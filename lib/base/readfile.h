/*
 * readfile.h - a whole small file into memory, regular or not (a pipe,
 * /dev/stdin, a /proc file: read until its end, never sized with ftell).
 *
 * tl_read_file leaves the wording of errors to the caller, so each file
 * kind keeps its own message; tl_read_text words them for a text file.
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

/*
 * A text file of at most max bytes, NUL-terminated, in *buf (the caller
 * frees it).  0, or -1 with *buf NULL and tl_error set: "cannot read KIND
 * PATH: " and the system's reason or "over N MB (it is text)" (kind: "the
 * directives file"...), or "KIND PATH is not a text file" (a NUL byte).
 */
int tl_read_text(const char *path, size_t max, const char *kind, char **buf);

#endif
