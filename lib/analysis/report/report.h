/*
 * report.h - writers that print an analysed model (model.h): terminal
 * tables, the JSON of docs/JSON.md and CSV tables.
 *
 * Writers only print.  They never compute analysis results; the numbers they
 * derive are simple ratios (percentages of a lifetime or of the window).
 * They never exit and never print anything but the report: failures (a
 * write error, out of memory) return -1 with tl_error set.  docs/REPORT.md
 * explains every column.
 */
#ifndef TL_REPORT_H
#define TL_REPORT_H

#include <stdio.h>

#include "analysis/report/model.h"

/*
 * Row order of the thread tables.  0 .. TL_ST__COUNT-1 sort by the time
 * spent in that state, largest first.
 */
enum tl_report_sort {
	TL_REPORT_SORT_DEFAULT = -1, /* text: EXECUTING; JSON and CSV: model order (pid, tid) */
	TL_REPORT_SORT_NAME = 100,   /* thread name, then tid */
	TL_REPORT_SORT_TID,          /* tid ascending */
	TL_REPORT_SORT_PID,          /* pid, then tid */
	TL_REPORT_SORT_LIFETIME,     /* lifetime in the window, longest first */
};

/* The tables of --csv=TABLE. */
enum tl_report_csv_table {
	TL_CSV_THREADS = 0, /* one row per thread: totals per state, switches, latency */
	TL_CSV_STATES,      /* one row per thread and state: tid,pid,name,state,ns,pct,entries */
	TL_CSV_TRANSITIONS, /* one row per thread and (from, to) pair that occurred */
	TL_CSV_CPUS,        /* one row per CPU */
	TL_CSV_PROCESSES,   /* one row per process */
	TL_CSV_WAKERS,      /* one row per thread and waker */
	TL_CSV__COUNT
};

struct tl_report_opts {
	const char *path; /* the trace's path as the user gave it (header, JSON); may be NULL */
	int sort;         /* enum tl_report_sort, or a state */
	int top;          /* at most this many thread and process rows; 0 = default (see REPORT.md), <0 = all */
	int width;        /* text: terminal width to fit in; 0 = 100 */
};

/* Parse a --sort key: a state name, "name", "tid", "pid" or "lifetime" (any case); -2 if unknown. */
int tl_report_sort_parse(const char *key);

/* Parse a CSV table name ("threads", ...); -1 if unknown. */
int tl_report_csv_table_parse(const char *name);

/* "threads", ...; "?" if out of range.  Never NULL. */
const char *tl_report_csv_table_name(int table);

/*
 * Print the terminal report: header (trace, window, warnings such as lost
 * events), per-thread state occupation with a bar profile, per-thread
 * scheduling, per-CPU utilization and per-process summary.
 * Returns 0, or -1 with tl_error set.
 */
int tl_report_text(FILE *out, const struct tl_model *m, const struct tl_report_opts *o);

/* Print the JSON document of docs/JSON.md.  Returns 0, or -1 with tl_error set. */
int tl_report_json(FILE *out, const struct tl_model *m, const struct tl_report_opts *o);

/*
 * Print one CSV table (RFC 4180, a header line first, "\r\n"-free: rows end
 * with "\n").  Returns 0, or -1 with tl_error set.
 */
int tl_report_csv(FILE *out, const struct tl_model *m, int table, const struct tl_report_opts *o);

#endif
