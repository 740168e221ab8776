/*
 * trace_merge.c - decoding event chunks and merging the per-CPU streams
 * (see trace_merge.h; the coding is in docs/FORMAT.md).
 *
 * A chunk is one malloc()ed buffer of raw section bytes plus an array of
 * section cursors.  Every section with events sits in the FIFO of its CPU's
 * stream; a stream's head event is decoded lazily and the streams with a
 * head sit in a binary heap keyed by (ts, cpu).  Invariants: a stream is in
 * the heap iff its FIFO is non-empty; a chunk's refs count its sections
 * still in some FIFO, and the chunk is freed when it reaches zero;
 * mem.queued_events counts the events of held chunks not yet returned.
 * Events are decoded once, when they become a stream's head: a chunk's
 * checksum has already been verified, so malformed bytes there come from a
 * broken or forged writer, and the merge then stops (tl_merge_next() returns
 * -1 and tl_merge_damage() says where): the events returned before it are
 * good, nothing after it is returned.
 */
#include "trace/trace_merge.h"

#include <stdlib.h>
#include <string.h>

#include "trace/trace_format.h"
#include "base/grow.h"
#include "base/varint.h"

struct chunk {
	uint32_t refs; /* sections with events not yet returned */
	size_t len;
	uint8_t *data;
	struct section *secs;
	uint32_t nstrings; /* string ids in this chunk are below this */
	uint64_t block;    /* where the chunk came from, for the damage report */
	uint64_t offset;
};

struct section {
	struct chunk *ck;
	struct section *next; /* the stream's FIFO */
	const uint8_t *p, *end;
	uint64_t left; /* events not yet decoded */
	uint64_t ts;   /* ts of the previous event */
	int32_t cur;
	int16_t cpu;
	uint8_t gap; /* a damaged block was skipped before it: a LOST comes first */
};

struct tl_merge_stream {
	int cpu;
	unsigned heap_pos;
	int in_heap;
	int gap; /* the next section queued gets the gap's LOST */
	struct section *head, *tail;
	struct tl_event ev; /* the head event while the stream is in the heap */
};

static inline int64_t rebias(int64_t v, unsigned field, unsigned prio)
{
	return (prio & field) ? (int64_t)((uint64_t)v + TLF_PRIO_BIAS) : v;
}

/*
 * Decode the next event of a section into *ev.  Returns 0, 1 for an event
 * of a type this reader does not know (well-formed, to be skipped), or -1
 * if the bytes are malformed.  nstrings bounds the string ids.
 */
static int decode_event(struct section *s, struct tl_event *ev, uint32_t nstrings)
{
	const uint8_t *p = s->p, *end = s->end;
	uint64_t type, delta, v;
	unsigned b0, mask, prio;
	int64_t x;

	if (p >= end)
		return -1;
	b0 = *p++;
	type = b0 & TLF_EV_TYPE_MASK;
	if (type == TLF_EV_TYPE_ESCAPE && tl_varint_get(&p, end, &type) < 0)
		return -1;
	if (b0 & TLF_EV_HAS_MASK) {
		if (p >= end || *p > TLF_F_ALL)
			return -1;
		mask = *p++;
	} else if (type < TL_EV__COUNT) {
		mask = tlf_default_mask[type];
	} else {
		return -1; /* a future type must say which fields it has */
	}
	prio = type < TL_EV__COUNT ? tlf_prio_mask[type] : 0;
	if (tl_varint_get(&p, end, &delta) < 0)
		return -1;
	if (b0 & TLF_EV_TS_NEG) {
		if (delta > s->ts)
			return -1;
		ev->ts = s->ts - delta;
	} else {
		if (delta > UINT64_MAX - s->ts)
			return -1;
		ev->ts = s->ts + delta;
	}
	ev->type = (uint16_t)(type < TL_EV__COUNT ? type : 0);
	ev->cpu = s->cpu;
	ev->flags = 0;
	ev->lag_end = 0;
	ev->tid = ev->arg = 0;
	ev->name = ev->lag = 0;
	ev->a = ev->b = ev->c = 0;
	if (b0 & TLF_EV_HAS_FLAGS) {
		if (tl_varint_get(&p, end, &v) < 0 || v > UINT16_MAX)
			return -1;
		ev->flags = (uint16_t)v;
	}
	if (mask & TLF_F_TID) {
		/* A tid differs from cur by less than 2^32: larger codes are damage. */
		if (tl_varint_get(&p, end, &v) < 0 || v > (1ull << 34))
			return -1;
		x = tl_zigzag_dec(v) + s->cur;
		if (x < INT32_MIN || x > INT32_MAX)
			return -1;
		ev->tid = (int32_t)x;
	}
	if (mask & TLF_F_ARG) {
		/* A tid differs from cur by less than 2^32: larger codes are damage. */
		if (tl_varint_get(&p, end, &v) < 0 || v > (1ull << 34))
			return -1;
		x = tl_zigzag_dec(v) + s->cur;
		if (x < INT32_MIN || x > INT32_MAX)
			return -1;
		ev->arg = (int32_t)x;
	}
	if (mask & TLF_F_NAME) {
		if (tl_varint_get(&p, end, &v) < 0 || v >= nstrings)
			return -1;
		ev->name = (uint32_t)v;
	}
	if (mask & TLF_F_A) {
		if (tl_varint_get(&p, end, &v) < 0)
			return -1;
		ev->a = tl_zigzag_dec(v);
	}
	if (mask & TLF_F_B) {
		if (tl_varint_get(&p, end, &v) < 0)
			return -1;
		ev->b = rebias(tl_zigzag_dec(v), TLF_F_B, prio);
	}
	if (mask & TLF_F_C) {
		if (tl_varint_get(&p, end, &v) < 0)
			return -1;
		ev->c = rebias(tl_zigzag_dec(v), TLF_F_C, prio);
	}
	if (mask & TLF_F_RES) {
		if (tl_varint_get(&p, end, &v) < 0 || v > UINT16_MAX)
			return -1;
		ev->lag_end = (uint16_t)v;
		if (tl_varint_get(&p, end, &v) < 0 || v > UINT32_MAX)
			return -1;
		ev->lag = (uint32_t)v;
	}
	if (type == TL_EV_SWITCH)
		s->cur = ev->arg;
	s->ts = ev->ts;
	s->p = p;
	return type < TL_EV__COUNT ? 0 : 1;
}

static void chunk_unref(struct tl_merge *m, struct chunk *ck)
{
	if (--ck->refs)
		return;
	m->mem.pending_bytes -= ck->len;
	free(ck->data);
	free(ck->secs);
	free(ck);
}

static void damaged(struct tl_merge *m, const struct chunk *ck)
{
	if (m->damaged)
		return;
	m->damaged = 1;
	m->damage_block = ck->block;
	m->damage_offset = ck->offset;
}

/* The LOST that stands for a skipped damaged block on cpu, at ts (trace_merge.h, tl_merge_gap). */
static void gap_event(const struct tl_merge *m, int cpu, uint64_t ts, struct tl_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts = ts;
	ev->type = TL_EV_LOST;
	ev->cpu = (int16_t)cpu;
	ev->flags = TL_EVF_DAMAGE;
	ev->b = (int64_t)m->gap_from;
}

/* Decode the stream's next event into s->ev; 0 when its queue is empty (or damage stopped it). */
static int stream_load(struct tl_merge *m, struct tl_merge_stream *s)
{
	while (s->head && !m->damaged) {
		struct section *sec = s->head;
		if (sec->gap) {
			sec->gap = 0;
			gap_event(m, sec->cpu, sec->ts, &s->ev);
			return 1;
		}
		if (sec->left) {
			int r = decode_event(sec, &s->ev, sec->ck->nstrings);
			sec->left--;
			if (r == 0)
				return 1;
			if (r < 0) {
				damaged(m, sec->ck);
				return 0;
			}
			m->unknown_events++;
			m->mem.queued_events--;
			continue;
		}
		if (sec->p != sec->end) {
			damaged(m, sec->ck); /* fewer events than bytes: the count lied */
			return 0;
		}
		s->head = sec->next;
		if (!s->head)
			s->tail = NULL;
		chunk_unref(m, sec->ck);
	}
	return 0;
}

static int before(const struct tl_merge_stream *a, const struct tl_merge_stream *b)
{
	return a->ev.ts < b->ev.ts || (a->ev.ts == b->ev.ts && a->cpu < b->cpu);
}

static void heap_set(struct tl_merge *m, unsigned i, struct tl_merge_stream *s)
{
	m->heap[i] = s;
	s->heap_pos = i;
}

static void heap_down(struct tl_merge *m, unsigned i)
{
	struct tl_merge_stream *s = m->heap[i];
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && before(m->heap[c + 1], m->heap[c]))
			c++;
		if (!before(m->heap[c], s))
			break;
		heap_set(m, i, m->heap[c]);
		i = c;
	}
	heap_set(m, i, s);
}

static void heap_up(struct tl_merge *m, unsigned i)
{
	struct tl_merge_stream *s = m->heap[i];
	while (i) {
		unsigned parent = (i - 1) / 2;
		if (!before(s, m->heap[parent]))
			break;
		heap_set(m, i, m->heap[parent]);
		i = parent;
	}
	heap_set(m, i, s);
}

static struct tl_merge_stream *get_stream(struct tl_merge *m, int cpu)
{
	int idx = cpu + 1;

	if (idx >= m->nstreams) {
		int n = m->nstreams ? m->nstreams : 8;
		while (n <= idx)
			n *= 2;
		struct tl_merge_stream **a = realloc(m->streams, (size_t)n * sizeof(*a));
		if (!a)
			return NULL;
		memset(a + m->nstreams, 0, (size_t)(n - m->nstreams) * sizeof(*a));
		m->streams = a;
		m->nstreams = n;
	}
	if (!m->streams[idx]) {
		/* A heap slot per stream, reserved now so that inserting never fails. */
		if (TL_GROW(m->heap, m->heapcap, (size_t)m->nstream_objs + 1) < 0)
			return NULL;
		m->streams[idx] = calloc(1, sizeof(struct tl_merge_stream));
		if (!m->streams[idx])
			return NULL;
		m->streams[idx]->cpu = cpu;
		m->nstream_objs++;
	}
	return m->streams[idx];
}

int tl_merge_add_chunk(struct tl_merge *m, uint8_t *data, size_t len, uint32_t nstrings, uint64_t block,
                       uint64_t offset)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t watermark, nsec, total = 0;
	struct chunk *ck;
	int ret = -1;

	if (tl_varint_get(&p, end, &watermark) < 0 || tl_varint_get(&p, end, &nsec) < 0 || nsec > TLF_MAX_CPUS + 1 ||
	    nsec > len) {
		free(data);
		return -1;
	}
	ck = calloc(1, sizeof(*ck));
	if (ck)
		ck->secs = calloc(nsec ? nsec : 1, sizeof(struct section));
	if (!ck || !ck->secs) {
		ret = -2;
		goto fail;
	}
	ck->data = data;
	ck->len = len;
	ck->nstrings = nstrings;
	ck->block = block;
	ck->offset = offset;
	for (uint64_t i = 0; i < nsec; i++) {
		struct section *s = &ck->secs[i];
		uint64_t zcpu, nbytes;
		int64_t cpu;

		if (tl_varint_get(&p, end, &zcpu) < 0 || tl_varint_get(&p, end, &s->left) < 0 ||
		    tl_varint_get(&p, end, &s->ts) < 0 || tl_varint_get(&p, end, &nbytes) < 0)
			goto fail;
		cpu = tl_zigzag_dec(zcpu);
		if (cpu < -1 || cpu >= TLF_MAX_CPUS || nbytes > (uint64_t)(end - p) || s->left > nbytes / 2)
			goto fail;
		s->ck = ck;
		s->cpu = (int16_t)cpu;
		s->p = p;
		s->end = p + nbytes;
		p += nbytes;
		total += s->left;
	}
	/* Bytes after the sections are for newer minor versions: ignored. */

	/* Make every stream exist first, so that queueing cannot fail halfway. */
	for (uint64_t i = 0; i < nsec; i++) {
		if (ck->secs[i].left && !get_stream(m, ck->secs[i].cpu)) {
			ret = -2;
			goto fail;
		}
	}
	m->last_first_ts = UINT64_MAX;
	for (uint64_t i = 0; i < nsec; i++) {
		struct section *s = &ck->secs[i];
		if (s->left && s->ts < m->last_first_ts)
			m->last_first_ts = s->ts;
		if (s->left && m->streams[s->cpu + 1]->gap) {
			m->streams[s->cpu + 1]->gap = 0;
			s->gap = 1;
			total++;
		}
	}
	ck->refs = 1; /* ours until the loop is done: stream_load() may unref */
	m->mem.pending_bytes += len;
	m->mem.queued_events += total;
	if (m->mem.pending_bytes > m->mem.max_pending_bytes)
		m->mem.max_pending_bytes = m->mem.pending_bytes;
	if (m->mem.queued_events > m->mem.max_queued_events)
		m->mem.max_queued_events = m->mem.queued_events;
	for (uint64_t i = 0; i < nsec; i++) {
		struct section *s = &ck->secs[i];
		struct tl_merge_stream *st;
		if (!s->left)
			continue;
		st = m->streams[s->cpu + 1];
		ck->refs++;
		if (st->tail)
			st->tail->next = s;
		else
			st->head = s;
		st->tail = s;
		/* An idle stream (empty queue, not in the heap) starts with this section. */
		if (!st->in_heap && stream_load(m, st)) {
			st->in_heap = 1;
			m->heap[m->nheap] = st;
			st->heap_pos = m->nheap++;
			heap_up(m, st->heap_pos);
		}
	}
	if (watermark > m->watermark)
		m->watermark = watermark;
	chunk_unref(m, ck);
	return 0;

fail:
	if (ck)
		free(ck->secs);
	free(ck);
	free(data);
	return ret;
}

int tl_merge_next(struct tl_merge *m, int drain, struct tl_event *ev)
{
	struct tl_merge_stream *s;

	if (m->damaged)
		return -1;
	if (!m->nheap) {
		/* Gaps no later section ended: the CPUs' states after them are unknown to the end. */
		for (int i = 1; drain && i < m->nstreams; i++)
			if (m->streams[i] && m->streams[i]->gap) {
				m->streams[i]->gap = 0;
				gap_event(m, i - 1, m->last_ts, ev);
				return 1;
			}
		return 0;
	}
	s = m->heap[0];
	if (!drain && s->ev.ts >= m->watermark && m->mem.pending_bytes <= TL_MERGE_MAX_PENDING)
		return 0;
	*ev = s->ev;
	if (ev->ts > m->last_ts)
		m->last_ts = ev->ts;
	m->mem.queued_events--;
	/* the event is good; if loading the next one finds damage, the next call says so */
	if (stream_load(m, s)) {
		heap_down(m, 0);
	} else {
		s->in_heap = 0;
		if (--m->nheap) {
			heap_set(m, 0, m->heap[m->nheap]);
			heap_down(m, 0);
		}
	}
	return 1;
}

void tl_merge_gap(struct tl_merge *m)
{
	m->gap_from = m->watermark;
	for (int i = 1; i < m->nstreams; i++) /* CPUs only: markers have no CPU state to lose */
		if (m->streams[i])
			m->streams[i]->gap = 1;
}

void tl_merge_init(struct tl_merge *m)
{
	memset(m, 0, sizeof(*m));
}

void tl_merge_drop(struct tl_merge *m)
{
	/* Every queued section holds one reference to its chunk. */
	for (int i = 0; i < m->nstreams; i++) {
		struct tl_merge_stream *s = m->streams[i];
		if (!s)
			continue;
		while (s->head) {
			struct section *sec = s->head;
			s->head = sec->next;
			chunk_unref(m, sec->ck);
		}
		s->tail = NULL;
		s->in_heap = 0;
	}
	m->nheap = 0;
	m->mem.queued_events = 0;
}

void tl_merge_release(struct tl_merge *m)
{
	tl_merge_drop(m);
	for (int i = 0; i < m->nstreams; i++)
		free(m->streams[i]);
	free(m->streams);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}
