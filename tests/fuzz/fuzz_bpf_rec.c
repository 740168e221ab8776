/*
 * fuzz_bpf_rec.c - libFuzzer target: arbitrary bytes as one record of the
 * eBPF back end's ring buffer into tl_bpf_parse() must never crash or read
 * out of bounds, and every name it returns must lie inside the record (or
 * be the reader's own, a marker's "(name lost)").
 * The record sits in an exact-size heap buffer so that AddressSanitizer
 * sees any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/bpf_rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	struct tl_bpf_event ev;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (tl_bpf_parse(buf, size, &ev)) {
		volatile char sink = 0;

		for (int i = 0; i < ev.d.nids; i++)
			for (uint32_t k = 0; k < ev.d.ids[i].comm.len; k++)
				sink ^= ev.d.ids[i].comm.s[k];
		for (uint32_t k = 0; k < ev.d.name.len; k++)
			sink ^= ev.d.name.s[k];
		(void)sink;
	}
	free(buf);
	return 0;
}
