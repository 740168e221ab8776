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
#include "base/grow.h"
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

/*
 * Read buf and check that it gives the events of all[] except those of
 * block `lost` (of events lost_from.. lost_from+nlost-1), plus one LOST with
 * TL_EVF_DAMAGE for each of CPUs 0 and 1 before their next events.
 */
static void check_one_block_lost(const uint8_t *buf, size_t len, const struct tl_event *all, int nall, int lost_from,
                                 int nlost, size_t skipped)
{
	struct tl_event got[64];
	struct tl_trace_stats st;
	int n = read_events(buf, len, got, 64, &st), k = 0, gaps = 0;

	CHECK_EQ_INT(n, nall - nlost + 2);
	for (int i = 0; i < n && i < 64; i++) {
		if (got[i].type == TL_EV_LOST && (got[i].flags & TL_EVF_DAMAGE)) {
			/* before the CPU's first event after the gap, at its time */
			int c = got[i].cpu, next = -1;
			for (int j = lost_from + nlost; j < nall && next < 0; j++)
				if (all[j].cpu == c)
					next = j;
			CHECK(next >= 0 && got[i].ts == all[next].ts && got[i].a == 0);
			gaps |= 1 << c;
			continue;
		}
		if (k == lost_from)
			k += nlost;
		CHECK(k < nall && ev_equal(&got[i], &all[k]));
		k++;
	}
	CHECK_EQ_INT(gaps, 3);
	CHECK_EQ_INT(k, nall);
	CHECK_EQ_INT(st.blocks_skipped, 1);
	CHECK_EQ_INT(st.bytes_skipped, skipped);
	CHECK_EQ_INT(st.complete, 1);
	CHECK(has_warning(&st, "skipped; events from 0.000001 s to 0.000002 s are missing"));
}

TEST(flipped_byte_costs_one_block)
{
	struct tl_event all[64];
	struct blockinfo blocks[32];
	struct tl_trace_stats st;
	struct tl_event got[64];
	int chunk_events[3], nall, nblocks, second = -1, nev = 0, strings = -1;
	size_t len;
	uint8_t *buf = small_trace(&len, chunk_events, 3, all, &nall);
	char want[128];

	nblocks = list_blocks(buf, len, blocks, 32);
	for (int b = 0; b < nblocks && second < 0; b++)
		if (blocks[b].type == TLF_BLOCK_EVENTS && ++nev == 2)
			second = b;
	CHECK(second > 1 && blocks[second - 1].type == TLF_BLOCK_STRINGS);
	if (second <= 1)
		return;
	strings = second - 1;
	/* Any flipped bit in the second chunk, header or payload, costs that chunk and nothing else. */
	for (size_t off = blocks[second].off; off < blocks[second].end; off++) {
		for (int bit = 0; bit < 8; bit += 3) {
			buf[off] ^= (uint8_t)(1 << bit);
			check_one_block_lost(buf, len, all, nall, chunk_events[0], chunk_events[1],
			                     blocks[second].end - blocks[second].off);
			read_events(buf, len, got, 64, &st);
			snprintf(want, sizeof(want), "is damaged at offset %zu (%s in block %d): ", blocks[second].off,
			         off < blocks[second].off + TLF_BLOCK_HEADER_SIZE ? "bad header checksum"
			                                                          : "bad checksum",
			         second);
			CHECK(has_warning(&st, want));
			buf[off] ^= (uint8_t)(1 << bit);
		}
	}
	/* A flipped string table: every event comes, the strings it defined read as "". */
	for (size_t off = blocks[strings].off; off < blocks[strings].end; off++) {
		buf[off] ^= 0x10;
		struct tl_trace *t = tl_trace_open_mem(buf, len);
		struct tl_event ev;
		int n = 0, damage = 0, empty = 0;
		while (t && tl_trace_next(t, &ev) == 1) {
			if (ev.flags & TL_EVF_DAMAGE) {
				damage++;
				continue;
			}
			CHECK(n < nall && ev_equal(&ev, &all[n]));
			empty += ev.name && !*tl_trace_string(t, ev.name);
			n++;
		}
		CHECK_EQ_INT(n, nall);
		/* a bad header hides the block's type: the events' CPUs then get a gap */
		CHECK_EQ_INT(damage, off < blocks[strings].off + TLF_BLOCK_HEADER_SIZE ? 2 : 0);
		CHECK_EQ_INT(empty, 2); /* "c5", the one string this table defined, used once in each later chunk */
		CHECK_EQ_INT(tl_trace_stats(t)->bytes_skipped, blocks[strings].end - blocks[strings].off);
		tl_trace_close(t);
		buf[off] ^= 0x10;
	}
	/* Damage in the end block: everything before it is read; the trace is not complete. */
	buf[blocks[nblocks - 1].end - 1] ^= 0x40;
	CHECK_EQ_INT(read_events(buf, len, got, 64, &st), nall);
	CHECK_EQ_INT(st.complete, 0);
	snprintf(want, sizeof(want), "(bad checksum in block %d): ", nblocks - 1);
	CHECK(has_warning(&st, want));
	buf[blocks[nblocks - 1].end - 1] ^= 0x40;
	/* Damage in the metadata block: the trace cannot be opened. */
	buf[blocks[0].off + TLF_BLOCK_HEADER_SIZE + 3] ^= 1;
	CHECK_EQ_INT(read_events(buf, len, got, 64, &st), -1);
	CHECK(strstr(tl_error_msg(), "damaged metadata block at offset 32 (bad checksum)") != NULL);
	free(buf);
}

/* ---- a corpus: every committed trace and a many-chunk one, flipped and cut ---- */

/* Read a whole trace into a growing array (NULL-safe); the count, -1 if it cannot be opened. */
static int read_seq(const uint8_t *buf, size_t len, struct tl_event **out, int *damage_lost)
{
	struct tl_trace *t = tl_trace_open_mem(buf, len);
	struct tl_event ev;
	size_t cap = 0;
	int n = 0;

	*damage_lost = 0;
	if (!t)
		return -1;
	while (tl_trace_next(t, &ev) == 1) {
		if (ev.type == TL_EV_LOST && (ev.flags & TL_EVF_DAMAGE)) {
			++*damage_lost;
			continue;
		}
		if (TL_GROW(*out, cap, (size_t)n + 1) < 0)
			break;
		(*out)[n++] = ev;
	}
	tl_trace_close(t);
	return n;
}

/*
 * A flipped byte in block b must read exactly as the file without block b
 * (for an EVENTS block), as the whole file less nothing (a STRINGS or END
 * block: every event still comes), or not open (META).
 */
static void check_flip(uint8_t *buf, size_t len, const struct blockinfo *bl, size_t off, uint8_t bit, int nall,
                       int first_events)
{
	struct tl_event *got = NULL, *want = NULL;
	int gaps, gaps2, n, nw;

	buf[off] ^= bit;
	n = read_seq(buf, len, &got, &gaps);
	buf[off] ^= bit;
	if (bl->type == TLF_BLOCK_META) {
		CHECK_EQ_INT(n, -1);
	} else if (bl->type == TLF_BLOCK_EVENTS) {
		uint8_t *cut = malloc(len);
		memcpy(cut, buf, bl->off);
		memcpy(cut + bl->off, buf + bl->end, len - bl->end);
		nw = read_seq(cut, len - (bl->end - bl->off), &want, &gaps2);
		CHECK_EQ_INT(n, nw);
		for (int i = 0; i < n && i < nw; i++)
			if (!ev_equal(&got[i], &want[i])) {
				CHECK(ev_equal(&got[i], &want[i]));
				break;
			}
		CHECK(gaps >= 1 || first_events); /* no CPU had a state to lose before the first chunk */
		free(cut);
	} else {
		CHECK_EQ_INT(n, nall);
	}
	free(got);
	free(want);
}

static uint8_t *many_chunks(size_t *len)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("many.tl"), &info);
	struct tl_trace_end end = { .end_ns = 1000000, .ncpus = 4 };
	char name[16];

	for (int c = 0; c < 24; c++) {
		for (int i = 0; i < 40; i++) {
			struct tl_event e =
			        mk(2000 + 1000 * c + 20 * i, i % 5 - 1, i % 3 ? TL_EV_WAKEUP : TL_EV_FORK, 100 + i + c);
			snprintf(name, sizeof(name), "t%d", (i * 7 + c) % 60);
			e.arg = 50 + i;
			e.name = tl_trace_writer_intern(w, name);
			tl_trace_writer_add(w, &e);
		}
		tl_trace_writer_flush(w, 2000 + 1000 * (c + 1));
	}
	tl_trace_writer_close(w, &end);
	return read_all(tmp_path("many.tl"), len);
}

TEST(corpus_flips_cost_one_block)
{
	static const char *const files[] = { "tests/data/traces/v1.0-frames.tl",
		                             "tests/data/traces/v1.1-frames.tl",
		                             "tests/data/traces/v1.2-frames.tl",
		                             "tests/data/traces/v1.3-frames.tl",
		                             "tests/data/traces/v1.4-frames.tl",
		                             "tests/data/traces/v1.5-frames.tl",
		                             NULL };
	struct blockinfo bl[128];
	unsigned seed = 12345;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) { /* the last: many_chunks() */
		size_t len;
		uint8_t *buf = files[f] ? read_all(files[f], &len) : many_chunks(&len);
		struct tl_event *all = NULL;
		int gaps, nall, nb, flips = 0;

		CHECK(buf != NULL);
		if (!buf)
			continue;
		nall = read_seq(buf, len, &all, &gaps);
		nb = list_blocks(buf, len, bl, 128);
		CHECK(nall > 100 && gaps == 0 && nb >= 3);
		/* Every byte of the small ones, 400 random bytes of the big one. */
		for (int b = 0, nev = 0; b < nb; nev += bl[b++].type == TLF_BLOCK_EVENTS)
			for (size_t off = bl[b].off; off < bl[b].end; off++) {
				if (!files[f] && (seed = seed * 1103515245 + 12345) % (len / 400 + 1))
					continue;
				check_flip(buf, len, &bl[b], off, (uint8_t)(1 << (off % 8)), nall, nev == 0);
				flips++;
			}
		CHECK(flips >= 300);
		/*
		 * A cut anywhere reads, never an error, exactly the events of the
		 * whole blocks before it, in the order of the whole file: a
		 * subsequence of its events, not always a prefix (a chunk's events
		 * after its watermark interleave with the next chunk's, which the
		 * cut took away).
		 */
		for (size_t cut = bl[0].end; cut < len; cut += 97) {
			struct tl_event *got = NULL, *whole = NULL;
			int n = read_seq(buf, cut, &got, &gaps), k = 0, nw, i, j;

			while (k + 1 < nb && bl[k + 1].end <= cut)
				k++;
			nw = read_seq(buf, bl[k].end, &whole, &gaps);
			CHECK(n >= 0 && n <= nall && n == nw);
			for (i = 0, j = 0; i < n && j < nall; j++)
				i += ev_equal(&got[i], &all[j]);
			if (i < n)
				fprintf(stderr, "  %s cut at %zu: event %d of %d is not in the whole file's order\n",
				        files[f] ? files[f] : "many", cut, i, n);
			CHECK(i == n);
			free(got);
			free(whole);
		}
		free(all);
		free(buf);
	}
}

/*
 * A damaged stack table (format 1.5) costs its stacks, not the events that
 * name them: they read as empty, the next table's ids stay right, and a
 * warning says so.
 */
TEST(damaged_stack_table)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("stkdmg.tl"), &info);
	struct blockinfo bl[32];
	uint64_t f[2] = { 0x401000, 0x402000 };
	struct tl_event e;
	size_t len;
	int nb, k = -1, n = 0;
	unsigned nf;
	uint8_t *buf;

	for (int c = 0; c < 2; c++) {
		for (int i = 0; i < 3; i++) {
			e = mk(100 * c + i, 0, TL_EV_SAMPLE, 7);
			f[1] = 0x402000 + (uint64_t)(10 * c + i);
			e.a = tl_trace_writer_stack(w, f, 2);
			tl_trace_writer_add(w, &e);
		}
		tl_trace_writer_flush(w, 100 * c + 99);
	}
	tl_trace_writer_close(w, NULL);
	buf = read_all(tmp_path("stkdmg.tl"), &len);
	nb = list_blocks(buf, len, bl, 32);
	for (int i = 0; i < nb && k < 0; i++)
		if (bl[i].type == TLF_BLOCK_STACKS)
			k = i;
	CHECK(k >= 0);
	if (k < 0)
		return;
	buf[bl[k].end - 1] ^= 0x10; /* the payload's last byte: a bad checksum */
	struct tl_trace *t = tl_trace_open_mem(buf, len);
	CHECK(t != NULL);
	while (t && tl_trace_next(t, &e) == 1) {
		CHECK_EQ_INT(e.type, TL_EV_SAMPLE);
		CHECK_EQ_INT(e.a, n + 1);
		tl_trace_stack(t, (uint32_t)e.a, &nf);
		CHECK_EQ_INT(nf, n < 3 ? 0 : 2); /* the first table's stacks are gone, the second's are not */
		n++;
	}
	CHECK_EQ_INT(n, 6);
	if (t) {
		const struct tl_trace_stats *st = tl_trace_stats(t);
		CHECK_EQ_INT(st->blocks_skipped, 1);
		CHECK(st->nwarnings >= 1 && strstr(st->warnings[0], "a stack table): it was skipped; the stacks it "
		                                                    "defined read as empty"));
		tl_trace_close(t);
	}
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
	RUN_TESTS(truncated_at_every_offset, flipped_byte_costs_one_block, corpus_flips_cost_one_block,
	          damaged_stack_table, not_a_trace, newer_major_rejected, newer_minor_accepted, empty_trace);
}
