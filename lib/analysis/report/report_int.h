/*
 * report_int.h - helpers shared by the report's files (report_*.c) only.
 *
 * Not for other modules: the public interface is report.h.  The writers'
 * helpers choose rows and format numbers; the filtered totals
 * (report_filtered.c) serve the walk in report.c.
 */
#ifndef TL_REPORT_INT_H
#define TL_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "output/fmt.h"
#include "analysis/report/report.h"

/* Thread and process rows of the text report, by default: a screenful; --top all shows every one. */
#define TL_REPORT_TEXT_TOP 30

/*
 * Indices into m->threads in the order of `sort` (enum tl_report_sort or a
 * state; TL_REPORT_SORT_DEFAULT keeps the model's order), cut to `limit`
 * rows (SIZE_MAX: all).  *n receives the row count.  Returns an array the
 * caller frees with free(), or NULL with tl_error set on allocation failure.
 */
size_t *tl_report_thread_order(const struct tl_model *m, int sort, size_t limit, size_t *n);

/*
 * How many rows to show out of `avail`: opts->top if it is positive, all
 * if it is negative, else `dflt` (SIZE_MAX: all).
 */
size_t tl_report_limit(const struct tl_report_opts *o, size_t avail, size_t dflt);

/* end - start of the thread, 0 if the end is not after the start. */
uint64_t tl_report_lifetime(const struct tl_thread_stats *t);

/*
 * Thread records by tid, for lookups in O(log n) where threads may be tens
 * of thousands: fill v[k] = { tid of record k, k } for each record, sort
 * with tl_report_tids_sort(), then tl_report_tids_find() gives the first
 * record (lowest k) with a tid (a tid may be reused), or NULL.
 */
struct tl_report_tid {
	int32_t tid;
	size_t i;
};
void tl_report_tids_sort(struct tl_report_tid *v, size_t n);
const struct tl_report_tid *tl_report_tids_find(const struct tl_report_tid *v, size_t n, int32_t tid);

/*
 * A filtered recording's kernel totals (FILTERED events), per CPU, kept
 * during the walk and split over each CPU's filtered stretches at the end.
 * _new: NULL when out of memory.  _event: 0, or -1 out of memory.
 * _split: 0, or -1 with tl_error set.
 */
struct tl_report_filt;
struct tl_report_filt *tl_report_filt_new(int ncpus);
int tl_report_filt_event(struct tl_report_filt *f, const struct tl_event *ev, struct tl_trace *trace);
int tl_report_filt_split(const struct tl_report_filt *f, struct tl_cpu_stats *cpus);
void tl_report_filt_free(struct tl_report_filt *f);

/* Add ns of process pid to a CPU's shares.  0, or -1 out of memory. */
int tl_report_add_cpu_proc(struct tl_cpu_stats *c, int32_t pid, const char *name, uint64_t ns);

#endif
