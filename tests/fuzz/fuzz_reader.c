/*
 * fuzz_reader.c - libFuzzer target: any bytes given to the trace reader
 * must never crash, hang, read out of bounds or allocate without bound.
 *
 * Each input is read twice: as it is (mostly stopped by the checksums),
 * and with every checksum of the header and of the blocks recomputed, so
 * that mutations reach the payload decoders (META, STRINGS, EVENTS, END)
 * instead of dying at a CRC.  Seeds with uncompressed chunks
 * (tests/fuzz/corpus/fuzz_reader/, written by test_trace --write-seeds)
 * let the fuzzer mutate event codings directly.
 *
 * Beyond crashes one invariant is checked: the number of times the
 * returned timestamps go backwards equals stats->late_events.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/crc32c.h"
#include "trace/rio.h"
#include "trace/trace.h"
#include "trace/trace_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_all(const uint8_t *data, size_t size)
{
	struct tl_trace *t = tl_trace_open_mem(data, size);
	struct tl_trace_memstats m;
	struct tl_event ev;
	uint64_t last = 0, back = 0;
	size_t sink = 0;

	if (!t)
		return;
	sink += strlen(tl_trace_info(t)->command);
	while (tl_trace_next(t, &ev) == 1) {
		if (ev.ts < last)
			back++;
		else
			last = ev.ts;
		sink += strlen(tl_trace_string(t, ev.name));
		if (ev.type >= TL_EV__COUNT)
			__builtin_trap();
	}
	const struct tl_trace_stats *st = tl_trace_stats(t);
	if (st->late_events != back)
		__builtin_trap();
	for (int i = 0; i < st->nwarnings; i++)
		sink += strlen(st->warnings[i]);
	if (st->complete && st->end.ncpus > 0)
		sink += st->end.lost_per_cpu[st->end.ncpus - 1];
	tl_trace_memstats(t, &m);
	if (m.queued_events || m.pending_bytes)
		__builtin_trap(); /* everything queued must have been returned */
	tl_trace_close(t);
	(void)sink;
}

/* Recompute every checksum in place, so that the fuzzer's edits count. */
static void fix_checksums(uint8_t *p, size_t size)
{
	size_t off;

	if (size < TLF_HEADER_SIZE)
		return;
	tl_put_le32(p + 28, tl_crc32c(0, p, 28));
	off = tl_get_le32(p + 12);
	if (off < TLF_HEADER_SIZE || off > size)
		off = TLF_HEADER_SIZE;
	while (off + TLF_BLOCK_HEADER_SIZE <= size) {
		uint8_t *h = p + off;
		size_t len = tl_get_le32(h + 4);
		if (len > size - off - TLF_BLOCK_HEADER_SIZE)
			len = size - off - TLF_BLOCK_HEADER_SIZE; /* a truncated block stays truncated */
		tl_put_le32(h + 12, tl_crc32c(tl_crc32c(0, h, 12), h + TLF_BLOCK_HEADER_SIZE, len));
		tl_put_le32(h + 16, tl_crc32c(0, h, 16));
		off += TLF_BLOCK_HEADER_SIZE + len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	read_all(data, size);
	if (size > (4u << 20))
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_checksums(copy, size);
	read_all(copy, size);
	free(copy);
	return 0;
}
