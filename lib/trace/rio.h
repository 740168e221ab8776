/*
 * rio.h - one byte-stream layer for trace I/O: files, pipes and memory.
 *
 * The trace writer and reader speak only to a struct tl_rio, so the same
 * encoder and decoder serve a file, stdin/stdout, a pipe and a memory
 * buffer (the fuzzer, tests).  Every stream keeps a running count of bytes
 * moved (`processed`, the offset for error messages) and can keep a running
 * CRC-32C of them (tl_rio_crc_begin/_end) so a block is checksummed while
 * it is read, without a second pass.
 *
 * Streams are strictly sequential: the reader never seeks, which is what
 * makes pipes work.  Writes are buffered; tl_rio_flush() pushes them out.
 * A failed operation records errno in `err` and every later write fails,
 * so callers may check once, at the end of a unit of work.
 */
#ifndef TL_RIO_H
#define TL_RIO_H

#include <stddef.h>
#include <stdint.h>

struct tl_rio {
	/* backend: read returns bytes read (short only at EOF or error) */
	size_t (*read)(struct tl_rio *r, void *buf, size_t len);
	/* backend: returns 0, or -1 with err set */
	int (*write)(struct tl_rio *r, const void *buf, size_t len);
	int (*flush)(struct tl_rio *r);

	uint64_t processed; /* bytes read or written so far */
	uint64_t size;      /* total size when known (regular file, memory), else 0 */
	uint32_t crc;       /* running CRC-32C while crc_on */
	int crc_on;
	int err; /* errno of the first failure, 0 if none */
	int eof; /* a read came up short without an error */

	union {
		struct {
			int fd, own;
			uint8_t *buf;
			size_t pos, len, cap;
		} fd;
		struct {
			const uint8_t *p;
			size_t len, pos;
		} mem;
		struct {
			uint8_t *p;
			size_t len, cap;
		} out;
	} u;
};

/*
 * Read from fd (a file, pipe or terminal).  If own, tl_rio_release() closes
 * it.  size is set for regular files.  Returns 0, or -1 with tl_error set
 * (allocation failure).
 */
int tl_rio_init_fd_reader(struct tl_rio *r, int fd, int own);

/* Write to fd through a buffer.  Same ownership rule.  Returns 0 or -1 (tl_error). */
int tl_rio_init_fd_writer(struct tl_rio *r, int fd, int own);

/* Read from memory; buf is not copied and must outlive the stream. */
void tl_rio_init_mem_reader(struct tl_rio *r, const void *buf, size_t len);

/*
 * Write into a growing memory buffer.  tl_rio_mem_take() hands the bytes to
 * the caller (who frees them with free()); otherwise release frees them.
 */
void tl_rio_init_mem_writer(struct tl_rio *r);
void *tl_rio_mem_take(struct tl_rio *r, size_t *len);

/*
 * Free buffers and close an owned fd.  Does not flush.  Returns 0, or -1 if
 * close() failed (err is set; the caller words the message).
 */
int tl_rio_release(struct tl_rio *r);

/* Push buffered writes out.  0, or -1 with err set. */
int tl_rio_flush(struct tl_rio *r);

/* Start a running CRC-32C over the bytes that follow, seeded with crc. */
void tl_rio_crc_begin(struct tl_rio *r, uint32_t crc);

/* Stop the running CRC and return it. */
uint32_t tl_rio_crc_end(struct tl_rio *r);

/*
 * Read up to len bytes; returns the count, short only at end of input or on
 * an error (then err is set).
 */
size_t tl_rio_read(struct tl_rio *r, void *buf, size_t len);

/* Read and discard len bytes; returns how many were skipped. */
uint64_t tl_rio_skip(struct tl_rio *r, uint64_t len);

/* Write all of buf.  0, or -1 with err set. */
int tl_rio_write(struct tl_rio *r, const void *buf, size_t len);

/* Little-endian helpers for fixed-size header fields. */
static inline void tl_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void tl_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void tl_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t tl_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t tl_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t tl_get_le64(const uint8_t *p)
{
	return (uint64_t)tl_get_le32(p) | (uint64_t)tl_get_le32(p + 4) << 32;
}

#endif
