/*
 * trace_reader.c - streaming reader of .tl files (format: docs/FORMAT.md).
 *
 * Blocks are read strictly in sequence, so pipes work.  This file handles
 * the file header, block headers and checksums, decompression, metadata,
 * strings and the END block; each EVENTS payload goes to the merge
 * (trace_merge.c), which returns events in (ts, cpu, file order) while
 * they are below the watermark.  When the merge wants more, the next block
 * is read; at END, EOF or damage the merge drains.  An event below one
 * already returned is counted as late.
 *
 * Robustness: every length is checked against limits and the input before
 * it is used, every block against its checksums, every chunk's layout
 * before it is queued.  A damaged block costs that block: if its header
 * holds (hcrc), the next block follows its stored payload; if not, the
 * reader slides a byte at a time until 20 bytes make a header whose hcrc
 * holds (resync).  The merge then puts a LOST (TL_EVF_DAMAGE) before each
 * CPU's next events, and one warning names the block, the bytes and the
 * time range skipped.  A malformed event inside a chunk whose checksum
 * held (a broken or forged writer, not damage) still ends the trace.
 */
#include "trace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "base/crc32c.h"
#include "base/errors.h"
#include "base/grow.h"
#include "trace/rio.h"
#include "base/stacktab.h"
#include "base/strtab.h"
#include "trace/trace_format.h"
#include "trace/trace_merge.h"
#include "trace/trace_tables.h"
#include "base/varint.h"

#define META_MAX_KEY 256

enum blk_status { BLK_OK, BLK_EOF, BLK_TRUNC, BLK_DAMAGED, BLK_IOERR };

struct tl_trace {
	struct tl_rio rio;
	char *name;
	struct tl_trace_info info;
	struct tl_trace_stats stats;
	struct tl_strtab strings;
	ZSTD_DCtx *dctx;
	uint8_t *zbuf;
	size_t zcap;
	uint8_t *raw;
	size_t rawcap;

	struct tl_merge merge;
	uint64_t last_ts; /* highest ts returned */
	uint64_t nblocks; /* good blocks read (META is block 0) */
	int at_end;
	int finalized;
	uint64_t lost_per_cpu[TLF_MAX_CPUS];

	/* the current block, between read_block() and its handling */
	uint64_t blk_off;
	unsigned blk_type;
	const char *blk_why; /* what is wrong with it */
	uint64_t blk_partial;
	int hdr_bad; /* its header cannot be trusted: resync */

	/* damage skipped: a header found by resync, for the next read_block() */
	uint8_t next_hdr[TLF_BLOCK_HEADER_SIZE];
	int have_next_hdr;
	int strings_gap; /* a skipped block may have defined strings: ids may jump */
	int stacks_gap;  /* the same for stacks (format 1.5) */
	struct tl_stacktab stacks;
	struct {
		int pending; /* skipped blocks not yet reported (waiting for the next chunk's time) */
		uint64_t off, block, nblocks, bytes, from_ns;
		const char *why;
	} gap;
	uint64_t gaps_reported;
};

/* ---- messages ---- */

static void warn(struct tl_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct tl_trace *t, const char *fmt, ...)
{
	va_list ap;
	if (t->stats.nwarnings >= TL_TRACE_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(t->stats.warnings[t->stats.nwarnings++], sizeof(t->stats.warnings[0]), fmt, ap);
	va_end(ap);
}

static void human_size(char *buf, size_t len, uint64_t n)
{
	if (n < 1000)
		snprintf(buf, len, "%" PRIu64 " bytes", n);
	else if (n < 1000000)
		snprintf(buf, len, "%.1f KB", n / 1e3);
	else if (n < 1000000000)
		snprintf(buf, len, "%.1f MB", n / 1e6);
	else
		snprintf(buf, len, "%.1f GB", n / 1e9);
}

/* The input failed (rio.err): one message naming the trace; returns -1. */
static int read_failed(struct tl_trace *t)
{
	errno = t->rio.err;
	return tl_error_errno("cannot read '%s'", t->name);
}

/* The trace stops at the current block, which is damaged (the end block, or nothing good after it). */
static void stop_damaged(struct tl_trace *t)
{
	uint64_t size = t->rio.size, off = t->blk_off;

	t->at_end = 1;
	if (size && size > off) {
		char hs[32];
		t->stats.bytes_skipped += size - off;
		human_size(hs, sizeof(hs), size - off);
		warn(t,
		     "trace '%s' is damaged at offset %" PRIu64 " (%s in block %" PRIu64
		     "): %s (%d%%) after it were not read",
		     t->name, off, t->blk_why, t->nblocks, hs, (int)((size - off) * 100 / size));
	} else {
		warn(t,
		     "trace '%s' is damaged at offset %" PRIu64 " (%s in block %" PRIu64
		     "): the rest of the input was not read",
		     t->name, off, t->blk_why, t->nblocks);
	}
}

static double rel_s(const struct tl_trace *t, uint64_t ns)
{
	return ns > t->info.start_ns ? (ns - t->info.start_ns) / 1e9 : 0.0;
}

/* Say what the pending gap cost, now that the time after it (to_ns) is known, or the trace ended (0). */
static void report_gap(struct tl_trace *t, uint64_t to_ns)
{
	char hs[32], blocks[48] = "";

	if (!t->gap.pending)
		return;
	t->gap.pending = 0;
	human_size(hs, sizeof(hs), t->gap.bytes);
	if (t->gap.nblocks > 1)
		snprintf(blocks, sizeof(blocks), ", and %" PRIu64 " more blocks after it", t->gap.nblocks - 1);
	/* Keep two warning slots for what may come at the end. */
	if (++t->gaps_reported > TL_TRACE_MAX_WARNINGS - 2)
		return;
	if (to_ns)
		warn(t,
		     "trace '%s' is damaged at offset %" PRIu64 " (%s in block %" PRIu64 "%s): %s skipped; "
		     "events from %.6f s to %.6f s are missing and the states there are unknown",
		     t->name, t->gap.off, t->gap.why, t->gap.block, blocks, hs, rel_s(t, t->gap.from_ns),
		     rel_s(t, to_ns));
	else
		warn(t,
		     "trace '%s' is damaged at offset %" PRIu64 " (%s in block %" PRIu64 "%s): %s skipped; "
		     "events after %.6f s are missing",
		     t->name, t->gap.off, t->gap.why, t->gap.block, blocks, hs, rel_s(t, t->gap.from_ns));
}

static void stop_truncated(struct tl_trace *t)
{
	t->at_end = 1;
	t->stats.bytes_skipped = t->blk_partial;
	warn(t,
	     "trace '%s' is truncated at offset %" PRIu64 ": recording was interrupted; the last %" PRIu64
	     " bytes are incomplete",
	     t->name, t->blk_off + t->blk_partial, t->blk_partial);
}

/* ---- blocks ---- */

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	return tl_grow(buf, cap, need, 1, 0);
}

static enum blk_status damaged(struct tl_trace *t, const char *why)
{
	t->blk_why = why;
	return BLK_DAMAGED;
}

/* What is wrong with a block header at offset off, or NULL if it can be trusted. */
static const char *header_fault(const uint8_t *h)
{
	uint32_t stored = tl_get_le32(h + 4), raw = tl_get_le32(h + 8);

	if (tl_get_le32(h + 16) != tl_crc32c(0, h, 16))
		return "bad header checksum";
	if (h[1] & ~TLF_BF_KNOWN)
		return "unsupported block flags";
	if (stored > TLF_MAX_BLOCK || raw > TLF_MAX_BLOCK || (!(h[1] & TLF_BF_ZSTD) && stored != raw))
		return "impossible length";
	return NULL;
}

/*
 * After a header that cannot be trusted (t->next_hdr holds it), slide a byte
 * at a time until the last 20 bytes read make a plausible header: its hcrc
 * holds, its type is known and its payload fits the file.  Returns 1 with
 * have_next_hdr set, 0 at the end of the input, -1 on a read error.
 */
static int resync(struct tl_trace *t)
{
	uint8_t *h = t->next_hdr;

	for (;;) {
		memmove(h, h + 1, TLF_BLOCK_HEADER_SIZE - 1);
		if (tl_rio_read(&t->rio, h + TLF_BLOCK_HEADER_SIZE - 1, 1) != 1)
			return t->rio.err ? -1 : 0;
		uint64_t off = t->rio.processed - TLF_BLOCK_HEADER_SIZE;
		if (h[0] < TLF_BLOCK_META || h[0] > TLF_BLOCK_STACKS || header_fault(h))
			continue;
		if (t->rio.size && off + TLF_BLOCK_HEADER_SIZE + tl_get_le32(h + 4) > t->rio.size)
			continue;
		t->have_next_hdr = 1;
		return 1;
	}
}

/*
 * Read the next block.  On BLK_OK, *payload and *len hold its raw
 * (decompressed) payload; for EVENTS blocks it is a fresh malloc() owned by the caller, for
 * others it points into a reused buffer.  On BLK_DAMAGED with hdr_bad,
 * next_hdr holds the header that failed.
 */
static enum blk_status read_block(struct tl_trace *t, uint8_t **payload, size_t *len)
{
	uint8_t h[TLF_BLOCK_HEADER_SIZE];
	uint32_t stored, raw, crc;
	unsigned flags;
	uint8_t *dst = NULL, *src;
	const char *fault;
	size_t n;

	t->hdr_bad = 0;
	if (t->have_next_hdr) {
		/* found by resync(): already read */
		t->have_next_hdr = 0;
		memcpy(h, t->next_hdr, sizeof(h));
		t->blk_off = t->rio.processed - sizeof(h);
	} else {
		t->blk_off = t->rio.processed;
		n = tl_rio_read(&t->rio, h, sizeof(h));
		if (t->rio.err)
			return BLK_IOERR;
		if (n == 0)
			return BLK_EOF;
		if (n < sizeof(h)) {
			t->blk_partial = n;
			return BLK_TRUNC;
		}
	}
	if ((fault = header_fault(h))) {
		t->hdr_bad = 1;
		memcpy(t->next_hdr, h, sizeof(h));
		return damaged(t, fault);
	}
	t->blk_type = h[0];
	flags = h[1];
	stored = tl_get_le32(h + 4);
	raw = tl_get_le32(h + 8);
	if (t->rio.size && t->blk_off + sizeof(h) + stored > t->rio.size) {
		t->blk_partial = t->rio.size - t->blk_off;
		return BLK_TRUNC;
	}

	/* Events get their own buffer (a chunk lives on); the rest is scratch. */
	if (t->blk_type == TLF_BLOCK_EVENTS) {
		dst = malloc(raw ? raw : 1);
		if (!dst)
			return tl_error("out of memory"), BLK_IOERR;
	} else if (grow(&t->raw, &t->rawcap, (size_t)raw + 1) < 0) {
		return BLK_IOERR;
	}
	if (flags & TLF_BF_ZSTD) {
		if (grow(&t->zbuf, &t->zcap, (size_t)stored + 1) < 0)
			goto ioerr;
		src = t->zbuf;
	} else {
		src = dst ? dst : t->raw;
	}
	tl_rio_crc_begin(&t->rio, tl_crc32c(0, h, 12));
	n = tl_rio_read(&t->rio, src, stored);
	crc = tl_rio_crc_end(&t->rio);
	if (t->rio.err)
		goto ioerr;
	if (n < stored) {
		free(dst);
		t->blk_partial = sizeof(h) + n;
		return BLK_TRUNC;
	}
	if (crc != tl_get_le32(h + 12)) {
		free(dst);
		return damaged(t, "bad checksum");
	}
	if (flags & TLF_BF_ZSTD) {
		size_t r = ZSTD_decompressDCtx(t->dctx, dst ? dst : t->raw, raw, src, stored);
		if (ZSTD_isError(r) || r != raw) {
			free(dst);
			return damaged(t, "bad compressed data");
		}
	}
	*payload = dst ? dst : t->raw;
	*len = raw;
	return BLK_OK;

ioerr:
	free(dst);
	return BLK_IOERR;
}

/* ---- META ---- */

static void set_str(char *dst, size_t cap, const uint8_t *v, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, v, len);
	dst[len] = 0;
}

static uint64_t parse_u64(const uint8_t *v, size_t len)
{
	uint64_t r = 0;
	for (size_t i = 0; i < len && v[i] >= '0' && v[i] <= '9'; i++)
		r = r * 10 + (v[i] - '0');
	return r;
}

static int parse_int(const uint8_t *v, size_t len)
{
	int neg = len && v[0] == '-';
	uint64_t r = parse_u64(v + neg, len - neg);
	if (r > 0x7fffffff)
		r = 0x7fffffff;
	return neg ? -(int)r : (int)r;
}

static void parse_targets(struct tl_trace_info *info, const uint8_t *v, size_t len)
{
	size_t i = 0;
	info->ntargets = 0;
	while (i < len && info->ntargets < TL_TRACE_MAX_TARGETS) {
		size_t j = i;
		while (j < len && v[j] != ',')
			j++;
		if (j > i)
			info->targets[info->ntargets++] = parse_int(v + i, j - i);
		i = j + 1;
	}
}

static int parse_meta(struct tl_trace *t, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	struct tl_trace_info *info = &t->info;

	while (p < end) {
		uint64_t kl, vl;
		const uint8_t *k, *v;
		char key[META_MAX_KEY + 1];

		if (tl_varint_get(&p, end, &kl) < 0 || kl > META_MAX_KEY || kl > (uint64_t)(end - p))
			return -1;
		k = p;
		p += kl;
		if (tl_varint_get(&p, end, &vl) < 0 || vl > TLF_MAX_META_VALUE || vl > (uint64_t)(end - p))
			return -1;
		v = p;
		p += vl;
		set_str(key, sizeof(key), k, kl);
		/* Unknown keys belong to newer writers: ignored. */
		if (!strcmp(key, "clock"))
			set_str(info->clock, sizeof(info->clock), v, vl);
		else if (!strcmp(key, "kernel"))
			set_str(info->kernel, sizeof(info->kernel), v, vl);
		else if (!strcmp(key, "hostname"))
			set_str(info->hostname, sizeof(info->hostname), v, vl);
		else if (!strcmp(key, "cpu_model"))
			set_str(info->cpu_model, sizeof(info->cpu_model), v, vl);
		else if (!strcmp(key, "source"))
			set_str(info->source, sizeof(info->source), v, vl);
		else if (!strcmp(key, "backend"))
			set_str(info->backend, sizeof(info->backend), v, vl);
		else if (!strcmp(key, "filter"))
			set_str(info->filter, sizeof(info->filter), v, vl);
		else if (!strcmp(key, "irq_vectors"))
			set_str(info->irq_vectors, sizeof(info->irq_vectors), v, vl);
		else if (!strcmp(key, "tool_version"))
			set_str(info->tool_version, sizeof(info->tool_version), v, vl);
		else if (!strcmp(key, "command"))
			set_str(info->command, sizeof(info->command), v, vl);
		else if (!strcmp(key, "ncpus"))
			info->ncpus = parse_int(v, vl);
		else if (!strcmp(key, "target_mode"))
			info->target_mode = parse_int(v, vl);
		else if (!strcmp(key, "targets"))
			parse_targets(info, v, vl);
		else if (!strcmp(key, "start_ns"))
			info->start_ns = parse_u64(v, vl);
		else if (!strcmp(key, "realtime_offset_ns"))
			info->realtime_offset_ns = parse_u64(v, vl);
	}
	return 0;
}

/* ---- END ---- */

static int parse_end(struct tl_trace *t, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	struct tl_trace_end *e = &t->stats.end;
	uint64_t ncpus;

	if (tl_varint_get(&p, end, &e->end_ns) < 0 || tl_varint_get(&p, end, &e->events) < 0 ||
	    tl_varint_get(&p, end, &e->lost) < 0 || tl_varint_get(&p, end, &ncpus) < 0 || ncpus > TLF_MAX_CPUS)
		return -1;
	for (uint64_t i = 0; i < ncpus; i++)
		if (tl_varint_get(&p, end, &t->lost_per_cpu[i]) < 0)
			return -1;
	e->ncpus = (int)ncpus;
	e->lost_per_cpu = t->lost_per_cpu;
	return 0;
}

/* ---- events ---- */

/* ---- the iterator ---- */

/*
 * The current block is damaged: skip it (to the end of its payload, or by
 * resync() when its header is bad) and note the gap for report_gap().
 * Returns 0, or -1 on a read error.
 */
static int skip_damaged(struct tl_trace *t)
{
	uint64_t off = t->blk_off, block = t->nblocks, end;
	int events = t->hdr_bad || t->blk_type == TLF_BLOCK_EVENTS, r;

	if (!t->hdr_bad && t->blk_type == TLF_BLOCK_END) {
		stop_damaged(t); /* the last block: nothing after it to skip to */
		return 0;
	}
	r = t->hdr_bad ? resync(t) : 1;

	if (r < 0)
		return read_failed(t);
	if (r == 0) {
		/* no good block after it: like damage at the end */
		stop_damaged(t);
		return 0;
	}
	end = t->have_next_hdr ? t->rio.processed - TLF_BLOCK_HEADER_SIZE : t->rio.processed;
	t->stats.bytes_skipped += end - off;
	t->stats.blocks_skipped++;
	if (t->hdr_bad || t->blk_type == TLF_BLOCK_STRINGS)
		t->strings_gap = 1;
	if (t->hdr_bad || t->blk_type == TLF_BLOCK_STACKS)
		t->stacks_gap = 1;
	if (!events) {
		/* a string table, or a block a newer writer added: no events lost */
		warn(t, "trace '%s' is damaged at offset %" PRIu64 " (%s in block %" PRIu64 ", a %s): it was skipped%s",
		     t->name, off, t->blk_why, block,
		     t->blk_type == TLF_BLOCK_STRINGS  ? "string table"
		     : t->blk_type == TLF_BLOCK_STACKS ? "stack table"
		                                       : "block of no events",
		     t->blk_type == TLF_BLOCK_STRINGS  ? "; the names it defined read as \"\""
		     : t->blk_type == TLF_BLOCK_STACKS ? "; the stacks it defined read as empty"
		                                       : "");
		t->nblocks++;
		return 0;
	}
	tl_merge_gap(&t->merge);
	if (!t->gap.pending) {
		t->gap.pending = 1;
		t->gap.off = off;
		t->gap.block = block;
		t->gap.why = t->blk_why;
		t->gap.nblocks = 0;
		t->gap.bytes = 0;
		t->gap.from_ns = t->merge.watermark;
	}
	t->gap.nblocks++;
	t->gap.bytes += end - off;
	t->nblocks++;
	return 0;
}

/* Read one block and act on it; sets at_end when the trace is over. */
static int next_block(struct tl_trace *t)
{
	uint8_t *payload = NULL;
	size_t len = 0;
	int r;

	switch (read_block(t, &payload, &len)) {
	case BLK_OK: break;
	case BLK_EOF:
		t->at_end = 1;
		warn(t, "trace '%s' has no end block: the recording did not finish cleanly", t->name);
		return 0;
	case BLK_TRUNC: stop_truncated(t); return 0;
	case BLK_DAMAGED: return skip_damaged(t);
	case BLK_IOERR:
		if (t->rio.err)
			return read_failed(t);
		return -1;
	}

	switch (t->blk_type) {
	case TLF_BLOCK_STRINGS:
		if (tl_strings_parse(&t->strings, payload, len, t->strings_gap, t->stats.bytes_skipped) < 0)
			return t->blk_why = "malformed string table", skip_damaged(t);
		break;
	case TLF_BLOCK_STACKS:
		if (tl_stacks_parse(&t->stacks, payload, len, t->stacks_gap, t->stats.bytes_skipped) < 0)
			return t->blk_why = "malformed stack table", skip_damaged(t);
		break;
	case TLF_BLOCK_EVENTS:
		/* after a skipped string table, ids past the known ones read as "" */
		r = tl_merge_add_chunk(&t->merge, payload, len,
		                       t->strings_gap ? UINT32_MAX : tl_strtab_next_id(&t->strings), t->nblocks,
		                       t->blk_off); /* takes payload */
		if (r == -2)
			return tl_error("out of memory");
		if (r < 0)
			return t->blk_why = "malformed event chunk", skip_damaged(t);
		t->stats.chunks++;
		report_gap(t, t->merge.last_first_ts);
		break;
	case TLF_BLOCK_END:
		if (parse_end(t, payload, len) < 0)
			return t->blk_why = "malformed end block", stop_damaged(t), 0;
		t->stats.complete = 1;
		t->at_end = 1;
		if (t->rio.size > t->rio.processed)
			warn(t, "trace '%s' has %" PRIu64 " bytes after its end block; they were ignored", t->name,
			     t->rio.size - t->rio.processed);
		break;
	default:
		/* META again, or a block type of a newer minor version: skipped. */
		break;
	}
	t->nblocks++;
	t->stats.bytes_read = t->rio.processed;
	return 0;
}

static void finalize(struct tl_trace *t)
{
	if (t->finalized)
		return;
	t->finalized = 1;
	report_gap(t, 0);
	if (t->gaps_reported > TL_TRACE_MAX_WARNINGS - 2)
		warn(t, "trace '%s' has %" PRIu64 " damaged blocks in all (%" PRIu64 " bytes); they were skipped",
		     t->name, t->stats.blocks_skipped, t->stats.bytes_skipped);
	if (t->merge.unknown_events)
		warn(t, "trace '%s' has %" PRIu64 " events of types this threadlens does not know; they were skipped",
		     t->name, t->merge.unknown_events);
	if (t->stats.late_events)
		warn(t,
		     "trace '%s' has %" PRIu64
		     " events out of time order (behind events already read): they were applied late",
		     t->name, t->stats.late_events);
}

int tl_trace_next(struct tl_trace *t, struct tl_event *ev)
{
	for (;;) {
		int r = tl_merge_next(&t->merge, t->at_end, ev);

		if (r < 0 && !t->finalized) {
			/* a malformed event inside a chunk whose checksum was good */
			t->blk_why = "malformed event chunk";
			t->blk_off = t->merge.damage_offset;
			t->nblocks = t->merge.damage_block;
			stop_damaged(t);
			tl_merge_drop(&t->merge);
			finalize(t);
		}
		if (r < 0)
			return 0;
		if (r) {
			if (ev->ts < t->last_ts)
				t->stats.late_events++;
			else
				t->last_ts = ev->ts;
			t->stats.events++;
			return 1;
		}
		if (t->at_end) {
			finalize(t);
			return 0;
		}
		if (next_block(t) < 0)
			return -1;
	}
}

/* ---- opening ---- */

static struct tl_trace *reader_new(const char *name)
{
	struct tl_trace *t = calloc(1, sizeof(*t));

	if (!t || !(t->name = strdup(name)) || !(t->dctx = ZSTD_createDCtx())) {
		if (t)
			free(t->name);
		free(t);
		tl_error("out of memory");
		return NULL;
	}
	tl_strtab_init(&t->strings);
	tl_stacktab_init(&t->stacks);
	tl_merge_init(&t->merge);
	return t;
}

/* Read the file header and the META block; on failure set tl_error. */
static int read_start(struct tl_trace *t)
{
	uint8_t h[TLF_HEADER_SIZE];
	size_t n = tl_rio_read(&t->rio, h, sizeof(h)), cmp = n < TLF_MAGIC_LEN ? n : TLF_MAGIC_LEN;
	unsigned major, minor;
	uint32_t hlen;
	uint8_t *payload = NULL;
	size_t len = 0;

	if (t->rio.err)
		return read_failed(t);
	if (n == 0)
		return tl_error("cannot read '%s': not a threadlens trace (the file is empty)", t->name);
	if (memcmp(h, TLF_MAGIC, cmp))
		return tl_error("cannot read '%s': not a threadlens trace (bad magic at offset 0)", t->name);
	if (n < sizeof(h))
		return tl_error("cannot read '%s': truncated at offset %zu, inside the file header", t->name, n);
	if (tl_get_le32(h + 28) != tl_crc32c(0, h, 28))
		return tl_error("cannot read '%s': damaged file header (bad checksum at offset 28)", t->name);
	major = tl_get_le16(h + 8);
	minor = tl_get_le16(h + 10);
	hlen = tl_get_le32(h + 12);
	if (major > TLF_MAJOR)
		return tl_error("cannot read '%s': trace format %u.%u is newer than this threadlens can read (%d.x); a "
		                "newer threadlens is needed",
		                t->name, major, minor, TLF_MAJOR);
	if (major < 1 || hlen < TLF_HEADER_SIZE || hlen > TLF_HEADER_MAX)
		return tl_error("cannot read '%s': damaged file header (format %u.%u, header length %u)", t->name,
		                major, minor, hlen);
	/* A newer minor may have a longer header: skip what we do not know. */
	if (tl_rio_skip(&t->rio, hlen - TLF_HEADER_SIZE) < hlen - TLF_HEADER_SIZE)
		return tl_error("cannot read '%s': truncated at offset %" PRIu64 ", inside the file header", t->name,
		                t->rio.processed);

	switch (read_block(t, &payload, &len)) {
	case BLK_OK: break;
	case BLK_EOF:
	case BLK_TRUNC:
		return tl_error("cannot read '%s': truncated at offset %" PRIu64
		                ", before the end of the metadata block",
		                t->name, t->rio.processed);
	case BLK_DAMAGED:
		return tl_error("cannot read '%s': damaged metadata block at offset %" PRIu64 " (%s)", t->name,
		                t->blk_off, t->blk_why);
	case BLK_IOERR:
		if (t->rio.err)
			return read_failed(t);
		return -1;
	}
	if (t->blk_type != TLF_BLOCK_META) {
		if (t->blk_type == TLF_BLOCK_EVENTS)
			free(payload);
		return tl_error("cannot read '%s': damaged trace (block at offset %" PRIu64
		                " should be metadata, is type %u)",
		                t->name, t->blk_off, t->blk_type);
	}
	if (parse_meta(t, payload, len) < 0)
		return tl_error("cannot read '%s': damaged metadata block at offset %" PRIu64
		                " (malformed key/value list)",
		                t->name, t->blk_off);
	t->nblocks = 1;
	t->stats.file_bytes = t->rio.size;
	t->stats.bytes_read = t->rio.processed;
	return 0;
}

struct tl_trace *tl_trace_open(const char *path)
{
	struct tl_trace *t;
	int fd;

	if (!strcmp(path, "-")) {
		fd = 0;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			tl_error_errno("cannot open '%s'", path);
			return NULL;
		}
	}
	t = reader_new(path);
	if (!t || tl_rio_init_fd_reader(&t->rio, fd, fd != 0) < 0) {
		if (fd != 0)
			close(fd);
		if (t) {
			t->rio.read = NULL;
			tl_trace_close(t);
		}
		return NULL;
	}
	if (read_start(t) < 0) {
		tl_trace_close(t);
		return NULL;
	}
	return t;
}

struct tl_trace *tl_trace_open_mem(const void *buf, size_t len)
{
	struct tl_trace *t = reader_new("<memory>");

	if (!t)
		return NULL;
	tl_rio_init_mem_reader(&t->rio, buf, len);
	if (read_start(t) < 0) {
		tl_trace_close(t);
		return NULL;
	}
	return t;
}

const struct tl_trace_info *tl_trace_info(const struct tl_trace *t)
{
	return &t->info;
}

const char *tl_trace_string(const struct tl_trace *t, uint32_t id)
{
	return tl_strtab_get(&t->strings, id);
}

const uint64_t *tl_trace_stack(const struct tl_trace *t, uint32_t id, unsigned *n)
{
	return tl_stacktab_get(&t->stacks, id, n);
}

const struct tl_trace_stats *tl_trace_stats(const struct tl_trace *t)
{
	return &t->stats;
}

void tl_trace_memstats(const struct tl_trace *t, struct tl_trace_memstats *out)
{
	*out = t->merge.mem;
}

void tl_trace_close(struct tl_trace *t)
{
	if (!t)
		return;
	tl_merge_release(&t->merge);
	if (t->rio.read)
		tl_rio_release(&t->rio);
	tl_strtab_release(&t->strings);
	tl_stacktab_release(&t->stacks);
	ZSTD_freeDCtx(t->dctx);
	free(t->zbuf);
	free(t->raw);
	free(t->name);
	free(t);
}
