/*
 * html_timeline.h - the timeline data of the HTML report: every thread's state
 * intervals and every CPU's occupants, encoded compactly, with a
 * level-of-detail summary, and the markers; written as one JSON document
 * ("threadlens-timeline", docs/HTML.md) that the page's script decodes.
 *
 * The window is cut into `blocks` equal blocks.  Per row (a thread or a
 * CPU), base64 of:
 *
 *   iv    every block's records, one block after the other; written apart
 *         from the JSON, in a <script type="application/octet-stream">
 *         block whose id the row's "iv" names, so that the page reads it
 *         only when a view first needs it.  A thread's record:
 *         varint(start - the end of the block's previous record, or the
 *         block's start), varint(duration), byte(state | 0x80 if it
 *         continues an interval of the previous block | 0x40 if it goes
 *         on into the next), varint(cpu + 1), varint(zigzag(by)).  A CPU's
 *         record: the same offsets and flags around `what` (enum
 *         tl_cpu_activity), then varint(tid), varint(irq + 1).  An interval
 *         crossing blocks is cut at their edges, so a block can be drawn
 *         alone.
 *   lens  for each block, varint(its records' length in bytes in iv): the
 *         page decodes one block's slice of the base64 alone.
 *   lod   for each block: byte n, then n entries.  A thread's entry:
 *         byte(state), byte(share of the block, 1..255 of 255).  A CPU's:
 *         byte(what), varint(tid), byte(share): its four largest occupants,
 *         the rest as what 255.
 *
 * lens and lod start at the row's block "b0" and stop after its last block
 * with data: the blocks outside are empty (a short-lived thread of a long
 * trace writes a few blocks, not all TL_TIMELINE_BLOCKS).
 *
 * So the page draws any zoom level with a bounded number of shapes: wide
 * views from the summaries, narrow ones from the few blocks they cover,
 * exactly.  Memory: the encoded data (about 6 bytes per interval) is kept
 * until written; beyond TL_TIMELINE_MAX_BYTES the exact records stop
 * (the summaries go on) and `detail_until_ns` says from where.
 */
#ifndef TL_HTML_TIMELINE_H
#define TL_HTML_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/report/report.h"
#include "timeline/run.h"

#define TL_TIMELINE_BLOCKS 1024
#define TL_TIMELINE_MAX_BYTES ((size_t)512 << 20)
#define TL_TIMELINE_MAX_SPANS 200000

struct tl_timeline;

/*
 * Read run's trace once more (tl_run_reopen) and encode the threads the
 * report model kept, every CPU and the markers.  o->ids prefixes the ids
 * of the interval blocks ("tl-iv" gives "tl-iv-t0", ..., "tl-iv-c0", ...).
 * NULL with tl_error set.
 */
struct tl_timeline_opts {
	const char *ids;  /* the interval blocks' id prefix (at most 23 bytes) */
	size_t max_bytes; /* exact records kept, at most; 0: TL_TIMELINE_MAX_BYTES */
};
struct tl_timeline *tl_timeline_build(struct tl_run *run, const struct tl_model *m, const struct tl_timeline_opts *o);

/* The JSON document.  0, or -1 with tl_error set. */
int tl_timeline_write_json(FILE *out, const struct tl_timeline *tl);

/* Each row's iv, in the <script type="application/octet-stream"> blocks the
 * JSON names (the `ids` prefix, then "-t0", ..., "-c0", ...).  0, or -1 with tl_error set. */
int tl_timeline_write_blocks(FILE *out, const struct tl_timeline *tl);

/* Intervals encoded (threads and CPUs), and whether detail was dropped. */
uint64_t tl_timeline_intervals(const struct tl_timeline *tl);
int tl_timeline_truncated(const struct tl_timeline *tl);

void tl_timeline_free(struct tl_timeline *tl);

#endif
