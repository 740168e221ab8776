/*
 * report_int.h - helpers shared by the report writers (report_*.c) only.
 *
 * Not for other modules: the public interface is report.h.  These helpers
 * choose rows and format numbers; none of them analyses anything.
 */
#ifndef TL_REPORT_INT_H
#define TL_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "output/fmt.h"
#include "analysis/report/report.h"

/* Thread and process rows of the text report on a system-wide trace, by default. */
#define TL_REPORT_SYSTEM_TOP 30

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

#endif
