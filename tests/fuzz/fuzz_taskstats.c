/*
 * fuzz_taskstats.c - libFuzzer target: arbitrary bytes as a taskstats
 * netlink datagram into tl_taskstats_parse() must never crash or read out
 * of bounds.  Input: byte 0 is the low byte of the family id the parser is
 * told (so both "ours" and "another family" paths are reached); the rest is
 * the datagram, in an exact-size heap buffer so that AddressSanitizer sees
 * any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/taskstats.h"

static void sink(const struct tl_kstat *k, int32_t tgid, void *ctx)
{
	*(uint64_t *)ctx += k->run_ns + k->vol + (uint64_t)tgid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t acc = 0;
	uint8_t *buf;

	if (size < 1)
		return 0;
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	tl_taskstats_parse(buf, size - 1, (uint16_t)data[0], sink, &acc);
	free(buf);
	return 0;
}
