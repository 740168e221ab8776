/*
 * varint.h - LEB128 varints and zigzag, the integer coding of trace payloads.
 *
 * Unsigned LEB128: 7 bits per byte, low bits first, high bit set on every
 * byte but the last; a uint64_t takes 1 to 10 bytes.  Zigzag maps signed to
 * unsigned so that small magnitudes of either sign stay short
 * (0, -1, 1, -2 -> 0, 1, 2, 3).
 *
 * Encoders write to a buffer the caller has sized (TL_VARINT_MAX bytes per
 * value).  Decoders never read past `end` and reject overlong encodings
 * whose value does not fit in 64 bits, so they are safe on hostile input.
 */
#ifndef TL_VARINT_H
#define TL_VARINT_H

#include <stdint.h>

#define TL_VARINT_MAX 10

static inline uint64_t tl_zigzag_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t tl_zigzag_dec(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Write v at p; returns the number of bytes written (1..10). */
static inline unsigned tl_varint_put(uint8_t *p, uint64_t v)
{
	unsigned n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Bytes tl_varint_put() would write for v. */
static inline unsigned tl_varint_len(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/*
 * Read a varint at *pp (not past end) into *v and advance *pp.
 * Returns 0, or -1 if the input ends inside the varint or the value
 * overflows 64 bits (*pp is then unchanged).
 */
static inline int tl_varint_get(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;

	if (p < end && *p < 0x80) { /* the common one-byte case */
		*v = *p;
		*pp = p + 1;
		return 0;
	}
	for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
		uint8_t b = *p++;
		if (shift == 63 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = r;
			*pp = p;
			return 0;
		}
	}
	return -1;
}

#endif
