/*
 * pb.h - a protocol-buffer encoder, just enough for the Perfetto export.
 *
 * Messages are written into one growable buffer.  A nested message starts
 * with tl_pb_begin(): its key, then a four-byte length placeholder (a
 * varint padded with continuation bits, which every protobuf decoder reads;
 * Perfetto's own protozero writes lengths the same way), patched by
 * tl_pb_end().  So nothing is copied and a message needs no size up front.
 *
 * Invariants: a nested message is at most 2^28 - 1 bytes (the padded
 * length's range; tl_pb_end() sets `bad` beyond it); begins and ends pair
 * up, at most TL_PB_MAX_DEPTH deep.  After an allocation failure or a
 * broken rule `bad` is set and later calls do nothing, so a caller checks
 * once, at the end.
 */
#ifndef TL_PB_H
#define TL_PB_H

#include <stddef.h>
#include <stdint.h>

#define TL_PB_MAX_DEPTH 8

struct tl_pb {
	uint8_t *buf;
	size_t len, cap;
	size_t open[TL_PB_MAX_DEPTH]; /* offsets of the open messages' length placeholders */
	int depth;
	int bad; /* out of memory, too deep, or a message too long */
};

/* Wire types: varint (int32, int64, uint32, uint64, bool, enum) and length-delimited. */
void tl_pb_varint(struct tl_pb *b, unsigned field, uint64_t v);
/* A signed int32/int64 field: negative values take ten bytes, as the format says. */
void tl_pb_int(struct tl_pb *b, unsigned field, int64_t v);
void tl_pb_bytes(struct tl_pb *b, unsigned field, const void *p, size_t n);
void tl_pb_string(struct tl_pb *b, unsigned field, const char *s);
/* Bytes already encoded (fields of the open message), as they are. */
void tl_pb_raw(struct tl_pb *b, const void *p, size_t n);

void tl_pb_begin(struct tl_pb *b, unsigned field);
void tl_pb_end(struct tl_pb *b);

/* Empty the buffer for the next message (keeps its memory). */
void tl_pb_reset(struct tl_pb *b);
void tl_pb_release(struct tl_pb *b);

#endif
