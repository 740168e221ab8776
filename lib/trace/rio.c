/*
 * rio.c - backends of the trace byte stream (see rio.h).
 *
 * fd streams own a 256 KiB buffer: reads fill it with as few syscalls as
 * possible and writes gather small pieces (block headers) in it, while
 * large writes (compressed chunks) bypass it.  EINTR is retried; a short
 * read means end of input.  Memory writers grow geometrically.
 */
#include "trace/rio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "base/errors.h"
#include "base/grow.h"

#define FD_BUF_SIZE (256 * 1024)

static size_t fd_read(struct tl_rio *r, void *buf, size_t len)
{
	uint8_t *dst = buf;
	size_t done = 0;

	while (done < len) {
		size_t avail = r->u.fd.len - r->u.fd.pos;
		if (avail) {
			size_t n = avail < len - done ? avail : len - done;
			memcpy(dst + done, r->u.fd.buf + r->u.fd.pos, n);
			r->u.fd.pos += n;
			done += n;
			continue;
		}
		/* Large reads go straight to the caller's buffer. */
		uint8_t *into = len - done >= r->u.fd.cap ? dst + done : r->u.fd.buf;
		size_t want = into == r->u.fd.buf ? r->u.fd.cap : len - done;
		ssize_t got = read(r->u.fd.fd, into, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r->err = errno;
			break;
		}
		if (got == 0) {
			r->eof = 1;
			break;
		}
		if (into == r->u.fd.buf) {
			r->u.fd.pos = 0;
			r->u.fd.len = (size_t)got;
		} else {
			done += (size_t)got;
		}
	}
	return done;
}

static int fd_write_all(struct tl_rio *r, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(r->u.fd.fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r->err = errno;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fd_flush(struct tl_rio *r)
{
	if (r->err)
		return -1;
	if (r->u.fd.len && fd_write_all(r, r->u.fd.buf, r->u.fd.len) < 0)
		return -1;
	r->u.fd.len = 0;
	return 0;
}

static int fd_write(struct tl_rio *r, const void *buf, size_t len)
{
	if (r->err)
		return -1;
	if (r->u.fd.len + len > r->u.fd.cap) {
		if (fd_flush(r) < 0)
			return -1;
		if (len >= r->u.fd.cap)
			return fd_write_all(r, buf, len);
	}
	memcpy(r->u.fd.buf + r->u.fd.len, buf, len);
	r->u.fd.len += len;
	return 0;
}

static size_t mem_read(struct tl_rio *r, void *buf, size_t len)
{
	size_t avail = r->u.mem.len - r->u.mem.pos;
	if (len > avail) {
		len = avail;
		r->eof = 1;
	}
	if (len)
		memcpy(buf, r->u.mem.p + r->u.mem.pos, len);
	r->u.mem.pos += len;
	return len;
}

static int out_write(struct tl_rio *r, const void *buf, size_t len)
{
	if (r->err)
		return -1;
	if (len > SIZE_MAX - r->u.out.len || TL_GROW(r->u.out.p, r->u.out.cap, r->u.out.len + len) < 0) {
		r->err = ENOMEM;
		return -1;
	}
	memcpy(r->u.out.p + r->u.out.len, buf, len);
	r->u.out.len += len;
	return 0;
}

static int no_flush(struct tl_rio *r)
{
	return r->err ? -1 : 0;
}

static size_t no_read(struct tl_rio *r, void *buf, size_t len)
{
	r->err = EBADF;
	return 0;
}

static int no_write(struct tl_rio *r, const void *buf, size_t len)
{
	r->err = EBADF;
	return -1;
}

static int init_fd(struct tl_rio *r, int fd, int own)
{
	memset(r, 0, sizeof(*r));
	r->u.fd.fd = fd;
	r->u.fd.own = own;
	r->u.fd.cap = FD_BUF_SIZE;
	r->u.fd.buf = malloc(FD_BUF_SIZE);
	if (!r->u.fd.buf)
		return tl_error("out of memory");
	return 0;
}

int tl_rio_init_fd_reader(struct tl_rio *r, int fd, int own)
{
	struct stat st;

	if (init_fd(r, fd, own) < 0)
		return -1;
	r->read = fd_read;
	r->write = no_write;
	r->flush = no_flush;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t pos = lseek(fd, 0, SEEK_CUR);
		r->size = (uint64_t)st.st_size - (pos > 0 ? (uint64_t)pos : 0);
	}
	return 0;
}

int tl_rio_init_fd_writer(struct tl_rio *r, int fd, int own)
{
	if (init_fd(r, fd, own) < 0)
		return -1;
	r->read = no_read;
	r->write = fd_write;
	r->flush = fd_flush;
	return 0;
}

void tl_rio_init_mem_reader(struct tl_rio *r, const void *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->u.mem.p = buf;
	r->u.mem.len = len;
	r->size = len;
	r->read = mem_read;
	r->write = no_write;
	r->flush = no_flush;
}

void tl_rio_init_mem_writer(struct tl_rio *r)
{
	memset(r, 0, sizeof(*r));
	r->read = no_read;
	r->write = out_write;
	r->flush = no_flush;
}

void *tl_rio_mem_take(struct tl_rio *r, size_t *len)
{
	void *p = r->u.out.p;
	*len = r->u.out.len;
	r->u.out.p = NULL;
	r->u.out.len = r->u.out.cap = 0;
	return p;
}

int tl_rio_release(struct tl_rio *r)
{
	int ret = 0;

	if (r->read == fd_read || r->write == fd_write) {
		free(r->u.fd.buf);
		r->u.fd.buf = NULL;
		if (r->u.fd.own && r->u.fd.fd >= 0 && close(r->u.fd.fd) < 0) {
			if (!r->err)
				r->err = errno;
			ret = -1;
		}
		r->u.fd.fd = -1;
	} else if (r->write == out_write) {
		free(r->u.out.p);
		r->u.out.p = NULL;
	}
	return ret;
}

int tl_rio_flush(struct tl_rio *r)
{
	return r->flush(r);
}

void tl_rio_crc_begin(struct tl_rio *r, uint32_t crc)
{
	r->crc = crc;
	r->crc_on = 1;
}

uint32_t tl_rio_crc_end(struct tl_rio *r)
{
	r->crc_on = 0;
	return r->crc;
}

size_t tl_rio_read(struct tl_rio *r, void *buf, size_t len)
{
	size_t n = r->read(r, buf, len);
	if (r->crc_on)
		r->crc = tl_crc32c(r->crc, buf, n);
	r->processed += n;
	return n;
}

uint64_t tl_rio_skip(struct tl_rio *r, uint64_t len)
{
	uint8_t tmp[4096];
	uint64_t done = 0;

	while (done < len) {
		size_t want = len - done < sizeof(tmp) ? (size_t)(len - done) : sizeof(tmp);
		size_t n = tl_rio_read(r, tmp, want);
		done += n;
		if (n < want)
			break;
	}
	return done;
}

int tl_rio_write(struct tl_rio *r, const void *buf, size_t len)
{
	if (r->write(r, buf, len) < 0)
		return -1;
	if (r->crc_on)
		r->crc = tl_crc32c(r->crc, buf, len);
	r->processed += len;
	return 0;
}
