/*
 * trace_tables.c - the STRINGS and STACKS blocks' coding (see
 * trace_tables.h).
 *
 * Invariants: the stack encoder writes only what the parser accepts (nframes
 * 1..TL_STACK_MAX_FRAMES, ids dense from first); the parser checks every
 * length against the payload before it allocates, so hostile bytes can
 * only make a block malformed.
 */
#include "trace/trace_tables.h"

#include "base/errors.h"
#include "base/grow.h"
#include "base/varint.h"
#include "trace/trace_format.h"

int tl_strings_parse(struct tl_strtab *t, const uint8_t *p, size_t len, int gap, uint64_t skipped_bytes)
{
	const uint8_t *end = p + len;
	uint64_t first, count;

	if (tl_varint_get(&p, end, &first) < 0 || tl_varint_get(&p, end, &count) < 0)
		return -1;
	if (count > (uint64_t)(end - p))
		return -1;
	/*
	 * Strings defined by a skipped block read as "" (ids stay dense); each
	 * took at least a byte of what was skipped, which bounds them.
	 */
	if (first > tl_strtab_next_id(t) && first - tl_strtab_next_id(t) > skipped_bytes)
		return -1;
	while (gap && first > tl_strtab_next_id(t))
		if (!tl_strtab_append(t, "", 0))
			return -1;
	if (first != tl_strtab_next_id(t))
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t sl;
		if (tl_varint_get(&p, end, &sl) < 0 || sl > TLF_MAX_STRING || sl > (uint64_t)(end - p))
			return -1;
		/* An empty string would not round-trip through intern; keep ids dense anyway. */
		if (!tl_strtab_append(t, (const char *)p, (size_t)sl))
			return -1;
		p += sl;
	}
	return 0;
}

uint32_t tl_stacks_encode(const struct tl_stacktab *t, uint32_t first, uint8_t **buf, size_t *cap, size_t *len)
{
	uint32_t next = tl_stacktab_next_id(t), id;
	size_t need = 2 * TL_VARINT_MAX, n = 0;

	/* Size the block first so that one buffer holds it. */
	for (id = first; id < next && need < TLF_CHUNK_LIMIT; id++) {
		unsigned nf;
		tl_stacktab_get(t, id, &nf);
		need += (size_t)(nf + 1) * TL_VARINT_MAX;
	}
	if (id == first)
		return tl_error("no stack to write"), 0;
	if (tl_grow(buf, cap, need, 1, 0) < 0)
		return 0;
	n = tl_varint_put(*buf, first);
	n += tl_varint_put(*buf + n, id - first);
	for (uint32_t k = first; k < id; k++) {
		unsigned nf;
		const uint64_t *f = tl_stacktab_get(t, k, &nf);

		n += tl_varint_put(*buf + n, nf);
		for (unsigned i = 0; i < nf; i++)
			n += tl_varint_put(*buf + n, i ? tl_zigzag_enc((int64_t)(f[i] - f[i - 1])) : f[0]);
	}
	*len = n;
	return id - first;
}

int tl_stacks_parse(struct tl_stacktab *t, const uint8_t *p, size_t len, int gap, uint64_t skipped_bytes)
{
	const uint8_t *end = p + len;
	uint64_t first, count;
	uint64_t frames[TL_STACK_MAX_FRAMES];

	if (tl_varint_get(&p, end, &first) < 0 || tl_varint_get(&p, end, &count) < 0)
		return -1;
	if (count > (uint64_t)(end - p) / 2) /* a stack takes two bytes at least */
		return -1;
	/* stacks of a skipped block read as empty (ids stay dense); each took a byte of it at least */
	if (first > tl_stacktab_next_id(t) && first - tl_stacktab_next_id(t) > skipped_bytes)
		return -1;
	while (gap && first > tl_stacktab_next_id(t))
		if (!tl_stacktab_append(t, NULL, 0))
			return -1;
	if (first != tl_stacktab_next_id(t))
		return -1;
	for (uint64_t k = 0; k < count; k++) {
		uint64_t nf, v;

		if (tl_varint_get(&p, end, &nf) < 0 || nf < 1 || nf > TL_STACK_MAX_FRAMES)
			return -1;
		for (uint64_t i = 0; i < nf; i++) {
			if (tl_varint_get(&p, end, &v) < 0)
				return -1;
			frames[i] = i ? frames[i - 1] + (uint64_t)tl_zigzag_dec(v) : v;
		}
		if (!tl_stacktab_append(t, frames, (unsigned)nf))
			return -1;
	}
	return 0;
}
