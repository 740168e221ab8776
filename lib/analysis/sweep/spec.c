/*
 * spec.c - the campaign specification language (spec.h, docs/SWEEP.md):
 * a hand-written lexer and recursive-descent parser.
 *
 * Lexing: spaces and newlines separate tokens; '#' starts a comment that
 * runs to the end of its line; words are [A-Za-z_][A-Za-z0-9_.-]*;
 * numbers are [-+]digits[.digits][e[-+]digits], and a number followed
 * at once by letters is a word ("10KB"); strings are "..." with \" and
 * \\; the punctuation is = , { } ; @.  RUN takes the rest of its line as
 * it is.  Keywords are upper case and reserved.
 *
 * Every error is "FILE:LINE:COL: what", at the token that is wrong; the
 * parse stops at the first.
 */
#include "analysis/sweep/spec.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/readfile.h"

enum tok { T_EOF, T_WORD, T_NUM, T_STR, T_PUNCT };

struct lex {
	const char *src, *p, *file;
	int line, col;    /* of p */
	int comment_line; /* the last line that ended in a comment */
	enum tok t;       /* the current token */
	int tline, tcol;  /* where it starts */
	char text[256];   /* its text (a string: unescaped) */
	double num;
	int failed;
};

struct parser {
	struct lex x;
	struct tl_spec *s;
	size_t attrs_cap, in_cap, out_cap, mod_cap;
	int seen_ident, seen_in, seen_out, seen_attrs, seen_repeat;
};

static const char *const keywords[] = { "IDENT", "NAME",     "TYP",        "SYNC",   "ASYNC", "IN",
	                                "OUT",   "ENDPOINT", "ATTRIBUTES", "LOOP",   "SUB",   "TO",
	                                "STEP",  "RUN",      "REPEAT",     "MODULE", NULL };

static int is_keyword(const char *w)
{
	for (int i = 0; keywords[i]; i++)
		if (!strcmp(w, keywords[i]))
			return 1;
	return 0;
}

static int fail_at(struct parser *ps, int line, int col, const char *fmt, const char *arg)
{
	char what[512], a[200];

	if (ps->x.failed)
		return -1;
	ps->x.failed = 1;
	snprintf(a, sizeof(a), "%.199s", arg ? arg : ""); /* a token is at most 255 bytes: cut it to fit */
	snprintf(what, sizeof(what), fmt, a);
	return tl_error("specification %s:%d:%d: %s", ps->x.file, line, col, what);
}

static int fail(struct parser *ps, const char *fmt, const char *arg)
{
	return fail_at(ps, ps->x.tline, ps->x.tcol, fmt, arg);
}

static void advance(struct lex *x, size_t n)
{
	while (n-- && *x->p) {
		if (*x->p == '\n')
			x->line++, x->col = 1;
		else
			x->col++;
		x->p++;
	}
}

static void skip_blank(struct lex *x)
{
	for (;;) {
		if (*x->p == '#') {
			x->comment_line = x->line;
			while (*x->p && *x->p != '\n')
				advance(x, 1);
		} else if (*x->p && isspace((unsigned char)*x->p)) {
			advance(x, 1);
		} else {
			return;
		}
	}
}

static int word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* The next token.  0, or -1 (a bad character, a long token, an unclosed string). */
static int next(struct parser *ps)
{
	struct lex *x = &ps->x;
	size_t n = 0;

	skip_blank(x);
	x->tline = x->line;
	x->tcol = x->col;
	x->text[0] = 0;
	if (!*x->p) {
		x->t = T_EOF;
		return 0;
	}
	if (*x->p == '"') {
		advance(x, 1);
		while (*x->p != '"') {
			if (!*x->p || *x->p == '\n')
				return fail(ps, "a string without its closing '\"'%s", NULL);
			if (*x->p == '\\' && (x->p[1] == '"' || x->p[1] == '\\'))
				advance(x, 1);
			if (n + 1 >= sizeof(x->text))
				return fail(ps, "a string longer than %s characters", "255");
			x->text[n++] = *x->p;
			advance(x, 1);
		}
		advance(x, 1);
		x->text[n] = 0;
		x->t = T_STR;
		return 0;
	}
	if (strchr("=,{};@", *x->p)) {
		x->text[0] = *x->p;
		x->text[1] = 0;
		x->t = T_PUNCT;
		advance(x, 1);
		return 0;
	}
	if (isdigit((unsigned char)*x->p) || ((*x->p == '-' || *x->p == '+') && isdigit((unsigned char)x->p[1]))) {
		char *end;
		x->num = strtod(x->p, &end);
		n = (size_t)(end - x->p);
		x->t = T_NUM;
		if (isalpha((unsigned char)*end) || *end == '_') /* "10KB": a word */
			x->t = T_WORD;
	} else if (isalpha((unsigned char)*x->p) || *x->p == '_') {
		x->t = T_WORD;
	} else {
		char c[2] = { *x->p, 0 };
		return fail(ps, "unexpected character '%s'", c);
	}
	if (x->t == T_WORD)
		while (word_char(x->p[n]))
			n++;
	if (n >= sizeof(x->text))
		return fail(ps, "a word or number longer than %s characters", "255");
	memcpy(x->text, x->p, n);
	x->text[n] = 0;
	if (x->t == T_NUM && !isfinite(x->num))
		return fail(ps, "the number '%s' is out of range", x->text);
	advance(x, n);
	return 0;
}

static int is_kw(const struct lex *x, const char *kw)
{
	return x->t == T_WORD && !strcmp(x->text, kw);
}

static int is_punct(const struct lex *x, char c)
{
	return x->t == T_PUNCT && x->text[0] == c;
}

static int section_start(const struct lex *x)
{
	static const char *const s[] = { "IDENT", "IN", "OUT", "ATTRIBUTES", "RUN", "REPEAT", "MODULE", NULL };

	for (int i = 0; s[i]; i++)
		if (is_kw(x, s[i]))
			return 1;
	return x->t == T_EOF;
}

static int expect_punct(struct parser *ps, char c, const char *after)
{
	char what[64];

	if (is_punct(&ps->x, c))
		return next(ps);
	snprintf(what, sizeof(what), "'%c' expected after %s, not '%%s'", c, after);
	return fail(ps, what, ps->x.t == T_EOF ? "the end" : ps->x.text);
}

/* An optional ';' (the seed's grammar ends its rules with one, its example does not). */
static int opt_semicolon(struct parser *ps)
{
	return is_punct(&ps->x, ';') ? next(ps) : 0;
}

static int integer(struct parser *ps, long *v, const char *what)
{
	char msg[96];

	if (ps->x.t != T_NUM || ps->x.num != floor(ps->x.num) || fabs(ps->x.num) > 1e15) {
		snprintf(msg, sizeof(msg), "%s: an integer expected, not '%%s'", what);
		return fail(ps, msg, ps->x.t == T_EOF ? "the end" : ps->x.text);
	}
	*v = (long)ps->x.num;
	return next(ps);
}

/* ---- sections ---- */

static int ident(struct parser *ps)
{
	struct tl_spec *s = ps->s;

	if (ps->seen_ident++)
		return fail(ps, "a second IDENT section%s", NULL);
	if (next(ps) < 0)
		return -1;
	while (is_kw(&ps->x, "NAME") || is_kw(&ps->x, "TYP")) {
		int name = is_kw(&ps->x, "NAME");
		if (next(ps) < 0 || expect_punct(ps, '=', name ? "NAME" : "TYP") < 0)
			return -1;
		if (name) {
			if (ps->x.t != T_WORD && ps->x.t != T_STR && ps->x.t != T_NUM)
				return fail(ps, "NAME = a name or a string expected, not '%s'", ps->x.text);
			snprintf(s->name, sizeof(s->name), "%s", ps->x.text);
			if (next(ps) < 0)
				return -1;
		} else if (is_kw(&ps->x, "SYNC")) {
			if (next(ps) < 0)
				return -1;
		} else if (is_kw(&ps->x, "ASYNC")) {
			s->async = 1;
			if (next(ps) < 0 || integer(ps, &s->async_n, "TYP = ASYNC n") < 0)
				return -1;
		} else {
			return fail(ps, "TYP = SYNC or TYP = ASYNC n expected, not '%s'", ps->x.text);
		}
		if (opt_semicolon(ps) < 0)
			return -1;
	}
	return 0;
}

static int endpoints(struct parser *ps, int out)
{
	struct tl_spec *s = ps->s;
	int *seen = out ? &ps->seen_out : &ps->seen_in;

	if ((*seen)++)
		return fail(ps, out ? "a second OUT section%s" : "a second IN section%s", NULL);
	if (next(ps) < 0)
		return -1;
	while (is_kw(&ps->x, "ENDPOINT")) {
		struct tl_spec_endpoint e;
		size_t *n = out ? &s->nout : &s->nin;
		struct tl_spec_endpoint **arr = out ? &s->out : &s->in;
		size_t *cap = out ? &ps->out_cap : &ps->in_cap;
		int line = ps->x.tline, col = ps->x.tcol;
		if (next(ps) < 0 || integer(ps, &e.id, "ENDPOINT n") < 0 || expect_punct(ps, '=', "ENDPOINT n") < 0 ||
		    integer(ps, &e.packets, "ENDPOINT n = packets") < 0 || opt_semicolon(ps) < 0)
			return -1;
		for (size_t i = 0; i < *n; i++)
			if ((*arr)[i].id == e.id)
				return fail_at(ps, line, col, "this endpoint %s is given twice",
				               out ? "of OUT" : "of IN");
		if (TL_GROW(*arr, *cap, *n + 1) < 0)
			return fail(ps, "out of memory%s", NULL);
		(*arr)[(*n)++] = e;
	}
	if (ps->x.t == T_NUM)
		return fail(ps, "ENDPOINT expected before '%s' (ENDPOINT n = packets)", ps->x.text);
	return 0;
}

static int add_value(struct parser *ps, struct tl_spec_attr *a, size_t *cap, int is_num, double num, const char *str)
{
	if (a->nv >= TL_SPEC_MAX_COMBOS)
		return fail(ps, "an attribute with more than %s values", "100000");
	if (TL_GROW(a->v, *cap, a->nv + 1) < 0 || !(a->v[a->nv].str = strdup(str)))
		return fail(ps, "out of memory%s", NULL);
	a->v[a->nv].is_num = is_num;
	a->v[a->nv].num = num;
	a->nv++;
	return 0;
}

/* values := number TO number [STEP number] | value {',' value} */
static int values(struct parser *ps, struct tl_spec_attr *a)
{
	size_t cap = 0;

	for (;;) {
		int line = ps->x.tline, col = ps->x.tcol;
		if (ps->x.t != T_NUM && ps->x.t != T_STR && !(ps->x.t == T_WORD && !is_keyword(ps->x.text)))
			return fail(ps, "a value (a number, a name or a string) expected, not '%s'",
			            ps->x.t == T_EOF ? "the end" : ps->x.text);
		if (ps->x.t == T_NUM) {
			double from = ps->x.num, to, step = 1;
			if (next(ps) < 0)
				return -1;
			if (!is_kw(&ps->x, "TO")) {
				char b[32];
				snprintf(b, sizeof(b), "%.15g", from);
				if (add_value(ps, a, &cap, 1, from, b) < 0)
					return -1;
			} else {
				if (a->nv)
					return fail(ps, "a range cannot follow a list%s (a, b, c or a TO b STEP c)",
					            NULL);
				if (next(ps) < 0 || ps->x.t != T_NUM)
					return ps->x.failed
					               ? -1
					               : fail(ps, "a number expected after TO, not '%s'", ps->x.text);
				to = ps->x.num;
				if (next(ps) < 0)
					return -1;
				if (is_kw(&ps->x, "STEP")) {
					if (next(ps) < 0 || ps->x.t != T_NUM)
						return ps->x.failed ? -1
						                    : fail(ps, "a number expected after STEP, not '%s'",
						                           ps->x.text);
					step = ps->x.num;
					if (next(ps) < 0)
						return -1;
				}
				if (step <= 0 || (to - from) / step > TL_SPEC_MAX_COMBOS)
					return fail_at(ps, line, col,
					               "the range has a STEP of 0 or below, or over %s values",
					               "100000");
				if (to < from)
					return fail_at(ps, line, col, "the range goes down (a TO b needs a <= b)%s",
					               NULL);
				for (long k = 0; from + (double)k * step <= to + 1e-9 * fabs(step); k++) {
					char b[32];
					double v = from + (double)k * step;
					snprintf(b, sizeof(b), "%.15g", v);
					if (add_value(ps, a, &cap, 1, v, b) < 0)
						return -1;
				}
				return 0;
			}
		} else {
			if (add_value(ps, a, &cap, 0, 0, ps->x.text) < 0 || next(ps) < 0)
				return -1;
		}
		if (!is_punct(&ps->x, ','))
			return 0;
		if (next(ps) < 0)
			return -1;
	}
}

/* attribute := (integer SUB integer | name) '=' values [';'] */
static int attribute(struct parser *ps, int series)
{
	struct tl_spec *s = ps->s;
	struct tl_spec_attr a = { .series = series, .line = ps->x.tline };
	int line = ps->x.tline, col = ps->x.tcol;

	if (ps->x.t == T_NUM) {
		long key, sub;
		if (integer(ps, &key, "an attribute's number") < 0)
			return -1;
		if (!is_kw(&ps->x, "SUB"))
			return fail(ps, "SUB expected after an attribute's number (1002 SUB 1 = ...), not '%s'",
			            ps->x.t == T_EOF ? "the end" : ps->x.text);
		if (next(ps) < 0 || integer(ps, &sub, "SUB n") < 0)
			return -1;
		snprintf(a.name, sizeof(a.name), "%ld.%ld", key, sub);
	} else if (ps->x.t == T_WORD && !is_keyword(ps->x.text)) {
		if (strlen(ps->x.text) >= sizeof(a.name))
			return fail(ps, "an attribute name longer than %s characters", "63");
		snprintf(a.name, sizeof(a.name), "%s", ps->x.text);
		if (next(ps) < 0)
			return -1;
	} else {
		const char *hint = ps->x.comment_line == ps->x.tline - 1 && ps->x.t == T_WORD
		                           ? "'%s' is not an attribute (a comment runs to the end of its line: "
		                             "start each of its lines with '#')"
		                           : "an attribute (NAME = ... or N SUB M = ...) expected, not '%s'";
		return fail(ps, hint, ps->x.t == T_EOF ? "the end" : ps->x.text);
	}
	for (size_t i = 0; i < s->nattrs; i++)
		if (!strcmp(s->attrs[i].name, a.name))
			return fail_at(ps, line, col, "the attribute '%s' is given twice", a.name);
	if (expect_punct(ps, '=', "an attribute's name") < 0 || values(ps, &a) < 0 || opt_semicolon(ps) < 0)
		goto bad;
	if (series < 0 && a.nv > 1) {
		fail_at(ps, line, col, "'%s' has several values outside a LOOP: put it in one", a.name);
		goto bad;
	}
	if (TL_GROW(s->attrs, ps->attrs_cap, s->nattrs + 1) < 0) {
		fail(ps, "out of memory%s", NULL);
		goto bad;
	}
	s->attrs[s->nattrs++] = a;
	return 0;
bad:
	for (size_t i = 0; i < a.nv; i++)
		free(a.v[i].str);
	free(a.v);
	return -1;
}

/* ATTRIBUTES { attribute | LOOP '{' {attribute} '}' | LOOP {attribute} } */
static int attributes(struct parser *ps)
{
	if (ps->seen_attrs++)
		return fail(ps, "a second ATTRIBUTES section%s", NULL);
	if (next(ps) < 0)
		return -1;
	while (!section_start(&ps->x)) {
		if (is_kw(&ps->x, "LOOP")) {
			int series = ps->s->nseries++, line = ps->x.tline, col = ps->x.tcol, braced;
			if (next(ps) < 0)
				return -1;
			braced = is_punct(&ps->x, '{');
			if (braced && next(ps) < 0)
				return -1;
			while (braced ? !is_punct(&ps->x, '}') : !section_start(&ps->x) && !is_kw(&ps->x, "LOOP")) {
				if (braced && ps->x.t == T_EOF)
					return fail_at(ps, line, col, "this LOOP's '{' is not closed by a '}'%s", NULL);
				if (attribute(ps, series) < 0)
					return -1;
			}
			if (braced && next(ps) < 0)
				return -1;
		} else if (attribute(ps, -1) < 0) {
			return -1;
		}
	}
	return 0;
}

static int run_line(struct parser *ps)
{
	struct lex *x = &ps->x;
	const char *end;
	size_t n;

	if (ps->s->run[0])
		return fail(ps, "a second RUN line%s", NULL);
	while (*x->p == ' ' || *x->p == '\t') /* the rest of the line, as it is: no comments, no tokens */
		advance(x, 1);
	end = strchr(x->p, '\n');
	n = end ? (size_t)(end - x->p) : strlen(x->p);
	while (n && isspace((unsigned char)x->p[n - 1]))
		n--;
	if (!n)
		return fail(ps, "RUN needs a command on its line%s", NULL);
	free(ps->s->run);
	if (!(ps->s->run = strndup(x->p, n)))
		return fail(ps, "out of memory%s", NULL);
	advance(x, n);
	return next(ps);
}

static int module(struct parser *ps)
{
	struct tl_spec_module m = { .line = ps->x.tline };
	char *end;

	if (next(ps) < 0)
		return -1;
	if (ps->x.t != T_WORD && ps->x.t != T_STR)
		return fail(ps, "MODULE needs a span's name, not '%s' (MODULE span @ rate)",
		            ps->x.t == T_EOF ? "the end" : ps->x.text);
	if (strlen(ps->x.text) >= sizeof(m.span))
		return fail(ps, "a span name longer than %s characters", "63");
	snprintf(m.span, sizeof(m.span), "%s", ps->x.text);
	if (next(ps) < 0 || expect_punct(ps, '@', "MODULE's span") < 0)
		return -1;
	m.hz = strtod(ps->x.text, &end);
	if ((ps->x.t != T_NUM && (ps->x.t != T_WORD || strcmp(end, "Hz"))) || !(m.hz > 0) || m.hz > 1e9)
		return fail(ps, "MODULE span @ rate: a rate in Hz above 0 expected, not '%s'",
		            ps->x.t == T_EOF ? "the end" : ps->x.text);
	if (next(ps) < 0)
		return -1;
	if (is_kw(&ps->x, "Hz") && next(ps) < 0)
		return -1;
	if (TL_GROW(ps->s->modules, ps->mod_cap, ps->s->nmodules + 1) < 0)
		return fail(ps, "out of memory%s", NULL);
	ps->s->modules[ps->s->nmodules++] = m;
	return opt_semicolon(ps);
}

static int repeat(struct parser *ps)
{
	int line, col;

	if (ps->seen_repeat++)
		return fail(ps, "a second REPEAT%s", NULL);
	if (next(ps) < 0)
		return -1;
	line = ps->x.tline, col = ps->x.tcol;
	if (integer(ps, &ps->s->repeat, "REPEAT n") < 0)
		return -1;
	if (ps->s->repeat < 1 || ps->s->repeat > TL_SPEC_MAX_REPEAT)
		return fail_at(ps, line, col, "REPEAT n: n from 1 to %s", "100000");
	return opt_semicolon(ps);
}

/* Every {name} of the RUN line must name something. */
static int check_placeholders(struct parser *ps)
{
	const struct tl_spec *s = ps->s;

	for (const char *p = s->run; (p = strchr(p, '{')); p++) {
		const char *q = strchr(p, '}');
		char name[TL_SPEC_NAME_MAX];
		int known = 0;
		if (!q || (size_t)(q - p - 1) >= sizeof(name))
			return tl_error("specification %s: the RUN line has a '{' without its '}' (or a name too long)",
			                ps->x.file);
		memcpy(name, p + 1, (size_t)(q - p - 1));
		name[q - p - 1] = 0;
		known = !strcmp(name, "rep") || !strcmp(name, "in") || !strcmp(name, "out");
		for (size_t i = 0; !known && i < s->nattrs; i++)
			known = !strcmp(s->attrs[i].name, name);
		if (!known && (!strncmp(name, "in.", 3) || !strncmp(name, "out.", 4))) {
			long id = atol(strchr(name, '.') + 1);
			const struct tl_spec_endpoint *e = name[0] == 'i' ? s->in : s->out;
			size_t n = name[0] == 'i' ? s->nin : s->nout;
			for (size_t i = 0; !known && i < n; i++)
				known = e[i].id == id;
		}
		if (!known)
			return tl_error("specification %s: the RUN line's {%s} names no attribute (nor rep, in, out, "
			                "in.N, out.N)",
			                ps->x.file, name);
	}
	return 0;
}

int tl_spec_parse(const char *text, const char *file, struct tl_spec *out)
{
	struct parser ps = { .x = { .src = text, .p = text, .file = file, .line = 1, .col = 1, .comment_line = -1 },
		             .s = out };

	memset(out, 0, sizeof(*out));
	out->repeat = 1;
	if (!(out->run = strdup("")))
		return tl_error("out of memory");
	if (next(&ps) < 0)
		goto bad;
	while (ps.x.t != T_EOF) {
		int rc;
		if (is_kw(&ps.x, "IDENT"))
			rc = ident(&ps);
		else if (is_kw(&ps.x, "IN") || is_kw(&ps.x, "OUT"))
			rc = endpoints(&ps, is_kw(&ps.x, "OUT"));
		else if (is_kw(&ps.x, "ATTRIBUTES"))
			rc = attributes(&ps);
		else if (is_kw(&ps.x, "RUN"))
			rc = run_line(&ps);
		else if (is_kw(&ps.x, "REPEAT"))
			rc = repeat(&ps);
		else if (is_kw(&ps.x, "MODULE"))
			rc = module(&ps);
		else if (ps.x.t == T_WORD && ps.x.comment_line == ps.x.tline - 1 && !is_keyword(ps.x.text))
			rc = fail(&ps,
			          "'%s' is not a keyword (a comment runs to the end of its line: start each of its "
			          "lines with '#')",
			          ps.x.text);
		else
			rc = fail(&ps,
			          "a section (IDENT, IN, OUT, ATTRIBUTES, RUN, REPEAT or MODULE) expected, not '%s'",
			          ps.x.text);
		if (rc < 0)
			goto bad;
	}
	if (check_placeholders(&ps) < 0)
		goto bad;
	if (tl_spec_combinations(out) > TL_SPEC_MAX_COMBOS) {
		tl_error("specification %s: over %d combinations of the attributes", file, TL_SPEC_MAX_COMBOS);
		goto bad;
	}
	return 0;
bad:
	tl_spec_release(out);
	return -1;
}

int tl_spec_load(const char *path, struct tl_spec *out)
{
	char *text;
	int rc;

	memset(out, 0, sizeof(*out));
	if (tl_read_text(path, 1 << 20, "the specification", &text) < 0)
		return -1;
	rc = tl_spec_parse(text, path, out);
	free(text);
	return rc;
}

void tl_spec_release(struct tl_spec *s)
{
	for (size_t i = 0; i < s->nattrs; i++) {
		for (size_t j = 0; j < s->attrs[i].nv; j++)
			free(s->attrs[i].v[j].str);
		free(s->attrs[i].v);
	}
	free(s->attrs);
	free(s->in);
	free(s->out);
	free(s->run);
	free(s->modules);
	memset(s, 0, sizeof(*s));
}

/* The product of series k's value counts, saturated above the limit. */
static size_t series_size(const struct tl_spec *s, int k)
{
	size_t n = 1;

	for (size_t i = 0; i < s->nattrs; i++)
		if (s->attrs[i].series == k) {
			n *= s->attrs[i].nv;
			if (n > TL_SPEC_MAX_COMBOS)
				return TL_SPEC_MAX_COMBOS + 1;
		}
	return n;
}

size_t tl_spec_combinations(const struct tl_spec *s)
{
	size_t n = 0;

	if (!s->nseries)
		return 1;
	for (int k = 0; k < s->nseries; k++) {
		n += series_size(s, k);
		if (n > TL_SPEC_MAX_COMBOS)
			return TL_SPEC_MAX_COMBOS + 1;
	}
	return n;
}

void tl_spec_combination(const struct tl_spec *s, size_t i, const struct tl_spec_value **vals)
{
	int k = 0;

	while (k < s->nseries && i >= series_size(s, k))
		i -= series_size(s, k++);
	for (size_t a = s->nattrs; a-- > 0;) { /* the last attribute varies fastest */
		const struct tl_spec_attr *at = &s->attrs[a];
		if (at->series < 0) {
			vals[a] = &at->v[0];
		} else if (at->series != k) {
			vals[a] = NULL;
		} else {
			vals[a] = &at->v[i % at->nv];
			i /= at->nv;
		}
	}
}

char *tl_spec_command(const struct tl_spec *s, const struct tl_spec_value **vals, long rep)
{
	size_t cap = strlen(s->run) + 1, n = 0;
	char *out = malloc(cap);

	if (!out) {
		tl_error("out of memory");
		return NULL;
	}
	for (const char *p = s->run; *p;) {
		char b[64], name[TL_SPEC_NAME_MAX];
		const char *v = NULL, *q;
		size_t len;
		if (*p != '{' || !(q = strchr(p, '}')) || (size_t)(q - p - 1) >= sizeof(name)) {
			b[0] = *p++;
			b[1] = 0;
			v = b;
		} else {
			memcpy(name, p + 1, (size_t)(q - p - 1));
			name[q - p - 1] = 0;
			p = q + 1;
			if (!strcmp(name, "rep"))
				snprintf(b, sizeof(b), "%ld", rep), v = b;
			else if (!strcmp(name, "in") || !strcmp(name, "out"))
				snprintf(b, sizeof(b), "%zu", name[0] == 'i' ? s->nin : s->nout), v = b;
			for (size_t a = 0; !v && a < s->nattrs; a++)
				if (!strcmp(s->attrs[a].name, name)) {
					if (!vals[a]) {
						tl_error("{%s} has no value in this combination (its LOOP is another)",
						         name);
						free(out);
						return NULL;
					}
					v = vals[a]->str;
				}
			if (!v) { /* in.N, out.N: that endpoint's packets (checked at parse) */
				const struct tl_spec_endpoint *e = name[0] == 'i' ? s->in : s->out;
				size_t ne = name[0] == 'i' ? s->nin : s->nout;
				long id = strchr(name, '.') ? atol(strchr(name, '.') + 1) : -1;
				for (size_t i = 0; !v && i < ne; i++)
					if (e[i].id == id)
						snprintf(b, sizeof(b), "%ld", e[i].packets), v = b;
				if (!v)
					v = "";
			}
		}
		len = strlen(v);
		if (TL_GROW(out, cap, n + len + 1) < 0) {
			tl_error("out of memory");
			free(out);
			return NULL;
		}
		memcpy(out + n, v, len);
		n += len;
	}
	out[n] = 0;
	return out;
}
