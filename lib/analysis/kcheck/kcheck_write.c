/*
 * kcheck_write.c - the self-check as JSON and as a one-line verdict (see
 * kcheck.h).  The report's text writer prints the per-thread table, since
 * it knows the threads' names.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/kcheck/kcheck.h"
#include "output/fmt.h"
#include "output/json.h"

static void side(struct tl_json *j, const char *key, const struct tl_kcheck_side *s, unsigned have)
{
	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "run_ns", s->run_ns);
	tl_json_key(j, "wait_ns");
	if (have & TL_KCHECK_WAIT)
		tl_json_uint(j, s->wait_ns);
	else
		tl_json_null(j);
	tl_json_key(j, "blkio_ns");
	if (have & TL_KCHECK_BLKIO)
		tl_json_uint(j, s->blkio_ns);
	else
		tl_json_null(j);
	tl_json_key(j, "voluntary");
	if (have & TL_KCHECK_SWITCHES)
		tl_json_uint(j, s->vol);
	else
		tl_json_null(j);
	tl_json_key(j, "involuntary");
	if (have & TL_KCHECK_SWITCHES)
		tl_json_uint(j, s->invol);
	else
		tl_json_null(j);
	tl_json_end_object(j);
}

void tl_kcheck_write_json(struct tl_json *j, const struct tl_kcheck_result *r, uint64_t trace_start)
{
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_uint(j, "checked", r->nthreads);
	tl_json_kv_uint(j, "disagree", r->bad);
	tl_json_kv_uint(j, "unchecked", r->unchecked);
	tl_json_kv_uint(j, "allowed", r->allowed); /* ok only with what the trace does not know allowed for */
	tl_json_key(j, "tolerance");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_double(j, "time_pct_of_window", TL_KCHECK_TOL_PCT, 1);
	tl_json_kv_uint(j, "time_min_ns", TL_KCHECK_MIN_TOL_NS);
	tl_json_kv_double(j, "count_pct", TL_KCHECK_TOL_PCT, 1);
	tl_json_end_object(j);
	tl_json_kv_double(j, "max_run_pct", r->max_run_pct, 3);
	tl_json_key(j, "max_wait_pct");
	if (r->have_wait)
		tl_json_double(j, r->max_wait_pct, 3);
	else
		tl_json_null(j);
	tl_json_kv_double(j, "max_switch_pct", r->max_switch_pct, 3);
	tl_json_kv_uint(j, "max_run_ns", r->max_run_ns); /* every thread's, dated with clock_lags */
	tl_json_key(j, "max_wait_ns");
	if (r->have_wait)
		tl_json_uint(j, r->max_wait_ns);
	else
		tl_json_null(j);
	tl_json_kv_bool(j, "clock_lags", r->lags); /* recorded: the verdicts are on the dated differences */
	tl_json_key(j, "max_run_dated_pct");
	if (r->lags)
		tl_json_double(j, r->max_run_dated_pct, 3);
	else
		tl_json_null(j);
	tl_json_key(j, "max_wait_dated_pct");
	if (r->lags && r->have_wait)
		tl_json_double(j, r->max_wait_dated_pct, 3);
	else
		tl_json_null(j);
	tl_json_key(j, "taken_ns"); /* format 1.15: the checked threads' run that was steal; null before */
	if (r->taken)
		tl_json_uint(j, r->taken_ns);
	else
		tl_json_null(j);
	tl_json_kv_uint(j, "run_ns", r->run_ns); /* their run in the trace, in their windows */
	tl_json_key(j, "threads");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct tl_kcheck_thread *t = &r->threads[i];

		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "tid", t->tid);
		tl_json_kv_uint(j, "from_ns", t->from > trace_start ? t->from - trace_start : 0);
		tl_json_kv_uint(j, "to_ns", t->to > trace_start ? t->to - trace_start : 0);
		tl_json_kv_bool(j, "born", t->born);
		tl_json_kv_bool(j, "exited", t->exited);
		tl_json_kv_bool(j, "ok", t->ok);
		tl_json_kv_bool(j, "allowed", t->allowed);
		tl_json_kv_uint(j, "clock_lag_in_ns", t->lag_in_ns);
		tl_json_kv_uint(j, "clock_lag_out_ns", t->lag_out_ns);
		tl_json_kv_uint(j, "clock_lag_end_ns", t->lag_end_ns);
		tl_json_kv_uint(j, "clock_lag_sleep_ns", t->lag_sleep_ns);
		tl_json_kv_uint(j, "clock_lag_wake_ns", t->lag_wake_ns);
		tl_json_kv_uint(j, "clock_lag_exit_ns", t->lag_exit_ns);
		tl_json_kv_int(j, "stale_run_ns",
		               t->stale_run_ns); /* the kernel's delta short: readings as of their update */
		tl_json_kv_int(j, "stale_wait_ns", t->stale_wait_ns);
		tl_json_kv_bool(j, "wait_open_at_start", t->wait_open); /* its wait is not judged */
		/* a reading's update not dated by the trace: up to a tick period of run either way */
		tl_json_kv_int(j, "stale_open_start_ns", (int64_t)t->stale_open_start_ns);
		tl_json_kv_int(j, "stale_open_end_ns", (int64_t)t->stale_open_end_ns);
		tl_json_key(j, "dated_run_ns"); /* the kernel's dating minus the trace's, from the recorded lags */
		if (t->lags)
			tl_json_int(j, t->lag_run_ns);
		else
			tl_json_null(j);
		tl_json_key(j, "dated_wait_ns");
		if (t->lags && (t->have & TL_KCHECK_WAIT))
			tl_json_int(j, t->lag_wait_ns);
		else
			tl_json_null(j);
		tl_json_kv_uint(j, "lost_events", t->lost_events);
		tl_json_kv_uint(j, "unseen_switches", t->unseen_switches);
		tl_json_kv_uint(j, "steal_ns", t->steal_ns);
		tl_json_kv_uint(j, "taken_ns", t->taken_ns);
		tl_json_kv_uint(j, "unknown_ns", t->unknown_ns);
		side(j, "trace", &t->trace, t->have);
		side(j, "kernel", &t->kernel, t->have);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

void tl_kcheck_verdict(const struct tl_kcheck_result *r, char *buf, size_t len)
{
	/* with the recorded clock lags, the judged differences are the dated ones; the trace's own follow */
	double run = r->lags ? r->max_run_dated_pct : r->max_run_pct;
	double wait_pct = r->lags ? r->max_wait_dated_pct : r->max_wait_pct;
	char wait[64] = "", raw[96] = "", allowed[96] = "", most[96] = "", d[2][32];

	if (!r->nthreads) {
		if (len)
			buf[0] = 0;
		return;
	}
	if (r->have_wait)
		snprintf(wait, sizeof(wait), ", run-queue wait %s %.2f%%", r->bad ? "by up to" : "within", wait_pct);
	/* the percentages leave out differences under the absolute tolerance: say how large those were */
	if (r->have_wait)
		snprintf(most, sizeof(most), " (%s and %s at most; under %.0f ms agrees at any window)",
		         tl_fmt_dur(r->max_run_ns, d[0], sizeof(d[0])), tl_fmt_dur(r->max_wait_ns, d[1], sizeof(d[1])),
		         TL_KCHECK_MIN_TOL_NS / 1e6);
	else
		snprintf(most, sizeof(most), " (%s at most; under %.0f ms agrees at any window)",
		         tl_fmt_dur(r->max_run_ns, d[0], sizeof(d[0])), TL_KCHECK_MIN_TOL_NS / 1e6);
	if (r->lags && r->have_wait)
		snprintf(raw, sizeof(raw),
		         " (dated as the kernel dates, from the recorded clock lags; undated %.2f%% and %.2f%%)",
		         r->max_run_pct, r->max_wait_pct);
	else if (r->lags)
		snprintf(raw, sizeof(raw), " (dated as the kernel dates, from the recorded clock lags; undated %.2f%%)",
		         r->max_run_pct);
	/* the largest differences are before allowances: say when some agree only with them */
	if (r->allowed)
		snprintf(allowed, sizeof(allowed),
		         "; %zu of them agree only with their UNKNOWN or stolen time allowed for", r->allowed);
	if (!r->bad)
		snprintf(buf, len,
		         "%zu thread%s checked against the kernel's accounting: on-CPU time within %.2f%% of the "
		         "window%s%s, switch counts within %.1f%%%s%s",
		         r->nthreads, r->nthreads == 1 ? "" : "s", run, wait, most, r->max_switch_pct, raw, allowed);
	else
		snprintf(buf, len,
		         "THE KERNEL DISAGREES on %zu of %zu threads (beyond %.0f%% of the window or %.0f ms, or "
		         "%.0f%% of the switches): on-CPU time off by up to %.2f%% of the window%s, switch counts "
		         "by %.1f%%%s; these states are not to be trusted (docs/REPORT.md, \"Self-check\")",
		         r->bad, r->nthreads, TL_KCHECK_TOL_PCT, TL_KCHECK_MIN_TOL_NS / 1e6, TL_KCHECK_TOL_PCT, run,
		         wait, r->max_switch_pct, raw);
}
