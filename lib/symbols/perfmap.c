/*
 * perfmap.c - a JIT's perf map file (see perfmap.h).  Each line is parsed
 * on its own: hex start, hex size, one space, the rest of the line as the
 * name; anything else is skipped.
 */
#include "symbols/perfmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/readfile.h"

/* A hex number at *p (no sign, no 0x needed), then one space: 0, else -1.  Moves *p past the space. */
static int hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*v = 0;
	for (; s < end && digits <= 16; s++, digits++) {
		int d = *s >= '0' && *s <= '9'   ? *s - '0'
		        : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
		        : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
		                                 : -1;
		if (d < 0)
			break;
		*v = *v << 4 | (uint64_t)d;
	}
	if (!digits || digits > 16 || s >= end || *s != ' ')
		return -1;
	*p = s + 1;
	return 0;
}

static int cmp_sym(const void *x, const void *y)
{
	const struct tl_perfmap_sym *a = x, *b = y;

	/* by start, then the later line last (names grow with the lines) */
	return a->start < b->start ? -1 : a->start > b->start ? 1 : a->name < b->name ? -1 : a->name > b->name;
}

int tl_perfmap_add(struct tl_perfmap *m, uint64_t start, uint64_t size, const char *name, size_t len)
{
	if (!size)
		return 0;
	if (m->nsyms == m->capsyms) {
		size_t n = m->capsyms ? m->capsyms * 2 : 256;
		struct tl_perfmap_sym *s = realloc(m->syms, n * sizeof(*s));
		if (!s)
			return -1;
		m->syms = s;
		m->capsyms = n;
	}
	if (m->names_len + len + 1 > m->capnames || m->names_len + len + 1 > UINT32_MAX) {
		size_t n = (m->names_len + len + 1) * 2;
		char *s = n <= UINT32_MAX ? realloc(m->names, n) : NULL;
		if (!s)
			return -1;
		m->names = s;
		m->capnames = n;
	}
	m->syms[m->nsyms++] = (struct tl_perfmap_sym){ start, size, (uint32_t)m->names_len };
	memcpy(m->names + m->names_len, name, len);
	m->names_len += len;
	m->names[m->names_len++] = 0;
	return 0;
}

void tl_perfmap_done(struct tl_perfmap *m)
{
	size_t k = 0;

	if (m->nsyms)
		qsort(m->syms, m->nsyms, sizeof(*m->syms), cmp_sym);
	for (size_t i = 0; i < m->nsyms; i++) /* one per start: the last added */
		if (i + 1 == m->nsyms || m->syms[i + 1].start != m->syms[i].start)
			m->syms[k++] = m->syms[i];
	m->nsyms = k;
}

int tl_perfmap_parse(const char *text, size_t len, struct tl_perfmap *m)
{
	const char *p = text, *end = text + len;

	memset(m, 0, sizeof(*m));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end, *q = p;
		uint64_t start, size;

		if (hex(&q, eol, &start) || hex(&q, eol, &size) || q >= eol || !size) {
			m->skipped += eol > p;
		} else if (tl_perfmap_add(m, start, size, q, (size_t)(eol - q))) {
			tl_perfmap_release(m);
			return -1;
		}
		p = eol + (nl != NULL);
	}
	tl_perfmap_done(m);
	return 0;
}

int tl_perfmap_load(struct tl_perfmap *m, const char *dir, int32_t pid)
{
	char path[4096], *text = NULL;
	size_t len = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/perf-%d.map", dir ? dir : "/tmp", (int)pid);
	if (tl_read_file(path, (size_t)1 << 30, &text, &len))
		return 0; /* none, or unreadable: no names */
	rc = tl_perfmap_parse(text, len, m);
	free(text);
	return rc;
}

const struct tl_perfmap_sym *tl_perfmap_find(const struct tl_perfmap *m, uint64_t ip)
{
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip - m->syms[lo - 1].start >= m->syms[lo - 1].size)
		return NULL;
	return &m->syms[lo - 1];
}

const char *tl_perfmap_lookup(const struct tl_perfmap *m, uint64_t ip)
{
	const struct tl_perfmap_sym *s = tl_perfmap_find(m, ip);

	return s ? m->names + s->name : NULL;
}

void tl_perfmap_release(struct tl_perfmap *m)
{
	free(m->syms);
	free(m->names);
	memset(m, 0, sizeof(*m));
}
