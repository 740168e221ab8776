/*
 * test_json.c - the streaming JSON writer and the validator (lib/output/json.c):
 * exact output for compact and pretty layouts, escaping of hostile and
 * broken strings, numbers, misuse detection, and the validator on good and
 * bad documents.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "harness.h"
#include "output/json.h"

struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct tl_json j;
};

static void mem_open(struct mem *m, unsigned flags)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	tl_json_init(&m->j, m->f, flags);
}

/* Finish the document; returns tl_json_finish()'s result, text in m->buf. */
static int mem_close(struct mem *m)
{
	int rc = tl_json_finish(&m->j);
	fclose(m->f);
	return rc;
}

/* One string value, compact; returns the malloc'd output. */
#define ONE_LIT(lit) one_string(lit, sizeof(lit) - 1)

static char *one_string(const char *s, size_t len)
{
	struct mem m;
	mem_open(&m, 0);
	tl_json_string_len(&m.j, s, len);
	mem_close(&m);
	return m.buf;
}

TEST(test_compact)
{
	struct mem m;

	mem_open(&m, 0);
	tl_json_begin_object(&m.j, TL_JSON_BLOCK);
	tl_json_kv_string(&m.j, "a", "x");
	tl_json_kv_int(&m.j, "b", -5);
	tl_json_kv_uint(&m.j, "c", UINT64_MAX);
	tl_json_key(&m.j, "d");
	tl_json_begin_array(&m.j, TL_JSON_BLOCK);
	tl_json_bool(&m.j, 1);
	tl_json_bool(&m.j, 0);
	tl_json_null(&m.j);
	tl_json_begin_object(&m.j, TL_JSON_BLOCK);
	tl_json_end_object(&m.j);
	tl_json_begin_array(&m.j, TL_JSON_INLINE);
	tl_json_end_array(&m.j);
	tl_json_end_array(&m.j);
	tl_json_kv_double(&m.j, "e", 1.0 / 3, 3);
	tl_json_string(&m.j, NULL); /* no key: refused */
	tl_json_end_object(&m.j);
	CHECK_EQ_INT(mem_close(&m), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot write JSON: a value inside an object needs a key first");
	free(m.buf);

	mem_open(&m, 0);
	tl_json_begin_object(&m.j, TL_JSON_BLOCK);
	tl_json_kv_string(&m.j, "a", "x");
	tl_json_kv_int(&m.j, "b", -5);
	tl_json_kv_uint(&m.j, "c", UINT64_MAX);
	tl_json_key(&m.j, "d");
	tl_json_begin_array(&m.j, TL_JSON_BLOCK);
	tl_json_bool(&m.j, 1);
	tl_json_bool(&m.j, 0);
	tl_json_null(&m.j);
	tl_json_begin_object(&m.j, TL_JSON_BLOCK);
	tl_json_end_object(&m.j);
	tl_json_begin_array(&m.j, TL_JSON_INLINE);
	tl_json_end_array(&m.j);
	tl_json_end_array(&m.j);
	tl_json_kv_double(&m.j, "e", 1.0 / 3, 3);
	tl_json_kv_string(&m.j, "f", NULL);
	tl_json_end_object(&m.j);
	CHECK_EQ_INT(mem_close(&m), 0);
	CHECK_EQ_STR(m.buf, "{\"a\":\"x\",\"b\":-5,\"c\":18446744073709551615,\"d\":[true,false,null,{},[]],"
	                    "\"e\":0.333,\"f\":null}");
	CHECK_EQ_INT(tl_json_check(m.buf, m.len), 0);
	free(m.buf);
}

TEST(test_pretty)
{
	struct mem m;

	mem_open(&m, TL_JSON_PRETTY);
	tl_json_begin_object(&m.j, TL_JSON_BLOCK);
	tl_json_kv_int(&m.j, "n", 1);
	tl_json_key(&m.j, "list");
	tl_json_begin_array(&m.j, TL_JSON_BLOCK);
	tl_json_begin_object(&m.j, TL_JSON_INLINE);
	tl_json_kv_int(&m.j, "x", 1);
	tl_json_key(&m.j, "y");
	tl_json_begin_array(&m.j, TL_JSON_BLOCK); /* inside an inline container: inline too */
	tl_json_int(&m.j, 2);
	tl_json_int(&m.j, 3);
	tl_json_end_array(&m.j);
	tl_json_end_object(&m.j);
	tl_json_int(&m.j, 4);
	tl_json_end_array(&m.j);
	tl_json_key(&m.j, "empty");
	tl_json_begin_array(&m.j, TL_JSON_BLOCK);
	tl_json_end_array(&m.j);
	tl_json_end_object(&m.j);
	CHECK_EQ_INT(mem_close(&m), 0);
	CHECK_EQ_STR(m.buf, "{\n"
	                    "  \"n\": 1,\n"
	                    "  \"list\": [\n"
	                    "    {\"x\": 1, \"y\": [2, 3]},\n"
	                    "    4\n"
	                    "  ],\n"
	                    "  \"empty\": []\n"
	                    "}\n");
	CHECK_EQ_INT(tl_json_check(m.buf, m.len), 0);
	free(m.buf);
}

TEST(test_escaping)
{
	char *s;
	static const char evil[] = "\"<img src=x onerror=alert(1)>\n\x01";

	s = one_string(evil, strlen(evil));
	CHECK_EQ_STR(s, "\"\\\"\\u003cimg src=x onerror=alert(1)\\u003e\\n\\u0001\"");
	CHECK_EQ_INT(tl_json_check(s, strlen(s)), 0);
	free(s);

	s = ONE_LIT("a\\b/c\t\r\b\f\x7f&");
	CHECK_EQ_STR(s, "\"a\\\\b/c\\t\\r\\b\\f\\u007f\\u0026\"");
	free(s);

	/* an embedded NUL is data, not the end */
	s = ONE_LIT("a\0b");
	CHECK_EQ_STR(s, "\"a\\u0000b\"");
	free(s);

	/* valid UTF-8 passes through; C1 controls and JS line separators are escaped */
	s = ONE_LIT("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc2\x85\xe2\x80\xa8");
	CHECK_EQ_STR(s, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\u0085\\u2028\"");
	CHECK_EQ_INT(tl_json_check(s, strlen(s)), 0);
	free(s);

	/* broken UTF-8: lone continuation, truncated sequence, overlong, surrogate, > U+10FFFF */
	s = ONE_LIT("\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xff");
	CHECK_EQ_STR(s, "\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
	                "\\ufffd\\ufffd\\ufffd\\ufffd|\\ufffd\"");
	CHECK_EQ_INT(tl_json_check(s, strlen(s)), 0);
	free(s);

	/* a sequence cut by the end of the buffer */
	s = ONE_LIT("ab\xe2\x82");
	CHECK_EQ_STR(s, "\"ab\\ufffd\\ufffd\"");
	free(s);

	/* keys are escaped the same way */
	{
		struct mem m;
		mem_open(&m, 0);
		tl_json_begin_object(&m.j, TL_JSON_BLOCK);
		tl_json_kv_int(&m.j, "k\"\n", 1);
		tl_json_end_object(&m.j);
		CHECK_EQ_INT(mem_close(&m), 0);
		CHECK_EQ_STR(m.buf, "{\"k\\\"\\n\":1}");
		free(m.buf);
	}
}

/* Every single byte value, and every pair, gives valid JSON. */
TEST(test_escaping_exhaustive)
{
	char in[2];

	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			char *s;
			in[0] = (char)a;
			in[1] = (char)b;
			s = one_string(in, 2);
			if (tl_json_check(s, strlen(s))) {
				fprintf(stderr, "  bytes %02x %02x: %s\n", a, b, tl_error_msg());
				harness_failed = 1;
				free(s);
				return;
			}
			free(s);
		}
}

TEST(test_numbers)
{
	struct mem m;

	mem_open(&m, 0);
	tl_json_begin_array(&m.j, TL_JSON_BLOCK);
	tl_json_double(&m.j, 15.0, 1);
	tl_json_double(&m.j, -0.0, 2);
	tl_json_double(&m.j, 2.675, 0);
	tl_json_double(&m.j, NAN, 3);
	tl_json_double(&m.j, INFINITY, 3);
	tl_json_double(&m.j, 1.5, -4);
	tl_json_int(&m.j, INT64_MIN);
	tl_json_end_array(&m.j);
	CHECK_EQ_INT(mem_close(&m), 0);
	CHECK_EQ_STR(m.buf, "[15.0,0.00,3,null,null,2,-9223372036854775808]");
	CHECK_EQ_INT(tl_json_check(m.buf, m.len), 0);
	free(m.buf);
}

TEST(test_misuse)
{
	struct mem m;

	mem_open(&m, 0);
	tl_json_begin_array(&m.j, TL_JSON_BLOCK);
	tl_json_end_object(&m.j);
	CHECK_EQ_INT(mem_close(&m), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot write JSON: an end that does not match the open container");
	free(m.buf);

	mem_open(&m, 0);
	tl_json_begin_array(&m.j, TL_JSON_BLOCK);
	tl_json_key(&m.j, "k");
	CHECK_EQ_INT(mem_close(&m), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot write JSON: a key outside an object");
	free(m.buf);

	mem_open(&m, 0);
	tl_json_begin_object(&m.j, TL_JSON_BLOCK);
	tl_json_key(&m.j, "k");
	tl_json_end_object(&m.j);
	CHECK_EQ_INT(mem_close(&m), -1);
	free(m.buf);

	mem_open(&m, 0);
	tl_json_begin_object(&m.j, TL_JSON_BLOCK);
	CHECK_EQ_INT(mem_close(&m), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot write JSON: containers left open");
	free(m.buf);

	mem_open(&m, 0);
	tl_json_int(&m.j, 1);
	tl_json_int(&m.j, 2);
	CHECK_EQ_INT(mem_close(&m), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot write JSON: a second top-level value");
	free(m.buf);

	mem_open(&m, 0);
	for (int i = 0; i < TL_JSON_MAX_DEPTH + 1; i++)
		tl_json_begin_array(&m.j, TL_JSON_BLOCK);
	CHECK_EQ_INT(mem_close(&m), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot write JSON: nesting deeper than the writer's limit");
	/* the writer stopped at the limit: nothing past it was written */
	CHECK_EQ_INT(m.len, TL_JSON_MAX_DEPTH);
	free(m.buf);

	/* a write error on the stream is reported */
	{
		FILE *f = fopen("/dev/full", "w");
		struct tl_json j;
		if (f) {
			setvbuf(f, NULL, _IONBF, 0);
			tl_json_init(&j, f, 0);
			tl_json_string(&j, "x");
			CHECK_EQ_INT(tl_json_finish(&j), -1);
			CHECK(!strncmp(tl_error_msg(), "write error: ", 13));
			fclose(f);
		}
	}
}

TEST(test_check)
{
	static const char *const good[] = {
		"0",        "-0.5e+10", " {\"a\" : [1, 2.0, true, false, null, \"\\u00e9\\n\"]} ",
		"[]",       "{}",       "\"\xc3\xa9\"",
		"[[[[]]]]",
	};
	static const char *const bad[] = {
		"",      "01",       "1.",      "-",         "[1,]",  "{\"a\":1,}", "{a:1}",
		"[1 2]", "\"\x01\"", "\"\\x\"", "\"\\u12\"", "\"abc", "\"\xff\"",   "tru",
		"nul",   "1 2",      "{\"a\"}", "[",         "+1",    ".5",
	};
	char deep[600];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (tl_json_check(good[i], strlen(good[i]))) {
			fprintf(stderr, "  good[%zu] refused: %s\n", i, tl_error_msg());
			harness_failed = 1;
		}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!tl_json_check(bad[i], strlen(bad[i]))) {
			fprintf(stderr, "  bad[%zu] accepted: %s\n", i, bad[i]);
			harness_failed = 1;
		}
	CHECK_EQ_INT(tl_json_check("[1,]", 4), -1);
	CHECK_EQ_STR(tl_error_msg(), "invalid JSON at byte 3: unexpected character");
	/* a NUL inside the buffer is not the end of it */
	CHECK_EQ_INT(tl_json_check("1\0", 2), -1);
	memset(deep, '[', 300);
	memset(deep + 300, ']', 300);
	CHECK_EQ_INT(tl_json_check(deep, 600), -1);
	CHECK_EQ_INT(tl_json_check(deep + 100, 400), 0);
}

/* Numbers by key path in a checked document; missing keys, non-numbers, escaped keys refused. */
TEST(test_get_number)
{
	static const char doc[] = "{\"a\": {\"x\": [1, {\"y\": 2}], \"b\": {\"median\": 12.5, \"s\": \"}\\\"{\"}},"
	                          " \"c\": -3e2, \"t\": true, \"e\\u0041\": 1}";
	const char *ab[3] = { "a", "b", "median" }, *c[1] = { "c" }, *t[1] = { "t" }, *no[2] = { "a", "z" };
	const char *as[3] = { "a", "b", "s" }, *esc[1] = { "eA" }, *deep[2] = { "c", "x" };
	double v = 0;

	CHECK_EQ_INT(tl_json_check(doc, sizeof(doc) - 1), 0);
	CHECK_EQ_INT(tl_json_get_number(doc, sizeof(doc) - 1, ab, 3, &v), 0);
	CHECK(v == 12.5);
	CHECK_EQ_INT(tl_json_get_number(doc, sizeof(doc) - 1, c, 1, &v), 0);
	CHECK(v == -300);
	CHECK_EQ_INT(tl_json_get_number(doc, sizeof(doc) - 1, t, 1, &v), -1);
	CHECK_EQ_INT(tl_json_get_number(doc, sizeof(doc) - 1, no, 2, &v), -1);
	CHECK_EQ_INT(tl_json_get_number(doc, sizeof(doc) - 1, as, 3, &v), -1);
	CHECK_EQ_INT(tl_json_get_number(doc, sizeof(doc) - 1, esc, 1, &v), -1);
	CHECK_EQ_INT(tl_json_get_number(doc, sizeof(doc) - 1, deep, 2, &v), -1);
}

int main(void)
{
	RUN_TESTS(test_compact, test_pretty, test_escaping, test_escaping_exhaustive, test_numbers, test_misuse,
	          test_check, test_get_number);
}
