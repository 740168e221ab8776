/*
 * spec.h - the specification of a measurement campaign (`threadlens
 * sweep`): which program to run, under which combinations of parameters,
 * how often, and which of its spans to measure.  The language is HeiPOET's
 * (seed 003, Appendices A and B) with its defects fixed and generalized;
 * docs/SWEEP.md gives its grammar in EBNF and lists the fixes.
 *
 *   IDENT NAME = multicast TYP = SYNC
 *   IN   ENDPOINT 1 = 1          # one packet in per period
 *   OUT  ENDPOINT 1 = 1
 *        ENDPOINT 2 = 1
 *   ATTRIBUTES
 *     1024 SUB 0 = 10            # fixed: one value
 *     LOOP {
 *       outputs = 2 TO 10 STEP 1 # varied: a range...
 *       mode = fast, safe        # ...or a list, of numbers or names
 *     }
 *   RUN ./mcast --outputs {outputs} --mode {mode} --size {1024.0}
 *   REPEAT 5
 *   MODULE send @ 25             # the span "send", 25 times a second
 *
 * Combinations: attributes outside a LOOP have one value each and hold in
 * every combination; each LOOP block is a series, the cross product of
 * its attributes' values (the first attribute varying slowest); the
 * combinations are the series one after the other (none: one combination
 * of the fixed attributes).  Each runs REPEAT times (default 1).
 *
 * Invariants after a successful parse: every attribute has at least one
 * value; names are unique across the whole specification; every {name}
 * in the RUN line names an attribute (or in, out, in.N, out.N, rep); the
 * combinations number at most TL_SPEC_MAX_COMBOS.
 */
#ifndef TL_SPEC_H
#define TL_SPEC_H

#include <stddef.h>

#define TL_SPEC_NAME_MAX 64
#define TL_SPEC_MAX_COMBOS 100000
#define TL_SPEC_MAX_REPEAT 100000

struct tl_spec_value {
	int is_num; /* a number (num); else a name or a string (str) */
	double num;
	char *str; /* the value as written (numbers too: "2", "0.5") */
};

struct tl_spec_attr {
	char name[TL_SPEC_NAME_MAX]; /* "outputs", or "1002.1" for 1002 SUB 1 */
	struct tl_spec_value *v;
	size_t nv;
	int series; /* -1: fixed; else the LOOP block's index */
	int line;
};

struct tl_spec_endpoint {
	long id, packets;
};

struct tl_spec_module {
	char span[TL_SPEC_NAME_MAX];
	double hz;
	int line;
};

struct tl_spec {
	char name[TL_SPEC_NAME_MAX]; /* IDENT NAME ("" if none) */
	int async;                   /* TYP = ASYNC n: 1 (and async_n); SYNC or absent: 0 */
	long async_n;
	struct tl_spec_endpoint *in, *out;
	size_t nin, nout;
	struct tl_spec_attr *attrs;
	size_t nattrs;
	int nseries;
	char *run; /* the RUN line's command ("" if none) */
	long repeat;
	struct tl_spec_module *modules;
	size_t nmodules;
};

/*
 * Parse a specification's text.  0, or -1 with tl_error set to
 * "specification FILE:LINE:COLUMN: what is wrong" (the first error only).
 */
int tl_spec_parse(const char *text, const char *file, struct tl_spec *out);
int tl_spec_load(const char *path, struct tl_spec *out);
void tl_spec_release(struct tl_spec *s);

/* How many combinations (each run `repeat` times). */
size_t tl_spec_combinations(const struct tl_spec *s);

/*
 * Combination i (0 <= i < tl_spec_combinations): for each attribute, its
 * value in it, or NULL for an attribute of another series.  vals has
 * nattrs entries.
 */
void tl_spec_combination(const struct tl_spec *s, size_t i, const struct tl_spec_value **vals);

/*
 * The RUN line with each {name} replaced by its value in the combination
 * (vals from tl_spec_combination; {rep}: the repetition, from 1), into a
 * new string.  NULL with tl_error set when a name has no value in this
 * combination, or out of memory.
 */
char *tl_spec_command(const struct tl_spec *s, const struct tl_spec_value **vals, long rep);

#endif
