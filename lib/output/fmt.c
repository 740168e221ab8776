/*
 * fmt.c - formatting shared by every writer (see fmt.h).
 */
#include "output/fmt.h"

#include <string.h>

#include "output/json.h"

double tl_fmt_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

const char *tl_fmt_dur(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" } };
	int u;

	if (ns < 1000) {
		snprintf(buf, len, "%uns", (unsigned)ns);
		return buf;
	}
	u = ns >= 1000000000 ? 2 : ns >= 1000000 ? 1 : 0;
	for (;;) {
		double v = (double)ns / units[u].scale;
		int dec = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;

		/* 999.6us would print as "1000us": that is 1.00ms */
		if (v >= 999.5 && u < 2) {
			u++;
			continue;
		}
		snprintf(buf, len, "%.*f%s", dec, v, units[u].unit);
		return buf;
	}
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
