/*
 * diagnose_test_util.h - what diagnose's unit tests share (test_diagnose.c,
 * test_diagnose_workers.c), header only like harness.h: a switch event for
 * trace_build.h's writer, rendering findings, and counting the findings of
 * one kind.
 */
#ifndef TL_DIAGNOSE_TEST_UTIL_H
#define TL_DIAGNOSE_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "trace_build.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"

static inline void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next, uint16_t flags)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, flags, NULL);
}

enum { RENDER_TEXT, RENDER_JSON, RENDER_BRIEF };

/* f as the writer `how` prints it (width: the text's and the brief's), into a string to free; NULL if none. */
static inline char *render_findings(const struct tl_findings *f, int how, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CHECK(out != NULL);
	if (!out)
		return NULL;
	CHECK_EQ_INT(how == RENDER_JSON    ? tl_diagnose_write_json(out, f)
	             : how == RENDER_BRIEF ? tl_diagnose_write_brief(out, f, width)
	                                   : tl_diagnose_write_text(out, f, width),
	             0);
	fclose(out);
	return buf;
}

/*
 * f's text at 80 columns has no line over 80 but its first (the trace's
 * path): the prose wraps, the evidence tables fit (a `what` of up to 46).
 */
static inline void check_text_fits(const struct tl_findings *f)
{
	char *buf = render_findings(f, RENDER_TEXT, 80), *line, *save = NULL;
	int n = 0;

	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (n++ && strlen(line) > 80)
			CHECK_EQ_STR(line, "(a line of at most 80 columns)");
	free(buf);
}

/* How many findings of `kind` f has; *x the last of them (untouched if none); f's text fits 80 columns. */
static inline int count_kind(const struct tl_findings *f, unsigned kind, const struct tl_finding **x)
{
	int n = 0;

	check_text_fits(f);
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i].kind == kind) {
			*x = &f->items[i];
			n++;
		}
	return n;
}

/* Diagnose m with o again: how many findings of `kind` (the model is kept). */
static inline int count_with(const struct tl_model *m, const struct tl_diagnose_opts *o, unsigned kind)
{
	const struct tl_finding *x = NULL;
	struct tl_findings f;
	int n;

	CHECK_EQ_INT(tl_diagnose_model(m, o, &f), 0);
	n = count_kind(&f, kind, &x);
	tl_findings_release(&f);
	return n;
}

#endif
