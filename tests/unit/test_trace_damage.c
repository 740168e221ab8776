/*
 * test_trace_damage.c - unit tests of the trace reader on files that are
 * not what they should be: truncated at every byte offset, a flipped bit in
 * every byte of a chunk, not a trace at all, a newer major version, a newer
 * minor version with parts this reader does not know, an empty trace, and
 * hand-made chunks with malformed contents.
 */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "trace_test_util.h"

#include "base/crc32c.h"
#include "trace/rio.h"

/* ---- damage ---- */

/* A block with correct checksums around any payload (for hand-made files). */
static size_t put_block(uint8_t *out, unsigned type, unsigned flags, const void *payload, size_t len)
{
	out[0] = (uint8_t)type;
	out[1] = (uint8_t)flags;
	tl_put_le16(out + 2, 0);
	tl_put_le32(out + 4, (uint32_t)len);
	tl_put_le32(out + 8, (uint32_t)len);
	memcpy(out + TLF_BLOCK_HEADER_SIZE, payload, len);
	tl_put_le32(out + 12, tl_crc32c(tl_crc32c(0, out, 12), payload, len));
	tl_put_le32(out + 16, tl_crc32c(0, out, 16));
	return TLF_BLOCK_HEADER_SIZE + len;
}

static size_t put_header(uint8_t *out, unsigned major, unsigned minor, unsigned hlen)
{
	memset(out, 0, hlen);
	memcpy(out, TLF_MAGIC, TLF_MAGIC_LEN);
	tl_put_le16(out + 8, (uint16_t)major);
	tl_put_le16(out + 10, (uint16_t)minor);
	tl_put_le32(out + 12, hlen);
	tl_put_le32(out + 28, tl_crc32c(0, out, 28));
	return hlen;
}

/* Blocks of a file: end offset, type and events so far (EVENTS: from the chunk's sections). */
struct blockinfo {
	size_t off, end;
	unsigned type;
};

static int list_blocks(const uint8_t *buf, size_t len, struct blockinfo *out, int max)
{
	size_t off = TLF_HEADER_SIZE;
	int n = 0;
	while (off + TLF_BLOCK_HEADER_SIZE <= len && n < max) {
		out[n].off = off;
		out[n].type = buf[off];
		off += TLF_BLOCK_HEADER_SIZE + tl_get_le32(buf + off + 4);
		out[n++].end = off;
	}
	return n;
}

TEST(truncated_at_every_offset)
{
	struct tl_event all[64], got[64];
	struct blockinfo blocks[32];
	struct tl_trace_stats st;
	int chunk_events[3], nall, nblocks;
	size_t len;
	uint8_t *buf = small_trace(&len, chunk_events, 3, all, &nall);

	CHECK_EQ_INT(nall, 18);
	nblocks = list_blocks(buf, len, blocks, 32);
	CHECK(nblocks >= 6 && blocks[0].type == TLF_BLOCK_META && blocks[nblocks - 1].type == TLF_BLOCK_END);
	for (size_t cut = 0; cut < len; cut++) {
		/* A private copy, so that ASan catches any read past the cut. */
		uint8_t *copy = malloc(cut ? cut : 1);
		int want = 0, n;
		memcpy(copy, buf, cut);
		for (int b = 0, c = 0; b < nblocks; b++)
			if (blocks[b].type == TLF_BLOCK_EVENTS && c++ < 3 && blocks[b].end <= cut)
				want += chunk_events[c - 1];
		n = read_events(copy, cut, got, 64, &st);
		if (cut < blocks[0].end) {
			CHECK_EQ_INT(n, -1);
			CHECK(strstr(tl_error_msg(), "cannot read '<memory>'") != NULL);
		} else {
			CHECK_EQ_INT(n, want);
			for (int i = 0; i < n && i < nall; i++)
				CHECK(ev_equal(&got[i], &all[i]));
			CHECK_EQ_INT(st.complete, 0);
			CHECK_EQ_INT(st.nwarnings, 1);
			int boundary = 0;
			for (int b = 0; b < nblocks; b++)
				boundary |= blocks[b].end == cut;
			CHECK(has_warning(&st, boundary ? "did not finish cleanly" : "is truncated at offset"));
		}
		free(copy);
	}
	CHECK_EQ_INT(read_events(buf, len, got, 64, &st), 18);
	CHECK_EQ_INT(st.nwarnings, 0);
	free(buf);
}

TEST(flipped_byte_stops_at_last_good_chunk)
{
	struct tl_event all[64], got[64];
	struct blockinfo blocks[32];
	struct tl_trace_stats st;
	int chunk_events[3], nall, nblocks, second = -1, nev = 0;
	size_t len;
	uint8_t *buf = small_trace(&len, chunk_events, 3, all, &nall);
	char want[128];

	nblocks = list_blocks(buf, len, blocks, 32);
	for (int b = 0; b < nblocks && second < 0; b++)
		if (blocks[b].type == TLF_BLOCK_EVENTS && ++nev == 2)
			second = b;
	CHECK(second > 0);
	if (second <= 0)
		return;
	snprintf(want, sizeof(want), "is damaged at offset %zu (", blocks[second].off);
	for (size_t off = blocks[second].off; off < blocks[second].end; off++) {
		for (int bit = 0; bit < 8; bit += 3) {
			buf[off] ^= (uint8_t)(1 << bit);
			CHECK_EQ_INT(read_events(buf, len, got, 64, &st), chunk_events[0]);
			for (int i = 0; i < chunk_events[0]; i++)
				CHECK(ev_equal(&got[i], &all[i]));
			CHECK(has_warning(&st, want));
			CHECK(has_warning(&st, off < blocks[second].off + TLF_BLOCK_HEADER_SIZE
			                               ? "checksum in block"
			                               : "(bad checksum in block"));
			CHECK_EQ_INT(st.bytes_skipped, len - blocks[second].off);
			buf[off] ^= (uint8_t)(1 << bit);
		}
	}
	/* The message names the block and says how much was lost. */
	buf[blocks[second].end - 1] ^= 0x40;
	read_events(buf, len, got, 64, &st);
	snprintf(want, sizeof(want), "(bad checksum in block %d): ", second);
	CHECK(has_warning(&st, want));
	CHECK(has_warning(&st, "%) after it were not read"));
	buf[blocks[second].end - 1] ^= 0x40;
	/* Damage in the metadata block: the trace cannot be opened. */
	buf[blocks[0].off + TLF_BLOCK_HEADER_SIZE + 3] ^= 1;
	CHECK_EQ_INT(read_events(buf, len, got, 64, &st), -1);
	CHECK(strstr(tl_error_msg(), "damaged metadata block at offset 32 (bad checksum)") != NULL);
	free(buf);
}

TEST(not_a_trace)
{
	const char *p = tmp_path("hello.txt");
	write_all(p, "hello, world: this is not a trace at all\n", 41);
	CHECK(tl_trace_open(p) == NULL);
	char want[512];
	snprintf(want, sizeof(want), "cannot read '%s': not a threadlens trace (bad magic at offset 0)", p);
	CHECK_EQ_STR(tl_error_msg(), want);
	write_all(p, "", 0);
	CHECK(tl_trace_open(p) == NULL);
	CHECK(strstr(tl_error_msg(), "the file is empty") != NULL);
	write_all(p, "TLTRA", 5);
	CHECK(tl_trace_open(p) == NULL);
	CHECK(strstr(tl_error_msg(), "truncated at offset 5, inside the file header") != NULL);
	CHECK(tl_trace_open(tmp_path("no-such-file.tl")) == NULL);
	CHECK(strstr(tl_error_msg(), "No such file or directory") != NULL);
	CHECK(tl_trace_open(tmpdir) == NULL);
	CHECK(strstr(tl_error_msg(), "Is a directory") != NULL);
}

TEST(newer_major_rejected)
{
	uint8_t buf[256];
	size_t n = put_header(buf, 2, 3, 32);
	n += put_block(buf + n, TLF_BLOCK_META, 0, "", 0);
	write_all(tmp_path("v2.tl"), buf, n);
	CHECK(tl_trace_open(tmp_path("v2.tl")) == NULL);
	char want[512];
	snprintf(want, sizeof(want),
	         "cannot read '%s': trace format 2.3 is newer than this threadlens can read (1.x); a newer threadlens "
	         "is needed",
	         tmp_path("v2.tl"));
	CHECK_EQ_STR(tl_error_msg(), want);
}

TEST(newer_minor_accepted)
{
	/* Format 1.7: longer header, unknown META key, unknown block type,
	 * an event of an unknown type (explicit mask), trailing bytes in
	 * EVENTS and END.  All of it must be skipped gracefully. */
	uint8_t buf[512], pl[128];
	size_t n = put_header(buf, 1, 7, 40), k = 0;
	struct tl_event got[8];
	struct tl_trace_stats st;

	const uint8_t meta[] = { 10,  'f', 'u', 't', 'u', 'r', 'e', '_', 'k', 'e', 'y', 3,   'x',
		                 'y', 'z', 5,   'c', 'l', 'o', 'c', 'k', 4,   'b', 'o', 'o', 't' };
	n += put_block(buf + n, TLF_BLOCK_META, 0, meta, sizeof(meta));
	n += put_block(buf + n, 9, 0, "whatever", 8);
	pl[k++] = 0;   /* watermark */
	pl[k++] = 1;   /* sections */
	pl[k++] = 0;   /* cpu 0 */
	pl[k++] = 3;   /* events */
	pl[k++] = 100; /* base ts */
	pl[k++] = 11;  /* bytes */
	/* the middle event has type 60 (escaped: a type this reader does not know) with an explicit mask */
	const uint8_t evs[] = { TL_EV_EXIT, 0, 10, TLF_EV_TYPE_ESCAPE | TLF_EV_HAS_MASK, 60, TLF_F_TID, 5, 12,
		                TL_EV_EXIT, 5, 14 };
	memcpy(pl + k, evs, sizeof(evs));
	k += sizeof(evs);
	pl[k++] = 0xaa;
	pl[k++] = 0xbb;
	n += put_block(buf + n, TLF_BLOCK_EVENTS, 0, pl, k);
	const uint8_t end[] = { 200, 1, 2, 0, 1, 0, 77, 77 };
	n += put_block(buf + n, TLF_BLOCK_END, 0, end, sizeof(end));

	struct tl_trace *t = tl_trace_open_mem(buf, n);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_STR(tl_trace_info(t)->clock, "boot");
		tl_trace_close(t);
	}
	CHECK_EQ_INT(read_events(buf, n, got, 8, &st), 2);
	CHECK_EQ_INT(got[0].tid, 5);
	CHECK_EQ_INT(got[0].ts, 100);
	CHECK_EQ_INT(got[1].tid, 7);
	CHECK_EQ_INT(got[1].ts, 110);
	CHECK_EQ_INT(st.complete, 1);
	CHECK_EQ_INT(st.end.end_ns, 200);
	CHECK(has_warning(&st, "1 events of types this threadlens does not know"));

	/* Without a mask an unknown type is damage: the events before it are good, nothing after it comes. */
	pl[6 + 3] = TLF_EV_TYPE_ESCAPE;
	n = put_header(buf, 1, 0, 32);
	n += put_block(buf + n, TLF_BLOCK_META, 0, "", 0);
	n += put_block(buf + n, TLF_BLOCK_EVENTS, 0, pl, k);
	CHECK_EQ_INT(read_events(buf, n, got, 8, &st), 1);
	CHECK_EQ_INT(got[0].tid, 5);
	CHECK(has_warning(&st, "malformed event chunk in block 1"));
	/* A string id beyond the table is damage too. */
	const uint8_t rename[] = { 0, 1, 0, 1, 0, 4, TL_EV_RENAME, 0, 2, 1 };
	n = put_header(buf, 1, 0, 32);
	n += put_block(buf + n, TLF_BLOCK_META, 0, "", 0);
	n += put_block(buf + n, TLF_BLOCK_EVENTS, 0, rename, sizeof(rename));
	CHECK_EQ_INT(read_events(buf, n, got, 8, &st), 0);
	CHECK(has_warning(&st, "malformed event chunk"));
}

TEST(empty_trace)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_end end = { .end_ns = 5, .ncpus = 0 };
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("empty.tl"), &info);
	struct tl_trace_stats st;
	struct tl_event got[1];
	size_t len;

	CHECK(tl_trace_writer_flush(w, 100) == 0);
	CHECK(tl_trace_writer_close(w, &end) == 0);
	void *buf = read_all(tmp_path("empty.tl"), &len);
	struct blockinfo blocks[4];
	CHECK_EQ_INT(list_blocks(buf, len, blocks, 4), 2);
	CHECK_EQ_INT(read_events(buf, len, got, 1, &st), 0);
	CHECK_EQ_INT(st.complete, 1);
	CHECK_EQ_INT(st.nwarnings, 0);
	CHECK_EQ_INT(st.chunks, 0);
	CHECK_EQ_INT(st.end.end_ns, 5);
	free(buf);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	RUN_TESTS(truncated_at_every_offset, flipped_byte_stops_at_last_good_chunk, not_a_trace, newer_major_rejected,
	          newer_minor_accepted, empty_trace);
}
