/*
 * pb.c - the protocol-buffer encoder (pb.h).
 */
#include "export/pb.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/varint.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static uint8_t *room(struct tl_pb *b, size_t n)
{
	if (b->bad)
		return NULL;
	if (TL_GROW(b->buf, b->cap, b->len + n) < 0) {
		b->bad = 1;
		return NULL;
	}
	return b->buf + b->len;
}

static void raw_varint(struct tl_pb *b, uint64_t v)
{
	uint8_t *p = room(b, TL_VARINT_MAX);

	if (p)
		b->len += tl_varint_put(p, v);
}

static void key(struct tl_pb *b, unsigned field, unsigned wire)
{
	raw_varint(b, (uint64_t)field << 3 | wire);
}

void tl_pb_varint(struct tl_pb *b, unsigned field, uint64_t v)
{
	key(b, field, WIRE_VARINT);
	raw_varint(b, v);
}

void tl_pb_int(struct tl_pb *b, unsigned field, int64_t v)
{
	tl_pb_varint(b, field, (uint64_t)v);
}

void tl_pb_bytes(struct tl_pb *b, unsigned field, const void *p, size_t n)
{
	key(b, field, WIRE_LEN);
	raw_varint(b, n);
	tl_pb_raw(b, p, n);
}

void tl_pb_raw(struct tl_pb *b, const void *p, size_t n)
{
	uint8_t *dst;

	if (n && (dst = room(b, n))) {
		memcpy(dst, p, n);
		b->len += n;
	}
}

void tl_pb_string(struct tl_pb *b, unsigned field, const char *s)
{
	tl_pb_bytes(b, field, s, strlen(s));
}

void tl_pb_begin(struct tl_pb *b, unsigned field)
{
	uint8_t *p;

	if (b->depth == TL_PB_MAX_DEPTH) {
		b->bad = 1;
		return;
	}
	key(b, field, WIRE_LEN);
	if (!(p = room(b, 4)))
		return;
	b->open[b->depth++] = b->len;
	b->len += 4;
}

void tl_pb_end(struct tl_pb *b)
{
	size_t at, n;
	uint8_t *p;

	if (b->bad)
		return;
	if (b->depth == 0) {
		b->bad = 1;
		return;
	}
	at = b->open[--b->depth];
	n = b->len - at - 4;
	if (n >= 1u << 28) {
		b->bad = 1;
		return;
	}
	p = b->buf + at;
	p[0] = (uint8_t)(n | 0x80);
	p[1] = (uint8_t)(n >> 7 | 0x80);
	p[2] = (uint8_t)(n >> 14 | 0x80);
	p[3] = (uint8_t)(n >> 21);
}

void tl_pb_reset(struct tl_pb *b)
{
	b->len = 0;
	b->depth = 0;
}

void tl_pb_release(struct tl_pb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}
