/*
 * fmt.c - formatting shared by every writer (see fmt.h).
 */
#include "output/fmt.h"

#include <math.h>
#include <string.h>

#include "output/json.h"

double tl_fmt_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

const char *tl_fmt_dur_sig(double ns, int digits, char *buf, size_t len)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" } };
	double a = fabs(ns), half = 0.5, v, av;
	int u = 0, dec, whole = 1;

	if (digits < 2)
		digits = 2;
	if (digits > 9)
		digits = 9;
	for (int i = 0; i < digits; i++)
		half /= 10;
	/* the largest unit in which the value, rounded, is at least 1: 999.96us is "1.000ms" at 4 digits */
	for (int k = 3; k > 0 && !u; k--)
		if (a >= units[k].scale * (1 - half))
			u = k;
	v = ns / units[u].scale;
	av = fabs(v);
	/* digits before the point after rounding to `digits` significant ones */
	for (double lim = 10 * (1 - half); av >= lim && whole < digits; lim *= 10)
		whole++;
	dec = u == 0 ? 0 : digits - whole;
	snprintf(buf, len, "%.*f%s", dec, v, units[u].unit);
	return buf;
}

const char *tl_fmt_dur(uint64_t ns, char *buf, size_t len)
{
	return tl_fmt_dur_sig((double)ns, 3, buf, len);
}

size_t tl_fmt_clean_name(const char *in, char *out, size_t len)
{
	size_t o = 0, chars = 0, n = strlen(in);

	if (!len)
		return 0;
	for (size_t i = 0; i < n;) {
		unsigned c = (unsigned char)in[i];
		uint32_t cp;
		size_t sl = tl_utf8_decode(in + i, n - i, &cp);

		if (!sl || c < 0x20 || c == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
			sl = sl ? sl : 1;
			if (o + 1 >= len)
				break;
			out[o++] = '?';
		} else {
			if (o + sl >= len)
				break;
			memcpy(out + o, in + i, sl);
			o += sl;
		}
		i += sl;
		chars++;
	}
	out[o] = 0;
	return chars;
}

size_t tl_fmt_name_cut(const char *in, size_t cols, char *out, size_t len)
{
	size_t n = tl_fmt_clean_name(in ? in : "", out, len), o = 0;

	if (n <= cols)
		return n;
	if (!cols) {
		out[0] = 0;
		return 0;
	}
	/* out holds valid UTF-8 only, so continuation bytes are 10xxxxxx */
	for (size_t c = 0; c + 1 < cols; c++) {
		o++;
		while ((out[o] & 0xc0) == 0x80)
			o++;
	}
	out[o++] = '~';
	out[o] = 0;
	return cols;
}

void tl_fmt_put_name(FILE *f, const char *in, size_t cols)
{
	char buf[1024];
	size_t n = tl_fmt_name_cut(in, cols, buf, sizeof(buf));

	fputs(buf, f);
	for (; n < cols; n++)
		putc(' ', f);
}

void tl_fmt_csv_cell(FILE *f, const char *s, int first)
{
	char clean[4 * 256 + 8]; /* cells of up to 256 bytes, each escaped to at most 4 */
	int quote, formula;

	tl_fmt_clean_name(s, clean, sizeof(clean));
	formula = strchr("=+-@", clean[0]) && clean[0];
	quote = formula || strpbrk(clean, ",\"") != NULL;
	if (!first)
		putc(',', f);
	if (!quote) {
		fputs(clean, f);
		return;
	}
	putc('"', f);
	if (formula)
		putc('\'', f);
	for (const char *p = clean; *p; p++) {
		if (*p == '"')
			putc('"', f);
		putc(*p, f);
	}
	putc('"', f);
}

/* The columns of s: its UTF-8 characters (continuation bytes do not count). */
static size_t cols_of(const char *s)
{
	size_t c = 0;

	for (; *s; s++)
		c += ((unsigned char)*s & 0xC0) != 0x80;
	return c;
}

void tl_fmt_wrap(FILE *f, const char *prefix, const char *text, int width)
{
	char clean[4096];
	int indent = (int)cols_of(prefix), avail = width - indent;
	const char *p = clean;

	tl_fmt_clean_name(text, clean, sizeof(clean));
	if (avail < 20)
		avail = 20;
	fputs(prefix, f);
	for (;;) {
		const char *q = p, *cut = NULL;
		int cols = 0;

		/* walk at most avail characters; remember the last space seen */
		while (*q) {
			if (*q == ' ')
				cut = q;
			if (cols == avail)
				break;
			q++;
			while ((*q & 0xc0) == 0x80)
				q++;
			cols++;
		}
		if (!*q) {
			fputs(p, f);
			break;
		}
		if (!cut || cut == p)
			cut = q; /* one word longer than the line: cut it at the line's end */
		fwrite(p, 1, (size_t)(cut - p), f);
		fprintf(f, "\n%*s", indent, "");
		p = *cut == ' ' ? cut + 1 : cut;
	}
	putc('\n', f);
}

void tl_fmt_wrap_items(FILE *f, const char *prefix, const char *const *items, size_t n, int width)
{
	size_t indent = cols_of(prefix), col = indent;

	fputs(prefix, f);
	for (size_t i = 0; i < n; i++) {
		size_t c = cols_of(items[i]);

		if (i && col + 1 + c > (size_t)width) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (i) {
			putc(' ', f);
			col++;
		}
		fputs(items[i], f);
		col += c;
	}
	putc('\n', f);
}
