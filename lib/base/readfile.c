/*
 * readfile.c - tl_read_file() (readfile.h): doubling reads up to max + 1
 * bytes, so that a file of exactly max bytes is taken and a longer one
 * refused without reading it all.
 */
#include "base/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

int tl_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n = 0;
	char *b = NULL;
	int rc = 0;

	*buf = NULL;
	*len = 0;
	if (!f)
		return TL_READ_OPEN;
	for (;;) {
		size_t got;
		if (n + 1 >= cap) { /* room for a byte more than max, and the NUL */
			size_t want = cap ? 2 * cap : 4096;
			char *nb;
			if (want > max + 2)
				want = max + 2;
			if (want <= cap || !(nb = realloc(b, want))) {
				rc = TL_READ_LARGE;
				break;
			}
			b = nb;
			cap = want;
		}
		got = fread(b + n, 1, cap - 1 - n, f);
		n += got;
		if (n > max) {
			rc = TL_READ_LARGE;
			break;
		}
		if (!got) {
			if (ferror(f))
				rc = TL_READ_IO;
			break;
		}
	}
	if (rc) {
		int saved = errno;
		free(b);
		fclose(f);
		errno = saved;
		return rc;
	}
	fclose(f);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

int tl_read_text(const char *path, size_t max, const char *kind, char **buf)
{
	size_t len;
	int rc = tl_read_file(path, max, buf, &len);

	if (rc == TL_READ_LARGE)
		return tl_error("cannot read %s %s: over %zu MB (it is text)", kind, path, max >> 20);
	if (rc)
		return tl_error_errno("cannot read %s %s", kind, path);
	if (memchr(*buf, 0, len)) {
		free(*buf);
		*buf = NULL;
		return tl_error("%s %s is not a text file", kind, path);
	}
	return 0;
}
