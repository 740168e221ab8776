/*
 * trace_writer.c - writes .tl files (format: docs/FORMAT.md, trace_format.h).
 *
 * Events are encoded as they are added, into one growing byte buffer per
 * CPU (index cpu + 1, so cpu -1 is section 0); nothing is allocated per
 * event once the buffers have grown.  A flush writes the strings interned
 * since the last flush as a STRINGS block, then all non-empty sections as
 * one zstd-compressed EVENTS block carrying the watermark.
 *
 * Invariants: every string id that an EVENTS block can reference was
 * written in an earlier STRINGS block; raw_bytes is the sum of the section
 * buffers' lengths; a section's coding context (base ts, previous ts, cur
 * tid) restarts with every chunk, so each chunk decodes on its own.  After
 * the first write error the writer refuses further work.
 */
#include "trace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "trace/trace_tables.h"
#include "trace/trace_format.h"
#include "base/varint.h"

_Static_assert(sizeof(tlf_default_mask) == TL_EV__COUNT, "a new event type needs its default field mask");
_Static_assert(sizeof(tlf_prio_mask) == TL_EV__COUNT, "a new event type needs its priority mask");

struct section {
	uint8_t *buf;
	size_t len, cap;
	uint64_t nevents;
	uint64_t base_ts, last_ts;
	int32_t cur; /* tid predicted for the next event: last SWITCH's next */
};

struct tl_trace_writer {
	struct tl_rio rio;
	char *path;
	struct section *secs; /* index cpu + 1 */
	int nsecs;
	size_t raw_bytes;
	uint64_t watermark;
	uint64_t events, backwards;
	struct tl_strtab strings;
	uint32_t strings_written; /* ids below this are in the file */
	struct tl_stacktab stacks;
	uint32_t stacks_written; /* the same for stacks (format 1.5) */
	ZSTD_CCtx *cctx;
	int level; /* 0: chunks are stored uncompressed */
	uint8_t *raw;
	size_t raw_cap;
	uint8_t *z;
	size_t z_cap;
	uint64_t blocks;
	int failed;
};

static int write_error(struct tl_trace_writer *w)
{
	w->failed = 1;
	errno = w->rio.err ? w->rio.err : EIO;
	return tl_error_errno("cannot write '%s'", w->path);
}

/* Grow *buf to hold at least need bytes (amortised doubling). */
static int reserve(uint8_t **buf, size_t *cap, size_t need)
{
	return tl_grow(buf, cap, need, 1, 0);
}

static int write_block(struct tl_trace_writer *w, unsigned type, unsigned flags, const void *payload, size_t stored,
                       size_t raw)
{
	uint8_t h[TLF_BLOCK_HEADER_SIZE];

	h[0] = (uint8_t)type;
	h[1] = (uint8_t)flags;
	tl_put_le16(h + 2, 0);
	tl_put_le32(h + 4, (uint32_t)stored);
	tl_put_le32(h + 8, (uint32_t)raw);
	tl_put_le32(h + 12, tl_crc32c(tl_crc32c(0, h, 12), payload, stored));
	tl_put_le32(h + 16, tl_crc32c(0, h, 16));
	if (tl_rio_write(&w->rio, h, sizeof(h)) < 0 || tl_rio_write(&w->rio, payload, stored) < 0)
		return write_error(w);
	w->blocks++;
	return 0;
}

/* ---- META ---- */

static int put_bytes(uint8_t **buf, size_t *cap, size_t *len, const void *p, size_t n)
{
	if (reserve(buf, cap, *len + n + TL_VARINT_MAX) < 0)
		return -1;
	*len += tl_varint_put(*buf + *len, n);
	memcpy(*buf + *len, p, n);
	*len += n;
	return 0;
}

static int put_kv(uint8_t **buf, size_t *cap, size_t *len, const char *k, const char *v)
{
	size_t vl = strnlen(v, TLF_MAX_META_VALUE);
	if (put_bytes(buf, cap, len, k, strlen(k)) < 0)
		return -1;
	return put_bytes(buf, cap, len, v, vl);
}

static int put_kv_u64(uint8_t **buf, size_t *cap, size_t *len, const char *k, uint64_t v)
{
	char tmp[24];
	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	return put_kv(buf, cap, len, k, tmp);
}

static int put_kv_int(uint8_t **buf, size_t *cap, size_t *len, const char *k, int v)
{
	char tmp[16];
	snprintf(tmp, sizeof(tmp), "%d", v);
	return put_kv(buf, cap, len, k, tmp);
}

/* Strings in fixed-size info fields may lack a NUL; never read past them. */
#define FIELD(f) strnlen((f), sizeof(f)) < sizeof(f) ? (f) : ""

static int write_meta(struct tl_trace_writer *w, const struct tl_trace_info *info)
{
	uint8_t *b = NULL;
	size_t cap = 0, len = 0;
	char targets[TL_TRACE_MAX_TARGETS * 12 + 1] = "";
	size_t tl = 0;
	int n = info->ntargets < 0 ? 0 : info->ntargets > TL_TRACE_MAX_TARGETS ? TL_TRACE_MAX_TARGETS : info->ntargets;
	int ret;

	for (int i = 0; i < n; i++)
		tl += (size_t)snprintf(targets + tl, sizeof(targets) - tl, "%s%d", i ? "," : "", info->targets[i]);
	ret = put_kv(&b, &cap, &len, "clock", FIELD(info->clock));
	ret |= put_kv(&b, &cap, &len, "kernel", FIELD(info->kernel));
	ret |= put_kv(&b, &cap, &len, "hostname", FIELD(info->hostname));
	ret |= put_kv(&b, &cap, &len, "cpu_model", FIELD(info->cpu_model));
	ret |= put_kv(&b, &cap, &len, "source", FIELD(info->source));
	if (info->backend[0])
		ret |= put_kv(&b, &cap, &len, "backend", FIELD(info->backend));
	if (info->filter[0])
		ret |= put_kv(&b, &cap, &len, "filter", FIELD(info->filter));
	if (info->irq_vectors[0])
		ret |= put_kv(&b, &cap, &len, "irq_vectors", FIELD(info->irq_vectors));
	ret |= put_kv(&b, &cap, &len, "tool_version", FIELD(info->tool_version));
	ret |= put_kv(&b, &cap, &len, "command", FIELD(info->command));
	ret |= put_kv_int(&b, &cap, &len, "ncpus", info->ncpus);
	ret |= put_kv_int(&b, &cap, &len, "target_mode", info->target_mode);
	ret |= put_kv(&b, &cap, &len, "targets", targets);
	ret |= put_kv_u64(&b, &cap, &len, "start_ns", info->start_ns);
	ret |= put_kv_u64(&b, &cap, &len, "realtime_offset_ns", info->realtime_offset_ns);
	if (!ret)
		ret = write_block(w, TLF_BLOCK_META, 0, b, len, len);
	free(b);
	return ret ? -1 : 0;
}

/* ---- STRINGS ---- */

/* Write the strings interned since the last call, in blocks of <= 1 MiB. */
static int write_strings(struct tl_trace_writer *w)
{
	uint32_t next = tl_strtab_next_id(&w->strings);

	while (w->strings_written < next) {
		uint32_t first = w->strings_written, id;
		size_t len = 2 * TL_VARINT_MAX, count = 0;

		/* Size the block first so one buffer holds it. */
		for (id = first; id < next && len < TLF_CHUNK_LIMIT; id++, count++)
			len += TL_VARINT_MAX + tl_strtab_len(&w->strings, id);
		if (reserve(&w->raw, &w->raw_cap, len) < 0)
			return -1;
		len = tl_varint_put(w->raw, first);
		len += tl_varint_put(w->raw + len, count);
		for (id = first; id < first + count; id++) {
			size_t sl = tl_strtab_len(&w->strings, id);
			len += tl_varint_put(w->raw + len, sl);
			memcpy(w->raw + len, tl_strtab_get(&w->strings, id), sl);
			len += sl;
		}
		if (write_block(w, TLF_BLOCK_STRINGS, 0, w->raw, len, len) < 0)
			return -1;
		w->strings_written = first + (uint32_t)count;
	}
	return 0;
}

/* w->raw[0..len) as a block of `type`, zstd-compressed unless the level is 0. */
static int write_packed(struct tl_trace_writer *w, unsigned type, size_t len)
{
	size_t bound = ZSTD_compressBound(len), z;

	if (w->level == 0)
		return write_block(w, type, 0, w->raw, len, len);
	if (reserve(&w->z, &w->z_cap, bound) < 0)
		return -1;
	z = ZSTD_compress2(w->cctx, w->z, w->z_cap, w->raw, len);
	if (ZSTD_isError(z)) {
		w->failed = 1;
		return tl_error("cannot write '%s': zstd: %s", w->path, ZSTD_getErrorName(z));
	}
	return write_block(w, type, TLF_BF_ZSTD, w->z, z, len);
}

/* The stacks interned since the last flush (format 1.5), compressed, before the chunk that uses them. */
static int write_stacks(struct tl_trace_writer *w)
{
	uint32_t next = tl_stacktab_next_id(&w->stacks);

	while (w->stacks_written < next) {
		size_t len;
		uint32_t count = tl_stacks_encode(&w->stacks, w->stacks_written, &w->raw, &w->raw_cap, &len);

		if (!count || write_packed(w, TLF_BLOCK_STACKS, len) < 0)
			return -1;
		w->stacks_written += count;
	}
	return 0;
}

/* ---- EVENTS ---- */

static int write_chunk(struct tl_trace_writer *w)
{
	size_t need = 2 * TL_VARINT_MAX, len;
	unsigned nsec = 0;

	for (int i = 0; i < w->nsecs; i++) {
		if (w->secs[i].nevents) {
			need += 4 * TL_VARINT_MAX + w->secs[i].len;
			nsec++;
		}
	}
	if (reserve(&w->raw, &w->raw_cap, need) < 0)
		return -1;
	len = tl_varint_put(w->raw, w->watermark);
	len += tl_varint_put(w->raw + len, nsec);
	for (int i = 0; i < w->nsecs; i++) {
		struct section *s = &w->secs[i];
		if (!s->nevents)
			continue;
		len += tl_varint_put(w->raw + len, tl_zigzag_enc(i - 1));
		len += tl_varint_put(w->raw + len, s->nevents);
		len += tl_varint_put(w->raw + len, s->base_ts);
		len += tl_varint_put(w->raw + len, s->len);
		memcpy(w->raw + len, s->buf, s->len);
		len += s->len;
		s->len = 0;
		s->nevents = 0;
	}
	w->raw_bytes = 0;
	if (len > TLF_MAX_BLOCK)
		return tl_error("cannot write '%s': event chunk of %zu bytes is too large", w->path, len);
	return write_packed(w, TLF_BLOCK_EVENTS, len);
}

int tl_trace_writer_flush(struct tl_trace_writer *w, uint64_t watermark)
{
	if (w->failed)
		return tl_error("cannot write '%s': an earlier write failed", w->path);
	/* A lower watermark would take back an earlier promise; keep the higher. */
	if (watermark < w->watermark)
		watermark = w->watermark;
	if (!w->raw_bytes) {
		w->watermark = watermark;
		return 0;
	}
	if (write_strings(w) < 0 || write_stacks(w) < 0)
		return -1;
	/* The chunk carries the new promise: later chunks start at >= watermark. */
	w->watermark = watermark;
	if (write_chunk(w) < 0) {
		w->failed = 1;
		return -1;
	}
	/* Into the file now, not at the next 256 KiB: a killed recorder keeps every chunk flushed. */
	if (tl_rio_flush(&w->rio) < 0) {
		w->failed = 1;
		return tl_error("cannot write '%s': %s", w->path, strerror(w->rio.err ? w->rio.err : EIO));
	}
	return 0;
}

static struct section *grow_sections(struct tl_trace_writer *w, int idx)
{
	int n = w->nsecs ? w->nsecs : 4;
	struct section *s;

	while (n <= idx)
		n *= 2;
	if (n > TLF_MAX_CPUS + 1)
		n = TLF_MAX_CPUS + 1;
	s = realloc(w->secs, (size_t)n * sizeof(*s));
	if (!s) {
		tl_error("out of memory");
		return NULL;
	}
	memset(s + w->nsecs, 0, (size_t)(n - w->nsecs) * sizeof(*s));
	w->secs = s;
	w->nsecs = n;
	return &s[idx];
}

static inline uint8_t *put_zz(uint8_t *p, int64_t v)
{
	return p + tl_varint_put(p, tl_zigzag_enc(v));
}

/* v - bias with wrap-around, so that every int64_t round-trips. */
static inline int64_t unbias(int64_t v, unsigned field, unsigned prio)
{
	return (prio & field) ? (int64_t)((uint64_t)v - TLF_PRIO_BIAS) : v;
}

int tl_trace_writer_add(struct tl_trace_writer *w, const struct tl_event *ev)
{
	struct section *s;
	uint8_t *p, *start;
	unsigned type = ev->type, mask, have, b0;
	int idx = ev->cpu + 1;
	uint64_t delta;

	if (__builtin_expect(w->failed, 0))
		return tl_error("cannot write '%s': an earlier write failed", w->path);
	if (__builtin_expect(type >= TL_EV__COUNT, 0))
		return tl_error("cannot add an event of unknown type %u to '%s'", type, w->path);
	if (__builtin_expect(idx < 0 || idx > TLF_MAX_CPUS, 0))
		return tl_error("cannot add an event on cpu %d to '%s': cpus go from -1 to %d", ev->cpu, w->path,
		                TLF_MAX_CPUS - 1);
	s = idx < w->nsecs ? &w->secs[idx] : grow_sections(w, idx);
	if (!s)
		return -1;
	if (__builtin_expect(s->cap - s->len < TLF_EV_MAX_BYTES, 0) &&
	    reserve(&s->buf, &s->cap, s->len + TLF_EV_MAX_BYTES) < 0)
		return -1;
	if (!s->nevents) {
		s->base_ts = s->last_ts = ev->ts;
		s->cur = 0;
	}

	/* Fields the type does not use are stored only when set (explicit mask). */
	mask = tlf_default_mask[type];
	have = (ev->tid != 0) | (ev->arg != 0) << 1 | (ev->name != 0) << 2 | (ev->a != 0) << 3 | (ev->b != 0) << 4 |
	       (ev->c != 0) << 5 | (ev->lag_end != 0 || ev->lag != 0) << 6;
	b0 = type < TLF_EV_TYPE_ESCAPE ? type : TLF_EV_TYPE_ESCAPE; /* larger types follow as a varint */
	if ((have & ~mask) || type >= TLF_EV_FIRST_1_1) {
		mask |= have;
		b0 |= TLF_EV_HAS_MASK;
	}
	if (ev->flags)
		b0 |= TLF_EV_HAS_FLAGS;
	if (ev->ts >= s->last_ts) {
		delta = ev->ts - s->last_ts;
	} else {
		delta = s->last_ts - ev->ts;
		b0 |= TLF_EV_TS_NEG;
		w->backwards++;
	}

	p = start = s->buf + s->len;
	*p++ = (uint8_t)b0;
	if ((b0 & TLF_EV_TYPE_MASK) == TLF_EV_TYPE_ESCAPE)
		p += tl_varint_put(p, type);
	if (b0 & TLF_EV_HAS_MASK)
		*p++ = (uint8_t)mask;
	p += tl_varint_put(p, delta);
	if (b0 & TLF_EV_HAS_FLAGS)
		p += tl_varint_put(p, ev->flags);
	if (mask & TLF_F_TID)
		p = put_zz(p, (int64_t)ev->tid - s->cur);
	if (mask & TLF_F_ARG)
		p = put_zz(p, (int64_t)ev->arg - s->cur);
	if (mask & TLF_F_NAME)
		p += tl_varint_put(p, ev->name);
	if (mask & TLF_F_A)
		p = put_zz(p, ev->a);
	if (mask & TLF_F_B)
		p = put_zz(p, unbias(ev->b, TLF_F_B, tlf_prio_mask[type]));
	if (mask & TLF_F_C)
		p = put_zz(p, unbias(ev->c, TLF_F_C, tlf_prio_mask[type]));
	if (mask & TLF_F_RES) {
		p += tl_varint_put(p, ev->lag_end);
		p += tl_varint_put(p, ev->lag);
	}
	if (type == TL_EV_SWITCH)
		s->cur = ev->arg;
	s->last_ts = ev->ts;
	s->nevents++;
	s->len += (size_t)(p - start);
	w->raw_bytes += (size_t)(p - start);
	w->events++;
	if (__builtin_expect(w->raw_bytes >= TLF_CHUNK_LIMIT, 0))
		return tl_trace_writer_flush(w, w->watermark);
	return 0;
}

uint32_t tl_trace_writer_intern(struct tl_trace_writer *w, const char *s)
{
	if (!s || !*s)
		return 0;
	return tl_strtab_intern(&w->strings, s, strlen(s));
}

uint32_t tl_trace_writer_stack(struct tl_trace_writer *w, const uint64_t *ips, unsigned n)
{
	return tl_stacktab_intern(&w->stacks, ips, n);
}

const uint64_t *tl_trace_writer_stack_frames(const struct tl_trace_writer *w, uint32_t id, unsigned *n)
{
	return tl_stacktab_get(&w->stacks, id, n);
}

uint64_t tl_trace_writer_bytes(const struct tl_trace_writer *w)
{
	return w->rio.processed;
}

uint64_t tl_trace_writer_backwards(const struct tl_trace_writer *w)
{
	return w->backwards;
}

int tl_trace_writer_set_level(struct tl_trace_writer *w, int level)
{
	if (level < 0 || level > ZSTD_maxCLevel())
		return tl_error("zstd level %d is out of range (0 to %d)", level, ZSTD_maxCLevel());
	if (level && ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level)))
		return tl_error("zstd level %d is not supported", level);
	w->level = level;
	return 0;
}

static void writer_free(struct tl_trace_writer *w)
{
	for (int i = 0; i < w->nsecs; i++)
		free(w->secs[i].buf);
	free(w->secs);
	tl_strtab_release(&w->strings);
	tl_stacktab_release(&w->stacks);
	ZSTD_freeCCtx(w->cctx);
	free(w->raw);
	free(w->z);
	free(w->path);
	free(w);
}

struct tl_trace_writer *tl_trace_writer_create(const char *path, const struct tl_trace_info *info)
{
	struct tl_trace_writer *w = calloc(1, sizeof(*w));
	uint8_t h[TLF_HEADER_SIZE] = { 0 };
	int fd;

	if (!w || !(w->path = strdup(path))) {
		free(w);
		tl_error("out of memory");
		return NULL;
	}
	tl_strtab_init(&w->strings);
	w->strings_written = 1;
	tl_stacktab_init(&w->stacks);
	w->stacks_written = 1;
	w->level = TLF_ZSTD_LEVEL;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx || ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level))) {
		tl_error("cannot set up zstd compression");
		goto fail;
	}
	if (!strcmp(path, "-")) {
		fd = 1;
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0) {
			tl_error_errno("cannot create '%s'", path);
			goto fail;
		}
	}
	if (tl_rio_init_fd_writer(&w->rio, fd, fd != 1) < 0) {
		if (fd != 1)
			close(fd);
		goto fail;
	}

	memcpy(h, TLF_MAGIC, TLF_MAGIC_LEN);
	tl_put_le16(h + 8, TLF_MAJOR);
	tl_put_le16(h + 10, TLF_MINOR);
	tl_put_le32(h + 12, TLF_HEADER_SIZE);
	tl_put_le32(h + 28, tl_crc32c(0, h, 28));
	if (tl_rio_write(&w->rio, h, sizeof(h)) < 0) {
		write_error(w);
		goto fail_rio;
	}
	if (write_meta(w, info) < 0 || tl_rio_flush(&w->rio) < 0) {
		if (!w->failed)
			write_error(w);
		goto fail_rio;
	}
	return w;

fail_rio:
	tl_rio_release(&w->rio);
fail:
	writer_free(w);
	return NULL;
}

static int write_end(struct tl_trace_writer *w, const struct tl_trace_end *end)
{
	int ncpus = end->ncpus < 0 ? 0 : end->ncpus > TLF_MAX_CPUS ? TLF_MAX_CPUS : end->ncpus;
	size_t len;

	if (reserve(&w->raw, &w->raw_cap, (size_t)(4 + ncpus) * TL_VARINT_MAX) < 0)
		return -1;
	len = tl_varint_put(w->raw, end->end_ns);
	len += tl_varint_put(w->raw + len, end->events);
	len += tl_varint_put(w->raw + len, end->lost);
	len += tl_varint_put(w->raw + len, (uint64_t)ncpus);
	for (int i = 0; i < ncpus; i++)
		len += tl_varint_put(w->raw + len, end->lost_per_cpu ? end->lost_per_cpu[i] : 0);
	return write_block(w, TLF_BLOCK_END, 0, w->raw, len, len);
}

int tl_trace_writer_close(struct tl_trace_writer *w, const struct tl_trace_end *end)
{
	int ret = 0;

	if (!w)
		return 0;
	if (w->failed)
		ret = tl_error("cannot write '%s': an earlier write failed", w->path);
	if (!ret)
		ret = tl_trace_writer_flush(w, w->watermark);
	if (!ret)
		ret = write_strings(w);
	if (!ret)
		ret = write_stacks(w);
	if (!ret && end)
		ret = write_end(w, end);
	if (!ret && tl_rio_flush(&w->rio) < 0)
		ret = write_error(w);
	if (tl_rio_release(&w->rio) < 0 && !ret) {
		errno = w->rio.err;
		ret = tl_error_errno("cannot close '%s'", w->path);
	}
	writer_free(w);
	return ret;
}

void tl_trace_writer_abort(struct tl_trace_writer *w)
{
	if (!w)
		return;
	tl_rio_flush(&w->rio);
	tl_rio_release(&w->rio);
	writer_free(w);
}
