/*
 * trace_merge.h - private to the trace reader: event chunks in, one stream
 * of events in (timestamp, cpu, file order) out.
 *
 * The reader (trace_reader.c) deals with blocks, checksums and metadata;
 * it hands every EVENTS payload to tl_merge_add_chunk(), which checks the
 * chunk's layout and queues its per-CPU sections without decoding them, and
 * asks tl_merge_next() for events (each decoded, and checked, once).  The merge holds a chunk until every
 * one of its events has been returned, and only decodes the head event of
 * each CPU's queue, so its memory is the decompressed chunks it holds.
 */
#ifndef TL_TRACE_MERGE_H
#define TL_TRACE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"
#include "trace/trace.h"

/* Held chunks past this size are returned regardless of the watermark. */
#define TL_MERGE_MAX_PENDING (64u << 20)

struct tl_merge_stream;

struct tl_merge {
	struct tl_merge_stream **streams; /* index cpu + 1 */
	int nstreams;
	struct tl_merge_stream **heap; /* streams with a head event, by (ts, cpu) */
	unsigned nheap, nstream_objs;
	size_t heapcap;
	uint64_t watermark;                   /* the highest watermark of the chunks so far */
	uint64_t unknown_events;              /* well-formed events of unknown types, skipped */
	int damaged;                          /* a malformed event was met: nothing more is returned */
	uint64_t damage_block, damage_offset; /* the chunk it was in */
	uint64_t last_first_ts;               /* the earliest section start of the last chunk added */
	uint64_t last_ts;                     /* the highest ts returned */
	uint64_t gap_from;                    /* the watermark when the last gap was marked */
	struct tl_trace_memstats mem;
};

void tl_merge_init(struct tl_merge *m);

/* Free everything still queued. */
void tl_merge_release(struct tl_merge *m);

/* Forget the queued events (after damage: nothing more is to be returned); the merge stays usable. */
void tl_merge_drop(struct tl_merge *m);

/*
 * Check the layout of a raw EVENTS payload and queue its sections; the
 * events themselves are decoded (and checked: string ids must be below
 * nstrings) as they are reached.  block and offset say where it came from.
 * Takes ownership of data (a malloc()ed buffer) in every case.  Returns 0,
 * -1 if the layout is malformed (nothing of it is queued), or -2 on
 * allocation failure.
 */
int tl_merge_add_chunk(struct tl_merge *m, uint8_t *data, size_t len, uint32_t nstrings, uint64_t block,
                       uint64_t offset);

/*
 * The reader skipped a damaged block here: the next section queued on each
 * CPU's stream starts with a LOST event (flag TL_EVF_DAMAGE, count 0, b =
 * the watermark before the gap) at its first timestamp, so the gap's states become unknown; a CPU with no
 * events after the gap gets its LOST when the merge has drained.
 */
void tl_merge_gap(struct tl_merge *m);

/*
 * The next event, if it can be returned now: it is below the watermark, or
 * drain is set (no more chunks will come), or the held chunks passed
 * TL_MERGE_MAX_PENDING.  Returns 1 with *ev filled, 0 if the next chunk
 * must be added first (or, with drain, when nothing is left), -1 once a
 * malformed event was met (damage_block and damage_offset say where).
 */
int tl_merge_next(struct tl_merge *m, int drain, struct tl_event *ev);

#endif
