/*
 * kallsyms.c - kernel function symbols (see kallsyms.h).
 *
 * Invariants: s[] is sorted by start with distinct starts, each end the
 * next start (the last one's: start + 4096), every name NUL-terminated and
 * owned.
 */
#include "capture/kallsyms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/hex.h"

int tl_kallsyms_parse_line(const char *line, size_t len, uint64_t *addr, char *type, const char **name,
                           size_t *name_len, const char **module, size_t *module_len)
{
	const char *end = line + len, *p, *t;

	if (len && end[-1] == '\n')
		end--;
	if (!(p = tl_hex_u64(line, end, addr)) || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return 0;
	*type = p[1];
	p += 3;
	t = p;
	while (p < end && *p != '\t' && *p != ' ')
		p++;
	if (p == t)
		return 0;
	*name = t;
	*name_len = (size_t)(p - t);
	*module = NULL;
	*module_len = 0;
	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	if (p < end) {
		if (*p != '[' || end[-1] != ']' || end - p < 3)
			return 0;
		*module = p + 1;
		*module_len = (size_t)(end - p - 2);
	}
	return 1;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct tl_ksym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int tl_kallsyms_load(struct tl_kallsyms *k, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, scap = 0, w = 0;
	ssize_t len;
	int zero = 0, any = 0;

	memset(k, 0, sizeof(*k));
	if (!f)
		return tl_error_errno("cannot read '%s'", path);
	while ((len = getline(&line, &cap, f)) > 0) {
		uint64_t a;
		char t;
		const char *nm, *mod;
		size_t nl, ml;

		if (!tl_kallsyms_parse_line(line, (size_t)len, &a, &t, &nm, &nl, &mod, &ml))
			continue;
		any = 1;
		if (!a) {
			zero = 1;
			continue;
		}
		if (t != 't' && t != 'T' && t != 'w' && t != 'W')
			continue;
		if (TL_GROW(k->s, scap, k->n + 1) < 0 || !(k->s[k->n].name = malloc(nl + ml + 4)))
			break;
		if (mod)
			snprintf(k->s[k->n].name, nl + ml + 4, "%.*s [%.*s]", (int)nl, nm, (int)ml, mod);
		else
			snprintf(k->s[k->n].name, nl + 1, "%.*s", (int)nl, nm);
		k->s[k->n++].start = a;
	}
	free(line);
	fclose(f);
	k->hidden = any && zero && !k->n;
	if (k->n)
		qsort(k->s, k->n, sizeof(*k->s), cmp_ksym);
	for (size_t i = 0; i < k->n; i++) { /* one per address: the first name of an alias set */
		if (w && k->s[w - 1].start == k->s[i].start) {
			free(k->s[i].name);
			continue;
		}
		k->s[w++] = k->s[i];
	}
	k->n = w;
	for (size_t i = 0; i < k->n; i++)
		k->s[i].end = i + 1 < k->n ? k->s[i + 1].start : k->s[i].start + 4096;
	return 0;
}

const struct tl_ksym *tl_kallsyms_find(const struct tl_kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < k->s[lo - 1].end ? &k->s[lo - 1] : NULL;
}

void tl_kallsyms_release(struct tl_kallsyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->s[i].name);
	free(k->s);
	memset(k, 0, sizeof(*k));
}
