/*
 * json.c - streaming JSON writer and validator (see json.h).
 *
 * Invariants of the writer: has_items[d] says whether the container at
 * depth d already holds a member, so the next one needs a comma; is_object[d]
 * says whether a key is required before a value; after_key is set between a
 * key and its value.  Depth 0 is the top level, where exactly one value may
 * be written.  Nothing is allocated: strings are escaped run by run straight
 * into the FILE*.
 */
#include "output/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

enum {
	ERR_NONE = 0,
	ERR_NEED_KEY,
	ERR_KEY_OUTSIDE_OBJECT,
	ERR_KEY_TWICE,
	ERR_TOO_DEEP,
	ERR_BAD_END,
	ERR_SECOND_TOP,
	ERR_UNCLOSED,
};

static const char *const err_text[] = {
	[ERR_NONE] = "no error",
	[ERR_NEED_KEY] = "a value inside an object needs a key first",
	[ERR_KEY_OUTSIDE_OBJECT] = "a key outside an object",
	[ERR_KEY_TWICE] = "two keys without a value between them",
	[ERR_TOO_DEEP] = "nesting deeper than the writer's limit",
	[ERR_BAD_END] = "an end that does not match the open container",
	[ERR_SECOND_TOP] = "a second top-level value",
	[ERR_UNCLOSED] = "containers left open",
};

size_t tl_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c;
	unsigned lo = 0x80, hi = 0xbf;
	size_t len;
	uint32_t v;

	if (!n)
		return 0;
	c = p[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		unsigned b = p[i];
		if (b < lo || b > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
		v = (v << 6) | (b & 0x3f);
	}
	*cp = v;
	return len;
}

static void indent(struct tl_json *j)
{
	putc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

static int pretty_block(const struct tl_json *j)
{
	return (j->flags & TL_JSON_PRETTY) && !j->inline_from;
}

/* Separator before a member of the current container (key or array value). */
static void separate(struct tl_json *j)
{
	if (j->has_items[j->depth])
		putc(',', j->out);
	if (pretty_block(j))
		indent(j);
	else if ((j->flags & TL_JSON_PRETTY) && j->has_items[j->depth])
		putc(' ', j->out);
	j->has_items[j->depth] = 1;
}

/* Called before every value; returns 0 if the value may be written. */
static int before_value(struct tl_json *j)
{
	if (j->error)
		return -1;
	if (j->after_key) {
		j->after_key = 0;
		return 0;
	}
	if (j->depth == 0) {
		if (j->top_done) {
			j->error = ERR_SECOND_TOP;
			return -1;
		}
		return 0;
	}
	if (j->is_object[j->depth]) {
		j->error = ERR_NEED_KEY;
		return -1;
	}
	separate(j);
	return 0;
}

static void after_value(struct tl_json *j)
{
	if (j->depth == 0)
		j->top_done = 1;
}

void tl_json_init(struct tl_json *j, FILE *out, unsigned flags)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->flags = flags;
}

static void begin(struct tl_json *j, int layout, int object)
{
	if (before_value(j))
		return;
	if (j->depth >= TL_JSON_MAX_DEPTH) {
		j->error = ERR_TOO_DEEP;
		return;
	}
	putc(object ? '{' : '[', j->out);
	j->depth++;
	j->is_object[j->depth] = (unsigned char)object;
	j->has_items[j->depth] = 0;
	if (layout == TL_JSON_INLINE && !j->inline_from)
		j->inline_from = j->depth;
}

static void end(struct tl_json *j, int object)
{
	if (j->error)
		return;
	if (j->depth == 0 || j->is_object[j->depth] != object || j->after_key) {
		j->error = ERR_BAD_END;
		return;
	}
	if (pretty_block(j) && j->has_items[j->depth]) {
		j->depth--;
		indent(j);
		j->depth++;
	}
	putc(object ? '}' : ']', j->out);
	if (j->inline_from == j->depth)
		j->inline_from = 0;
	j->depth--;
	after_value(j);
}

void tl_json_begin_object(struct tl_json *j, int layout)
{
	begin(j, layout, 1);
}

void tl_json_end_object(struct tl_json *j)
{
	end(j, 1);
}

void tl_json_begin_array(struct tl_json *j, int layout)
{
	begin(j, layout, 0);
}

void tl_json_end_array(struct tl_json *j)
{
	end(j, 0);
}

/* Write s[0..n) as a quoted JSON string, escaped as json.h promises. */
static void put_string(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	putc('"', f);
	while (i < n) {
		unsigned c = s[i];
		char esc[8];
		size_t len = 1;
		uint32_t cp = 0;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			len = tl_utf8_decode(str + i, n - i, &cp);
			/* C1 controls and the JavaScript line separators get escaped */
			if (len && !(cp >= 0x80 && cp <= 0x9f) && cp != 0x2028 && cp != 0x2029) {
				i += len;
				continue;
			}
		}
		fwrite(s + run, 1, i - run, f);
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (c >= 0x80 && !len) {
				fputs("\\ufffd", f);
				len = 1;
			} else {
				snprintf(esc, sizeof(esc), "\\u%04x", c >= 0x80 ? (unsigned)cp : c);
				fputs(esc, f);
			}
		}
		i += len;
		run = i;
	}
	fwrite(s + run, 1, i - run, f);
	putc('"', f);
}

void tl_json_key(struct tl_json *j, const char *key)
{
	if (j->error)
		return;
	if (j->depth == 0 || !j->is_object[j->depth]) {
		j->error = ERR_KEY_OUTSIDE_OBJECT;
		return;
	}
	if (j->after_key) {
		j->error = ERR_KEY_TWICE;
		return;
	}
	separate(j);
	put_string(j->out, key, strlen(key));
	fputs(j->flags & TL_JSON_PRETTY ? ": " : ":", j->out);
	j->after_key = 1;
}

void tl_json_string_len(struct tl_json *j, const char *s, size_t len)
{
	if (!s) {
		tl_json_null(j);
		return;
	}
	if (before_value(j))
		return;
	put_string(j->out, s, len);
	after_value(j);
}

void tl_json_string(struct tl_json *j, const char *s)
{
	tl_json_string_len(j, s, s ? strlen(s) : 0);
}

void tl_json_int(struct tl_json *j, int64_t v)
{
	if (before_value(j))
		return;
	fprintf(j->out, "%lld", (long long)v);
	after_value(j);
}

void tl_json_uint(struct tl_json *j, uint64_t v)
{
	if (before_value(j))
		return;
	fprintf(j->out, "%llu", (unsigned long long)v);
	after_value(j);
}

void tl_json_double(struct tl_json *j, double v, int decimals)
{
	if (!isfinite(v)) {
		tl_json_null(j);
		return;
	}
	if (before_value(j))
		return;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	if (v == 0)
		v = 0; /* no "-0" */
	fprintf(j->out, "%.*f", decimals, v);
	after_value(j);
}

void tl_json_bool(struct tl_json *j, int v)
{
	if (before_value(j))
		return;
	fputs(v ? "true" : "false", j->out);
	after_value(j);
}

void tl_json_null(struct tl_json *j)
{
	if (before_value(j))
		return;
	fputs("null", j->out);
	after_value(j);
}

void tl_json_kv_string(struct tl_json *j, const char *key, const char *s)
{
	tl_json_key(j, key);
	tl_json_string(j, s);
}

void tl_json_kv_int(struct tl_json *j, const char *key, int64_t v)
{
	tl_json_key(j, key);
	tl_json_int(j, v);
}

void tl_json_kv_uint(struct tl_json *j, const char *key, uint64_t v)
{
	tl_json_key(j, key);
	tl_json_uint(j, v);
}

void tl_json_kv_double(struct tl_json *j, const char *key, double v, int decimals)
{
	tl_json_key(j, key);
	tl_json_double(j, v, decimals);
}

void tl_json_kv_bool(struct tl_json *j, const char *key, int v)
{
	tl_json_key(j, key);
	tl_json_bool(j, v);
}

int tl_json_finish(struct tl_json *j)
{
	if (!j->error && (j->depth || j->after_key))
		j->error = ERR_UNCLOSED;
	if (j->error)
		return tl_error("cannot write JSON: %s", err_text[j->error]);
	if ((j->flags & TL_JSON_PRETTY) && j->top_done)
		putc('\n', j->out);
	if (fflush(j->out) || ferror(j->out))
		return tl_error_errno("write error");
	return 0;
}

/* ---- validator ---- */

struct checker {
	const unsigned char *p;
	size_t len, pos;
	const char *why;
};

static void skip_ws(struct checker *c)
{
	while (c->pos < c->len &&
	       (c->p[c->pos] == ' ' || c->p[c->pos] == '\t' || c->p[c->pos] == '\n' || c->p[c->pos] == '\r'))
		c->pos++;
}

static int fail(struct checker *c, const char *why)
{
	c->why = why;
	return -1;
}

static int is_digit(struct checker *c)
{
	return c->pos < c->len && c->p[c->pos] >= '0' && c->p[c->pos] <= '9';
}

static int check_number(struct checker *c)
{
	if (c->p[c->pos] == '-')
		c->pos++;
	if (!is_digit(c))
		return fail(c, "bad number");
	if (c->p[c->pos] == '0')
		c->pos++;
	else
		while (is_digit(c))
			c->pos++;
	if (c->pos < c->len && c->p[c->pos] == '.') {
		c->pos++;
		if (!is_digit(c))
			return fail(c, "bad fraction");
		while (is_digit(c))
			c->pos++;
	}
	if (c->pos < c->len && (c->p[c->pos] == 'e' || c->p[c->pos] == 'E')) {
		c->pos++;
		if (c->pos < c->len && (c->p[c->pos] == '+' || c->p[c->pos] == '-'))
			c->pos++;
		if (!is_digit(c))
			return fail(c, "bad exponent");
		while (is_digit(c))
			c->pos++;
	}
	return 0;
}

static int is_hex(unsigned ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static int check_string(struct checker *c)
{
	c->pos++; /* opening quote */
	while (c->pos < c->len) {
		unsigned ch = c->p[c->pos];
		uint32_t cp;
		size_t n;

		if (ch == '"') {
			c->pos++;
			return 0;
		}
		if (ch < 0x20)
			return fail(c, "control character in a string");
		if (ch == '\\') {
			if (++c->pos >= c->len)
				break;
			ch = c->p[c->pos];
			if (ch == 'u') {
				for (int i = 1; i <= 4; i++)
					if (c->pos + i >= c->len || !is_hex(c->p[c->pos + i]))
						return fail(c, "bad \\u escape");
				c->pos += 5;
			} else if (strchr("\"\\/bfnrt", (int)ch) && ch) {
				c->pos++;
			} else {
				return fail(c, "bad escape");
			}
			continue;
		}
		n = tl_utf8_decode((const char *)c->p + c->pos, c->len - c->pos, &cp);
		if (!n)
			return fail(c, "invalid UTF-8 in a string");
		c->pos += n;
	}
	return fail(c, "unterminated string");
}

static int check_literal(struct checker *c, const char *word)
{
	size_t n = strlen(word);
	if (c->len - c->pos < n || memcmp(c->p + c->pos, word, n))
		return fail(c, "unexpected character");
	c->pos += n;
	return 0;
}

static int check_value(struct checker *c, int depth)
{
	unsigned ch;
	int object;

	skip_ws(c);
	if (c->pos >= c->len)
		return fail(c, "unexpected end");
	ch = c->p[c->pos];
	if (ch == '"')
		return check_string(c);
	if (ch == '-' || (ch >= '0' && ch <= '9'))
		return check_number(c);
	if (ch == 't')
		return check_literal(c, "true");
	if (ch == 'f')
		return check_literal(c, "false");
	if (ch == 'n')
		return check_literal(c, "null");
	if (ch != '{' && ch != '[')
		return fail(c, "unexpected character");
	if (depth >= 256)
		return fail(c, "nesting too deep");
	object = ch == '{';
	c->pos++;
	skip_ws(c);
	if (c->pos < c->len && c->p[c->pos] == (object ? '}' : ']')) {
		c->pos++;
		return 0;
	}
	for (;;) {
		if (object) {
			skip_ws(c);
			if (c->pos >= c->len || c->p[c->pos] != '"')
				return fail(c, "expected a key");
			if (check_string(c))
				return -1;
			skip_ws(c);
			if (c->pos >= c->len || c->p[c->pos] != ':')
				return fail(c, "expected ':'");
			c->pos++;
		}
		if (check_value(c, depth + 1))
			return -1;
		skip_ws(c);
		if (c->pos >= c->len)
			return fail(c, "unexpected end");
		ch = c->p[c->pos++];
		if (ch == (object ? '}' : ']'))
			return 0;
		if (ch != ',')
			return fail(c, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

int tl_json_check(const char *buf, size_t len)
{
	struct checker c = { (const unsigned char *)buf, len, 0, NULL };

	if (!check_value(&c, 0)) {
		skip_ws(&c);
		if (c.pos == c.len)
			return 0;
		c.why = "trailing data after the value";
	}
	return tl_error("invalid JSON at byte %zu: %s", c.pos, c.why);
}

/* ---- reading values out of a checked document ---- */

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Past the string at p (its opening quote). */
static const char *past_string(const char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p < end ? p + 1 : end;
}

/* Past the value at p; the document is well formed (tl_json_check). */
static const char *past_value(const char *p, const char *end)
{
	p = ws(p, end);
	if (p >= end)
		return end;
	if (*p == '"')
		return past_string(p, end);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p = ws(p + 1, end);
		while (p < end && *p != close) {
			if (close == '}') {
				p = ws(past_string(p, end), end) + 1; /* the key and its ':' */
			}
			p = ws(past_value(p, end), end);
			if (p < end && *p == ',')
				p = ws(p + 1, end);
		}
		return p < end ? p + 1 : end;
	}
	while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
		p++;
	return p;
}

int tl_json_get_number(const char *buf, size_t len, const char *const *path, int depth, double *v)
{
	const char *p = buf, *end = buf + len;
	char num[64];
	size_t n;

	for (int k = 0; k < depth; k++) {
		size_t kl = strlen(path[k]);
		p = ws(p, end);
		if (p >= end || *p != '{')
			return -1;
		p = ws(p + 1, end);
		for (;;) {
			const char *key = p + 1, *after;
			if (p >= end || *p != '"')
				return -1;
			after = past_string(p, end);
			p = ws(ws(after, end) + 1, end); /* past the ':' */
			if ((size_t)(after - 1 - key) == kl && !memcmp(key, path[k], kl))
				break;
			p = ws(past_value(p, end), end);
			if (p >= end || *p != ',')
				return -1;
			p = ws(p + 1, end);
		}
	}
	p = ws(p, end);
	n = (size_t)(past_value(p, end) - p);
	if (!n || n >= sizeof(num) || !(*p == '-' || (*p >= '0' && *p <= '9')))
		return -1;
	memcpy(num, p, n);
	num[n] = 0;
	*v = strtod(num, NULL);
	return 0;
}
