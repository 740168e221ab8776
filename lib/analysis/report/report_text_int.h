/*
 * report_text_int.h - what the text report's two files share: the state
 * of one write (struct text) and the cell formats.  report_text.c writes
 * the header and the thread tables and drives the sections;
 * report_text_sys.c writes the CPU, process, lock, region and self-check
 * tables.  Every table fits t->width columns (report_text.c's header says
 * how), every name is cleaned before it reaches the terminal.
 */
#ifndef TL_REPORT_TEXT_INT_H
#define TL_REPORT_TEXT_INT_H

#include <inttypes.h>
#include <stdio.h>

#include "analysis/report/report_int.h"

#define NAME_W 15

struct text {
	FILE *f;
	const struct tl_model *m;
	int width;
	const size_t *order; /* thread rows shown, in order */
	size_t nrows;
	size_t nprocs; /* process rows shown */
	size_t nlocks; /* lock rows shown */
};

/* Print a cleaned name cut or padded to exactly w columns. */
static inline void put_name(FILE *f, const char *name, int w)
{
	if (w > 0)
		tl_fmt_put_name(f, name, (size_t)w);
}

/* Like put_name, but never pads: for the last column of a row. */
static inline void put_tail(FILE *f, const char *text, int w)
{
	char clean[1024];
	size_t chars = tl_fmt_clean_name(text, clean, sizeof(clean));
	put_name(f, clean, w < 1 ? 1 : (size_t)w < chars ? w : (int)chars);
}

static inline const char *fmt_dur(uint64_t ns, char *buf)
{
	if (!ns)
		return "-";
	return tl_fmt_dur(ns, buf, 16);
}

/* A percentage that never shows a non-zero value as 0.0 or vice versa. */
static inline const char *fmt_pct(uint64_t part, uint64_t whole, char *buf)
{
	double p = tl_fmt_pct(part, whole);
	if (!part)
		return "-";
	if (p < 0.05)
		return "<0.1";
	snprintf(buf, 16, "%.1f", p);
	return buf;
}

/* " 12.3%" of a share, or " <0.1%" so that a non-zero share never reads as zero. */
static inline int fmt_share(uint64_t part, uint64_t whole, char *buf)
{
	double p = tl_fmt_pct(part, whole);
	if (part && p < 0.05)
		return snprintf(buf, 16, " <0.1%%");
	return snprintf(buf, 16, " %.1f%%", p);
}

/* "12.3%" of a percentage the model computed, "<0.1%" when it is tiny but not zero. */
static inline void fmt_share_d(uint64_t part, double pct, char *buf)
{
	if (part && pct < 0.05)
		snprintf(buf, 16, "<0.1%%");
	else
		snprintf(buf, 16, "%.1f%%", pct);
}

/* Counts in at most 5 characters: 12345, 523k, 1.2M, 123M, 1.2G, 123G. */
static inline const char *fmt_count(uint64_t v, char *buf)
{
	if (v < 100000)
		snprintf(buf, 16, "%" PRIu64, v);
	else if (v < 1000000)
		snprintf(buf, 16, "%.0fk", (double)v / 1e3);
	else if (v < 999500000)
		snprintf(buf, 16, "%.*fM", v < 9950000 ? 1 : 0, (double)v / 1e6);
	else
		snprintf(buf, 16, "%.*fG", v < 9950000000ull ? 1 : 0, (double)v / 1e9);
	return buf;
}

static inline uint64_t rel(const struct tl_model *m, uint64_t ts)
{
	return ts > m->run->trace_start ? ts - m->run->trace_start : 0;
}

static inline uint64_t window_ns(const struct tl_model *m)
{
	return m->run->win_end > m->run->win_start ? m->run->win_end - m->run->win_start : 0;
}

/* A section's title, and its note in brackets wrapped to the width under it. */
static inline void section(struct text *t, const char *title, const char *note)
{
	char lead[64], paren[512];

	if (!note) {
		fprintf(t->f, "\n%s\n", title);
		return;
	}
	snprintf(lead, sizeof(lead), "%s  ", title);
	snprintf(paren, sizeof(paren), "(%s)", note);
	putc('\n', t->f);
	tl_fmt_wrap(t->f, lead, paren, t->width);
}

static inline void more_rows(struct text *t, size_t shown, size_t total, const char *what)
{
	if (total > shown)
		fprintf(t->f, "(%zu more %s not shown; --top all shows them)\n", total - shown, what);
}

/* The sections of report_text_sys.c, in the report's order.  kcheck: 0, or -1 with tl_error set. */
void tl_rtext_cpus(struct text *t);
void tl_rtext_processes(struct text *t);
void tl_rtext_locks(struct text *t);
void tl_rtext_regions(struct text *t);
int tl_rtext_kcheck(struct text *t);

#endif
