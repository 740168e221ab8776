/*
 * harness.h - a minimal unit-test harness, header only.
 *
 * Each tests/unit/test_X.c defines test functions with TEST(name), lists
 * them in a RUN_TESTS(...) call in main, and becomes its own program.
 * A failed CHECK prints file:line and the expression, marks the test failed
 * and continues.  The program prints one line per test and exits non-zero
 * if any test failed.  scripts/check.sh counts the "ok"/"FAIL" lines.
 */
#ifndef TL_HARNESS_H
#define TL_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int harness_failed;

#define TEST(name) static void name(void)

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			harness_failed = 1;                                                        \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                                           \
	do {                                                                                                         \
		long long va_ = (long long)(a), vb_ = (long long)(b);                                                \
		if (va_ != vb_) {                                                                                    \
			fprintf(stderr, "  %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, va_, \
			        vb_);                                                                                \
			harness_failed = 1;                                                                          \
		}                                                                                                    \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                                                          \
	do {                                                                                                        \
		const char *sa_ = (a), *sb_ = (b);                                                                  \
		if (!sa_ || !sb_ || strcmp(sa_, sb_)) {                                                             \
			fprintf(stderr, "  %s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, \
			        sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");                                        \
			harness_failed = 1;                                                                         \
		}                                                                                                   \
	} while (0)

/* The text hay (NULL fails) holds needle, or (CHECK_LACKS) does not. */
#define CHECK_HAS(hay, needle)                                                                 \
	do {                                                                                   \
		if (!(hay) || !strstr((hay), (needle))) {                                      \
			fprintf(stderr, "  %s:%d: missing: %s\n", __FILE__, __LINE__, needle); \
			harness_failed = 1;                                                    \
		}                                                                              \
	} while (0)

#define CHECK_LACKS(hay, needle)                                                                  \
	do {                                                                                      \
		if ((hay) && strstr((hay), (needle))) {                                           \
			fprintf(stderr, "  %s:%d: unexpected: %s\n", __FILE__, __LINE__, needle); \
			harness_failed = 1;                                                       \
		}                                                                                 \
	} while (0)

/* The widest line of s, in bytes (columns for ASCII text); 0 for NULL. */
static inline int harness_widest(const char *s)
{
	int most = 0;

	for (const char *p = s, *nl; p && *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			nl = p + strlen(p);
		if (nl - p > most)
			most = (int)(nl - p);
		if (!*nl)
			break;
	}
	return most;
}

typedef void (*harness_fn)(void);

static inline int harness_run(const char *names, harness_fn *fns, int n)
{
	int failures = 0;
	char buf[4096];
	char *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", names);
	tok = strtok_r(buf, ", ", &save);
	for (int i = 0; i < n; i++) {
		harness_failed = 0;
		fns[i]();
		printf("%s %s\n", harness_failed ? "FAIL" : "ok", tok ? tok : "?");
		fflush(stdout);
		failures += harness_failed;
		tok = strtok_r(NULL, ", ", &save);
	}
	return failures ? 1 : 0;
}

#define RUN_TESTS(...)                                                                         \
	do {                                                                                   \
		harness_fn fns_[] = { __VA_ARGS__ };                                           \
		return harness_run(#__VA_ARGS__, fns_, (int)(sizeof(fns_) / sizeof(fns_[0]))); \
	} while (0)

#endif
