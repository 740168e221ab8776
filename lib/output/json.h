/*
 * json.h - a small streaming JSON writer to a FILE*, a validator, and the
 * UTF-8 decoder that the writers share.
 *
 * The writer keeps only a fixed stack of open containers (no allocation at
 * all), inserts the commas and the indentation itself, and refuses misuse
 * (a value without a key inside an object, an end that does not match its
 * begin, nesting deeper than TL_JSON_MAX_DEPTH) by recording an error that
 * tl_json_finish() reports; calls after an error are ignored.
 *
 * Strings are escaped so that any bytes can be passed, since names come from
 * the traced program and are untrusted: quotes, backslashes and control
 * characters are escaped, invalid UTF-8 becomes U+FFFD, and '<', '>', '&',
 * U+2028 and U+2029 are written as \u escapes so that the output can also be
 * pasted into an HTML <script> block or a JavaScript source unchanged.
 */
#ifndef TL_JSON_H
#define TL_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TL_JSON_MAX_DEPTH 32

/* tl_json_init() flags */
enum tl_json_flags {
	TL_JSON_PRETTY = 1 << 0, /* newlines and two-space indentation */
};

/* tl_json_begin_*() layout */
enum tl_json_layout {
	TL_JSON_BLOCK = 0,  /* one member per line (when pretty) */
	TL_JSON_INLINE = 1, /* the container and everything in it on one line */
};

struct tl_json {
	FILE *out;
	unsigned flags;
	int depth;
	int inline_from; /* depth of the outermost inline container, 0 if none */
	int after_key;   /* a key was written; the value comes next */
	int error;       /* misuse seen: 0 or one of the messages in json.c */
	int top_done;    /* a complete top-level value was written */
	unsigned char is_object[TL_JSON_MAX_DEPTH + 1];
	unsigned char has_items[TL_JSON_MAX_DEPTH + 1];
};

/* Start writing to `out` (not owned: the caller closes it). */
void tl_json_init(struct tl_json *j, FILE *out, unsigned flags);

/* Containers; layout is enum tl_json_layout. */
void tl_json_begin_object(struct tl_json *j, int layout);
void tl_json_end_object(struct tl_json *j);
void tl_json_begin_array(struct tl_json *j, int layout);
void tl_json_end_array(struct tl_json *j);

/* A member name inside an object; the next call must write its value. */
void tl_json_key(struct tl_json *j, const char *key);

/* Values.  s may hold any bytes; NULL writes null. */
void tl_json_string(struct tl_json *j, const char *s);
void tl_json_string_len(struct tl_json *j, const char *s, size_t len);
void tl_json_int(struct tl_json *j, int64_t v);
void tl_json_uint(struct tl_json *j, uint64_t v);
/* Fixed notation with `decimals` digits (0..17); NaN and infinities write null. */
void tl_json_double(struct tl_json *j, double v, int decimals);
void tl_json_bool(struct tl_json *j, int v);
void tl_json_null(struct tl_json *j);

/* Shorthands for key + value. */
void tl_json_kv_string(struct tl_json *j, const char *key, const char *s);
void tl_json_kv_int(struct tl_json *j, const char *key, int64_t v);
void tl_json_kv_uint(struct tl_json *j, const char *key, uint64_t v);
void tl_json_kv_double(struct tl_json *j, const char *key, double v, int decimals);
void tl_json_kv_bool(struct tl_json *j, const char *key, int v);

/*
 * End the document: write a final newline when pretty, flush `out`, and
 * check that every container was closed and nothing went wrong.
 * Returns 0, or -1 with tl_error set (misuse, or a write error on `out`).
 */
int tl_json_finish(struct tl_json *j);

/*
 * Length (1..4) of the valid UTF-8 sequence at s[0..n) and its code point in
 * *cp, or 0 if the bytes there are not valid UTF-8 (overlong forms,
 * surrogates and values past U+10FFFF are invalid; n == 0 gives 0).
 * Shared with the other writers, which clean untrusted names with it.
 */
size_t tl_utf8_decode(const char *s, size_t n, uint32_t *cp);

/*
 * Check that buf[0..len) is exactly one well-formed JSON value (RFC 8259,
 * surrounding whitespace allowed, strings must be valid UTF-8).  Returns 0,
 * or -1 with tl_error set to what is wrong and its byte offset.  Nesting
 * deeper than 256 is refused.  Used by tests and fuzz targets.
 */
int tl_json_check(const char *buf, size_t len);

/*
 * The number at a path of object keys in a document that tl_json_check()
 * accepted: path {"omp_costs_ns", "barrier", "median"} finds
 * doc.omp_costs_ns.barrier.median.  Keys are compared byte for byte (a key
 * written with escapes does not match).  0 with *v set, or -1 when a key
 * is missing or the value there is not a number.
 */
int tl_json_get_number(const char *buf, size_t len, const char *const *path, int depth, double *v);

#endif
