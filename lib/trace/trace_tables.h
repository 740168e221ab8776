/*
 * trace_tables.h - the id tables of a trace: the STRINGS block as the
 * reader takes it into a string table (base/strtab.h), and the STACKS block
 * (format 1.5, docs/FORMAT.md), the call stacks that SAMPLE events name by
 * id, as the writer codes them and the reader takes them back into a stack
 * table (base/stacktab.h).
 *
 * Payload: `varint first_id, varint count`, then per stack `varint
 * nframes` (1..TL_STACK_MAX_FRAMES) and its frames, innermost first: the
 * first as a varint, each next one as zigzag(frame - previous frame).
 * Ids are dense, as for strings: first_id is the number of stacks defined
 * so far plus one.
 */
#ifndef TL_TRACE_STACKS_H
#define TL_TRACE_STACKS_H

#include "base/strtab.h"

#include <stddef.h>
#include <stdint.h>

#include "base/stacktab.h"

/*
 * Append the strings of one STRINGS payload to t.  After a skipped block
 * (gap), ids up to first_id read as "", at most one per skipped byte.  0,
 * or -1 when the payload is malformed (or out of memory).
 */
int tl_strings_parse(struct tl_strtab *t, const uint8_t *p, size_t len, int gap, uint64_t skipped_bytes);

/*
 * Code stacks first.. of t (as many as fit in about TLF_CHUNK_LIMIT bytes,
 * at least one) into *buf (grown as needed), its length in *len.  Returns
 * how many, or 0 with tl_error set (out of memory, or nothing to code).
 */
uint32_t tl_stacks_encode(const struct tl_stacktab *t, uint32_t first, uint8_t **buf, size_t *cap, size_t *len);

/*
 * Append the stacks of one payload to t.  After a skipped block (gap), ids
 * up to first_id are filled with empty stacks, at most one per skipped
 * byte.  0, or -1 when the payload is malformed (or out of memory).
 */
int tl_stacks_parse(struct tl_stacktab *t, const uint8_t *p, size_t len, int gap, uint64_t skipped_bytes);

#endif
