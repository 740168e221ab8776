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

#include "model.h"
#include "report.h"

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

/* 100 * part / whole, 0 when whole is 0. */
double tl_report_pct(uint64_t part, uint64_t whole);

/* end - start of the thread, 0 if the end is not after the start. */
uint64_t tl_report_lifetime(const struct tl_thread_stats *t);

/* "command", "pids", "system"; "unknown" otherwise. */
const char *tl_report_target_mode_name(int mode);

/*
 * Human-readable duration with three significant digits: "850ns", "12.3us",
 * "1.20ms", "1.20s", "1234s".  Writes into buf (at least 16 bytes) and
 * returns it.
 */
const char *tl_report_fmt_dur(uint64_t ns, char *buf, size_t len);

/*
 * Copy the untrusted name `in` into out[0..len) so that it is safe for a
 * terminal or a CSV cell: control characters (C0, DEL, C1) and invalid
 * UTF-8 bytes become '?'; valid UTF-8 is kept whole (never cut inside a
 * character).  Returns the number of characters (code points) written.
 */
size_t tl_report_clean_name(const char *in, char *out, size_t len);

#endif
