/*
 * hist_bins.c - the bins file: per span name, the range [c_min, c_max] and
 * the k that the next iterative histogram run bins with (format in hist_binning.h
 * and docs/HIST.md).
 *
 * Invariants: every entry of a tl_bins_file has a non-empty name of at most
 * TL_BINS_NAME_MAX bytes without NUL, no two entries share a name, and
 * tl_binning_iterative() accepts its k, c_min and c_max.  The parser takes
 * any bytes (it is fuzzed: tests/fuzz/fuzz_bins.c) and either returns such a
 * file or fails with the line number; what it writes it reads back equal.
 * Entries keep the order they were read or added in, so a saved file
 * changes only in the line of the span that was run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/readfile.h"
#include "base/grow.h"
#include "analysis/hist/hist_binning.h"

#define BINS_MAGIC "threadlens-bins"
#define BINS_VERSION 1
#define BINS_MAX_FILE (64u << 20) /* a bins file is a few lines; refuse to slurp anything huge */

void tl_bins_init(struct tl_bins_file *f)
{
	memset(f, 0, sizeof(*f));
}

void tl_bins_release(struct tl_bins_file *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->e[i].name);
	free(f->e);
	tl_bins_init(f);
}

const struct tl_bins_entry *tl_bins_find(const struct tl_bins_file *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->e[i].name, name))
			return &f->e[i];
	return NULL;
}

static int check_entry(const char *name, uint32_t k, uint64_t c_min, uint64_t c_max)
{
	struct tl_binning b;
	size_t len = strlen(name);

	if (!len)
		return tl_error("an empty span name");
	if (len > TL_BINS_NAME_MAX)
		return tl_error("a span name of %zu bytes (at most %d)", len, TL_BINS_NAME_MAX);
	return tl_binning_iterative(&b, k, c_min, c_max);
}

int tl_bins_set(struct tl_bins_file *f, const char *name, uint32_t k, uint64_t c_min, uint64_t c_max)
{
	struct tl_bins_entry *e = (struct tl_bins_entry *)tl_bins_find(f, name);

	if (check_entry(name, k, c_min, c_max))
		return -1;
	if (!e) {
		char *copy = strdup(name);
		if (!copy)
			return tl_error("out of memory");
		if (TL_GROW(f->e, f->cap, f->n + 1) < 0) {
			free(copy);
			return -1;
		}
		e = &f->e[f->n++];
		e->name = copy;
	}
	e->k = k;
	e->c_min = c_min;
	e->c_max = c_max;
	return 0;
}

/* ---- parsing ---- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode a percent-encoded name of len bytes into a new string.  NULL with tl_error set. */
static char *decode_name(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;

	if (!out) {
		tl_error("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < len; i++) {
		int hi, lo;
		if (s[i] != '%') {
			*o++ = s[i];
			continue;
		}
		if (len - i < 3 || (hi = hexval((unsigned char)s[i + 1])) < 0 ||
		    (lo = hexval((unsigned char)s[i + 2])) < 0) {
			free(out);
			tl_error("a '%%' in the span name not followed by two hex digits");
			return NULL;
		}
		if (!hi && !lo) {
			free(out);
			tl_error("a span name with a NUL byte (%%00)");
			return NULL;
		}
		*o++ = (char)(hi << 4 | lo);
		i += 2;
	}
	*o = 0;
	return out;
}

/* A decimal number of the whole token; -1 if it is not one or does not fit in 64 bits. */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 20)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d;
		if (s[i] < '0' || s[i] > '9')
			return -1;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

#define MAX_TOKENS 6

/* Split a line at runs of spaces and tabs.  Returns the number of tokens; the first MAX_TOKENS + 1 are stored. */
static int tokenize(const char *s, size_t len, const char **tok, size_t *tlen)
{
	int n = 0;
	size_t i = 0;

	while (i < len) {
		size_t start;
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		if (n <= MAX_TOKENS) {
			tok[n] = s + start;
			tlen[n] = i - start;
		}
		n++;
	}
	return n;
}

static int parse_entry(struct tl_bins_file *f, const char **tok, const size_t *tlen, int ntok)
{
	uint64_t k, c_min, c_max, step;
	char *name;
	int rc;

	if (ntok != 5)
		return tl_error("%d fields where 5 are expected (NAME K MIN_NS MAX_NS STEP_NS)", ntok);
	if (parse_u64(tok[1], tlen[1], &k) || parse_u64(tok[2], tlen[2], &c_min) ||
	    parse_u64(tok[3], tlen[3], &c_max) || parse_u64(tok[4], tlen[4], &step))
		return tl_error("K, MIN_NS, MAX_NS and STEP_NS must be whole numbers");
	if (k < TL_HIST_K_MIN || k > TL_HIST_K_MAX)
		return tl_error("%llu bins: a histogram has %d to %d bins", (unsigned long long)k, TL_HIST_K_MIN,
		                TL_HIST_K_MAX);
	if (tlen[0] > 3 * TL_BINS_NAME_MAX)
		return tl_error("a span name longer than %d bytes", TL_BINS_NAME_MAX);
	name = decode_name(tok[0], tlen[0]);
	if (!name)
		return -1;
	if (tl_bins_find(f, name)) {
		rc = tl_error("a second line for span '%s'", name);
	} else if (check_entry(name, (uint32_t)k, c_min, c_max)) {
		rc = -1;
	} else if (step != tl_hist_eq1_step((uint32_t)k, c_min, c_max)) {
		rc = tl_error("step %llu does not match Eq. 1 for %llu bins over [%llu, %llu] (%llu)",
		              (unsigned long long)step, (unsigned long long)k, (unsigned long long)c_min,
		              (unsigned long long)c_max,
		              (unsigned long long)tl_hist_eq1_step((uint32_t)k, c_min, c_max));
	} else {
		rc = tl_bins_set(f, name, (uint32_t)k, c_min, c_max);
	}
	free(name);
	return rc;
}

int tl_bins_parse(struct tl_bins_file *f, const char *buf, size_t len)
{
	const char *tok[MAX_TOKENS + 1];
	size_t tlen[MAX_TOKENS + 1], pos = 0;
	unsigned line = 0;
	int seen_header = 0;

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		uint64_t version;
		int ntok;

		pos += n + (nl ? 1 : 0);
		line++;
		if (n && s[n - 1] == '\r')
			n--; /* a file edited on Windows */
		if (memchr(s, 0, n))
			return tl_error("line %u: a NUL byte", line);
		ntok = tokenize(s, n, tok, tlen);
		if (!ntok || tok[0][0] == '#')
			continue;
		if (!seen_header) {
			if (ntok != 2 || tlen[0] != strlen(BINS_MAGIC) || memcmp(tok[0], BINS_MAGIC, tlen[0]))
				return tl_error("line %u: not a threadlens bins file (it must start with '%s %d')",
				                line, BINS_MAGIC, BINS_VERSION);
			if (parse_u64(tok[1], tlen[1], &version) || version != BINS_VERSION)
				return tl_error("line %u: bins file version '%.*s' (this threadlens reads version %d)",
				                line, (int)(tlen[1] > 20 ? 20 : tlen[1]), tok[1], BINS_VERSION);
			seen_header = 1;
			continue;
		}
		if (parse_entry(f, tok, tlen, ntok))
			return tl_error_prefix("line %u", line);
	}
	if (!seen_header)
		return tl_error("not a threadlens bins file (no '%s %d' line)", BINS_MAGIC, BINS_VERSION);
	return 0;
}

int tl_bins_load(struct tl_bins_file *f, const char *path, int *missing)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (missing)
		*missing = 0;
	switch (tl_read_file(path, BINS_MAX_FILE, &buf, &len)) {
	case 0: break;
	case TL_READ_OPEN:
		if (errno == ENOENT && missing)
			*missing = 1;
		return tl_error_errno("cannot read '%s'", path);
	case TL_READ_LARGE:
		return tl_error("cannot read '%s': larger than %u MB, not a bins file", path, BINS_MAX_FILE >> 20);
	default: return tl_error("cannot read '%s': read error", path);
	}
	rc = tl_bins_parse(f, buf, len);
	free(buf);
	if (rc)
		return tl_error_prefix("cannot use bins file '%s'", path);
	return 0;
}

/* ---- writing ---- */

static void encode_name(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= ' ' || c == 0x7f || c == '%' || c == '#')
			fprintf(out, "%%%02X", c);
		else
			fputc(c, out);
	}
}

int tl_bins_format(const struct tl_bins_file *f, char **out, size_t *len)
{
	FILE *m;

	*out = NULL;
	*len = 0;
	m = open_memstream(out, len);
	if (!m)
		return tl_error("out of memory");
	fprintf(m,
	        "# threadlens bins: the range each span's next iterative histogram bins with\n"
	        "# (threadlens hist --bins FILE; docs/HIST.md).  STEP_NS is the step Eq. 1 gives.\n"
	        "%s %d\n"
	        "# NAME K MIN_NS MAX_NS STEP_NS\n",
	        BINS_MAGIC, BINS_VERSION);
	for (size_t i = 0; i < f->n; i++) {
		const struct tl_bins_entry *e = &f->e[i];
		encode_name(m, e->name);
		fprintf(m, " %u %llu %llu %llu\n", (unsigned)e->k, (unsigned long long)e->c_min,
		        (unsigned long long)e->c_max, (unsigned long long)tl_hist_eq1_step(e->k, e->c_min, e->c_max));
	}
	if (fclose(m)) {
		free(*out);
		*out = NULL;
		return tl_error("out of memory");
	}
	return 0;
}

int tl_bins_save(const struct tl_bins_file *f, const char *path)
{
	char *text, *tmp;
	size_t len;
	FILE *out;
	int ok;

	if (tl_bins_format(f, &text, &len))
		return -1;
	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		free(text);
		return tl_error("out of memory");
	}
	out = fopen(tmp, "wb");
	if (!out) {
		tl_error_errno("cannot write '%s'", path); /* the user knows the file, not our temporary */
		free(text);
		free(tmp);
		return -1;
	}
	ok = fwrite(text, 1, len, out) == len;
	ok = !fflush(out) && ok;
	ok = !fclose(out) && ok;
	free(text);
	if (!ok || rename(tmp, path)) {
		tl_error_errno("cannot write '%s'", path);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
