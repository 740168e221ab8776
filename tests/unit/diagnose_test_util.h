/*
 * diagnose_test_util.h - what diagnose's unit tests share (test_diagnose.c,
 * test_diagnose_workers.c), header only like harness.h: a switch event for
 * trace_build.h's writer, and counting the findings of one kind.
 */
#ifndef TL_DIAGNOSE_TEST_UTIL_H
#define TL_DIAGNOSE_TEST_UTIL_H

#include "harness.h"
#include "trace_build.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"

static inline void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next, uint16_t flags)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, flags, NULL);
}

/* How many findings of `kind` f has; *x the last of them (untouched if none). */
static inline int count_kind(const struct tl_findings *f, unsigned kind, const struct tl_finding **x)
{
	int n = 0;

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
