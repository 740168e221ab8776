/*
 * directives.c - the directives file of `threadlens predict` (predict.h):
 * "TASK = [#pragma omp] DIRECTIVE [CLAUSES]" a line.
 *
 * Grammar (spaces anywhere between tokens):
 *   line      := [TASK '=' directive] ['#' comment]
 *   directive := ["#pragma" "omp"] ("parallel" ["for"] | "for" | "critical" | "barrier" | "single") clause*
 *   clause    := "num_threads(" N ")" | "schedule(" KIND ["," N] ")"
 * A "#" that starts a line (after spaces) or follows a directive starts a
 * comment, except the "#pragma" of a directive.  Each error names the file
 * and the line: "directives s.omp, line 2: unknown directive ... 'paralel'".
 */
#include "analysis/predict/predict.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/readfile.h"

struct lex {
	const char *p, *file;
	int line;
};

static void spaces(struct lex *x)
{
	while (*x->p == ' ' || *x->p == '\t' || *x->p == '\r')
		x->p++;
}

/* The next word ([A-Za-z0-9_.-]+) into w; its length (0: none). */
static size_t word(struct lex *x, char *w, size_t cap)
{
	size_t n = 0;

	spaces(x);
	while (isalnum((unsigned char)x->p[n]) || x->p[n] == '_' || x->p[n] == '.' || x->p[n] == '-')
		n++;
	if (n && n < cap) {
		memcpy(w, x->p, n);
		w[n] = 0;
	}
	x->p += n;
	return n < cap ? n : 0;
}

static int fail(const struct lex *x, const char *what, const char *arg)
{
	return tl_error("directives %s, line %d: %s%s%s%s", x->file, x->line, what, arg ? " '" : "", arg ? arg : "",
	                arg ? "'" : "");
}

static int expect(struct lex *x, char c, const char *clause)
{
	spaces(x);
	if (*x->p != c) {
		char what[64];
		snprintf(what, sizeof(what), "'%c' expected in %s", c, clause);
		return fail(x, what, NULL);
	}
	x->p++;
	return 0;
}

/* A number 1..1000000 of a clause. */
static int number(struct lex *x, const char *clause, int *v)
{
	char *end;
	long n;

	spaces(x);
	n = strtol(x->p, &end, 10);
	if (end == x->p || n < 1 || n > 1000000) {
		char what[64];
		snprintf(what, sizeof(what), "a number from 1 expected in %s", clause);
		return fail(x, what, NULL);
	}
	x->p = end;
	*v = (int)n;
	return 0;
}

static int clauses(struct lex *x, struct tl_directive *d)
{
	char w[32];

	for (;;) {
		spaces(x);
		if (!*x->p || *x->p == '\n' || *x->p == '#')
			return 0;
		if (!word(x, w, sizeof(w)))
			return fail(x, "unexpected text", NULL);
		if (!strcmp(w, "num_threads") && (d->kinds & TL_DIR_PARALLEL)) {
			if (expect(x, '(', "num_threads") || number(x, "num_threads", &d->num_threads) ||
			    expect(x, ')', "num_threads"))
				return -1;
		} else if (!strcmp(w, "schedule") && (d->kinds & TL_DIR_FOR)) {
			if (expect(x, '(', "schedule") || !word(x, w, sizeof(w)))
				return fail(x, "a kind expected in schedule: static, dynamic or guided", NULL);
			if (!strcmp(w, "static"))
				d->schedule = TL_SCHED_STATIC;
			else if (!strcmp(w, "dynamic"))
				d->schedule = TL_SCHED_DYNAMIC;
			else if (!strcmp(w, "guided"))
				d->schedule = TL_SCHED_GUIDED;
			else
				return fail(x, "unknown schedule (static, dynamic or guided)", w);
			spaces(x);
			if (*x->p == ',') {
				x->p++;
				if (number(x, "schedule", &d->chunk))
					return -1;
			}
			if (expect(x, ')', "schedule"))
				return -1;
		} else {
			return fail(x, "unknown or misplaced clause", w);
		}
	}
}

static int one_line(struct lex *x, struct tl_directives *out, size_t *cap)
{
	struct tl_directive d = { .line = x->line };
	char w[64];

	spaces(x);
	if (!*x->p || *x->p == '\n' || *x->p == '#')
		return 0;
	if (!word(x, d.task, sizeof(d.task)))
		return fail(x, "a task name expected", NULL);
	if (expect(x, '=', "a directive line (TASK = DIRECTIVE)"))
		return -1;
	spaces(x);
	if (!strncmp(x->p, "#pragma", 7)) {
		x->p += 7;
		if (!word(x, w, sizeof(w)) || strcmp(w, "omp"))
			return fail(x, "'#pragma omp' expected", NULL);
	}
	if (!word(x, w, sizeof(w)))
		return fail(x, "a directive expected: parallel, for, critical, barrier or single", NULL);
	if (!strcmp(w, "parallel")) {
		const char *at = x->p;
		char w2[16];
		d.kinds = TL_DIR_PARALLEL;
		if (word(x, w2, sizeof(w2)) && !strcmp(w2, "for"))
			d.kinds |= TL_DIR_FOR;
		else
			x->p = at;
	} else if (!strcmp(w, "for")) {
		d.kinds = TL_DIR_FOR;
	} else if (!strcmp(w, "critical")) {
		d.kinds = TL_DIR_CRITICAL;
	} else if (!strcmp(w, "barrier")) {
		d.kinds = TL_DIR_BARRIER;
	} else if (!strcmp(w, "single")) {
		d.kinds = TL_DIR_SINGLE;
	} else {
		return fail(x, "unknown directive (parallel, for, critical, barrier, single)", w);
	}
	if (clauses(x, &d) < 0)
		return -1;
	if (tl_directives_find(out, d.task))
		return fail(x, "a second directive for task", d.task);
	if (TL_GROW(out->d, *cap, out->n + 1) < 0)
		return -1;
	out->d[out->n++] = d;
	return 0;
}

int tl_directives_parse(const char *text, const char *file, struct tl_directives *out)
{
	struct lex x = { text, file ? file : "directives", 1 };
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		if (one_line(&x, out, &cap) < 0) {
			tl_directives_release(out);
			return -1;
		}
		while (*x.p && *x.p != '\n')
			x.p++;
		if (!*x.p)
			break;
		x.p++;
		x.line++;
	}
	if (!out->n) {
		tl_error("directives %s: no directive (a line is TASK = DIRECTIVE, such as 'rows = parallel for')",
		         x.file);
		return -1;
	}
	return 0;
}

int tl_directives_load(const char *path, struct tl_directives *out)
{
	char *text;
	int rc;

	memset(out, 0, sizeof(*out));
	if (tl_read_text(path, 1 << 24, "the directives file", &text) < 0)
		return -1;
	rc = tl_directives_parse(text, path, out);
	free(text);
	return rc;
}

const struct tl_directive *tl_directives_find(const struct tl_directives *ds, const char *task)
{
	for (size_t i = 0; ds && i < ds->n; i++)
		if (!strcmp(ds->d[i].task, task))
			return &ds->d[i];
	return NULL;
}

void tl_directives_release(struct tl_directives *ds)
{
	free(ds->d);
	memset(ds, 0, sizeof(*ds));
}
