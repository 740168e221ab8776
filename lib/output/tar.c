/*
 * tar.c - a ustar archive writer (see tar.h; POSIX.1-2001 "pax" format's
 * ustar header, as GNU tar and bsdtar read it).
 */
#include "output/tar.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"

/* An octal field of w bytes: w - 1 digits and a NUL. */
static void octal(unsigned char *f, size_t w, uint64_t v)
{
	f[w - 1] = 0;
	for (size_t i = w - 1; i-- > 0; v >>= 3)
		f[i] = (unsigned char)('0' + (v & 7));
}

int tl_tar_header(unsigned char *b, const char *name, uint64_t size, int64_t mtime)
{
	size_t len = strlen(name), split = 0;
	unsigned sum = 0;

	memset(b, 0, TL_TAR_BLOCK);
	if (len > 100) { /* prefix '/' name: the last '/' that leaves at most 100 bytes of name */
		for (size_t i = len - 1; i > 0 && len - i - 1 <= 100; i--)
			if (name[i] == '/' && i <= 155)
				split = i;
		if (!split)
			return tl_error("cannot archive '%s': the name is too long for a tar header", name);
		memcpy(b + 345, name, split);
		memcpy(b, name + split + 1, len - split - 1);
	} else {
		memcpy(b, name, len);
	}
	octal(b + 100, 8, 0644);
	octal(b + 108, 8, 0);
	octal(b + 116, 8, 0);
	if (size >= 1ull << 33)
		return tl_error("cannot archive '%s': over 8 GB", name);
	octal(b + 124, 12, size);
	octal(b + 136, 12, mtime > 0 ? (uint64_t)mtime : 0);
	b[156] = '0'; /* a regular file */
	memcpy(b + 257, "ustar", 6);
	memcpy(b + 263, "00", 2);
	memcpy(b + 265, "root", 4);
	memcpy(b + 297, "root", 4);
	memset(b + 148, ' ', 8); /* the checksum counts its own field as spaces */
	for (size_t i = 0; i < TL_TAR_BLOCK; i++)
		sum += b[i];
	octal(b + 148, 7, sum);
	b[155] = ' ';
	return 0;
}

int tl_tar_add_fd(FILE *out, const char *name, int fd, uint64_t size, int64_t mtime)
{
	unsigned char b[65536];
	uint64_t at = 0;

	if (tl_tar_header(b, name, size, mtime))
		return -1;
	if (fwrite(b, 1, TL_TAR_BLOCK, out) != TL_TAR_BLOCK)
		return tl_error_errno("cannot write the archive");
	while (at < size) {
		size_t want = size - at < sizeof(b) ? (size_t)(size - at) : sizeof(b);
		ssize_t n = pread(fd, b, want, (off_t)at);
		if (n <= 0)
			return n < 0 ? tl_error_errno("cannot read '%s'", name)
			             : tl_error("cannot read '%s': it shrank while archived", name);
		if (fwrite(b, 1, (size_t)n, out) != (size_t)n)
			return tl_error_errno("cannot write the archive");
		at += (uint64_t)n;
	}
	memset(b, 0, TL_TAR_BLOCK);
	if (size % TL_TAR_BLOCK &&
	    fwrite(b, 1, TL_TAR_BLOCK - size % TL_TAR_BLOCK, out) != TL_TAR_BLOCK - size % TL_TAR_BLOCK)
		return tl_error_errno("cannot write the archive");
	return 0;
}

int tl_tar_end(FILE *out)
{
	static const unsigned char zero[2 * TL_TAR_BLOCK];

	return fwrite(zero, 1, sizeof(zero), out) == sizeof(zero) ? 0 : tl_error_errno("cannot write the archive");
}
