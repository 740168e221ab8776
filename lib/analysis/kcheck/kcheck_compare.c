/*
 * kcheck_compare.c - the self-check's verdict on one thread (see kcheck.h):
 * the kernel's deltas between its readings against the trace's sums over
 * the same window, each within the tolerance kcheck.h states plus what the
 * trace cannot know (UNKNOWN time, stolen time, the clock lags the kernel
 * dates by).  The walk that builds the window is kcheck.c.
 */
#include <string.h>

#include "analysis/kcheck/kcheck.h"
#include "analysis/kcheck/kcheck_int.h"

/*
 * The steal time a thread's on-CPU time may hold that the kernel left out:
 * the steal of every CPU it ran on over the recording, plus one tick per
 * such CPU (the counters are in ticks, so a delta can be a tick short).
 * A CPU with no steal in its counters adds nothing.
 */
static uint64_t steal_allowance(const struct tl_kcheck *kc, uint64_t used)
{
	uint64_t sum = 0;

	for (size_t c = 0; c < kc->ncpus; c++) {
		const struct cpu_marks *m = &kc->cpus[c];

		if (!(used & (1ull << (c < 63 ? c : 63))) || m->steal[0] < 0 || m->steal[1] <= m->steal[0])
			continue;
		sum += (uint64_t)(m->steal[1] - m->steal[0]) + m->tick;
	}
	return sum;
}

uint64_t tl_kcheck_time_tol(uint64_t window_ns)
{
	uint64_t pct = (uint64_t)((double)window_ns * TL_KCHECK_TOL_PCT / 100.0);

	return pct > TL_KCHECK_MIN_TOL_NS ? pct : TL_KCHECK_MIN_TOL_NS;
}

uint64_t tl_kcheck_count_tol(uint64_t kernel_count)
{
	uint64_t pct = (uint64_t)((double)kernel_count * TL_KCHECK_TOL_PCT / 100.0);

	return pct > 1 ? pct : 1;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t delta(int64_t end, int64_t start)
{
	return end > start ? (uint64_t)(end - start) : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static uint64_t absdiff(int64_t d)
{
	return d < 0 ? (uint64_t)-d : (uint64_t)d;
}

/*
 * A thread's difference d over its window win into the worst ones: *pct
 * counts only a difference over TL_KCHECK_MIN_TOL_NS (any window
 * tolerates less, and 0.4 ms of a 0.4 ms process read as "within 90%" of
 * the window where every thread agreed); *ns, when judged (the difference
 * the verdicts are on), takes every one.
 */
static void worst(double *pct_max, uint64_t *ns_max, int64_t d, uint64_t win, int judged)
{
	if (absdiff(d) > TL_KCHECK_MIN_TOL_NS && pct(absdiff(d), win) > *pct_max)
		*pct_max = pct(absdiff(d), win);
	if (judged && absdiff(d) > *ns_max)
		*ns_max = absdiff(d);
}

/* trace - kernel = d within [-below, above]. */
static int within(int64_t d, uint64_t above, uint64_t below)
{
	return d >= 0 ? (uint64_t)d <= above : (uint64_t)-d <= below;
}

int tl_kcheck_compare(const struct tl_kcheck *kc, const struct kth *t, struct tl_kcheck_thread *o,
                      struct tl_kcheck_result *r)
{
	struct reading zero = { 1, 1, 0, 0, 0, 0, 0 }, s = t->born ? zero : t->start;
	const struct reading *e = &t->end;
	uint64_t win, tol;
	int64_t run, wait;
	int judge_wait;
	uint64_t span_cap = kc->tick_gap ? kc->tick_gap : TL_KCHECK_MAX_TICK_NS;

	if (t->status != CLOSED || (!t->born && !t->has_start) || !e->have_times || !s.have_times || e->run < 0 ||
	    s.run < 0 || t->to <= t->from)
		return 0;
	memset(o, 0, sizeof(*o));
	o->tid = t->tid;
	o->from = t->from;
	o->to = t->to;
	o->born = t->born;
	o->exited = t->exited;
	o->trace = t->trace;
	o->kernel.run_ns = delta(e->run, s.run);
	if (e->wait >= 0 && s.wait >= 0) {
		o->have |= TL_KCHECK_WAIT;
		o->kernel.wait_ns = delta(e->wait, s.wait);
	}
	/*
	 * A delay longer than the window is the kernel's, not ours: switching
	 * delay accounting on during a wait counts it from 0 (seen: 14778 s, the
	 * machine's uptime).  Then the reading says nothing.
	 */
	if (e->blkio >= 0 && s.blkio >= 0 && delta(e->blkio, s.blkio) <= t->to - t->from) {
		o->have |= TL_KCHECK_BLKIO;
		o->kernel.blkio_ns = delta(e->blkio, s.blkio);
	}
	if (e->have_csw && s.have_csw && e->vol >= 0 && s.vol >= 0) {
		o->have |= TL_KCHECK_SWITCHES;
		o->kernel.vol = delta(e->vol, s.vol);
		o->kernel.invol = delta(e->invol, s.invol);
	}
	win = t->to - t->from;
	tol = tl_kcheck_time_tol(win);
	o->lag_in_ns = t->lag_in;
	o->lag_out_ns = t->lag_out;
	o->lag_end_ns = t->lag_end;
	o->lag_sleep_ns = t->lag_sleep;
	o->lag_wake_ns = t->lag_wake;
	o->lag_exit_ns = t->lag_exit;
	/*
	 * Steal: known per stay with CLOCK_TAKEN (1.15), and taken out of the
	 * trace's run; else (or for what came before a CPU's first value, at
	 * most a tick) allowed for.
	 */
	o->taken_ns = kc->tk.seen ? t->taken_ns : 0;
	if (!kc->tk.seen || t->taken_late == 2)
		o->steal_ns = steal_allowance(kc, t->cpus_used);
	else if (t->taken_late)
		o->steal_ns =
		        min_u64(steal_allowance(kc, t->cpus_used), kc->tick_gap ? kc->tick_gap : TL_KCHECK_MAX_TICK_NS);
	else
		o->steal_ns = 0;
	o->unknown_ns = t->unknown_ns;
	o->run_diff = (int64_t)o->trace.run_ns - (int64_t)o->kernel.run_ns;
	if (o->have & TL_KCHECK_WAIT)
		o->wait_diff = (int64_t)o->trace.wait_ns - (int64_t)o->kernel.wait_ns;
	/* the kernel's readings as of their last update (stale_mark(), stale_settle()): judged as of their time */
	o->stale_run_ns = t->stale_run;
	o->wait_open = t->wait_open;
	judge_wait = (o->have & TL_KCHECK_WAIT) && !t->wait_open; /* run + wait holds the unknown part too */
	o->stale_wait_ns = (o->have & TL_KCHECK_WAIT) ? t->stale_wait : 0;
	run = o->run_diff - o->stale_run_ns - (int64_t)o->taken_ns;
	wait = o->wait_diff - o->stale_wait_ns;
	/*
	 * The kernel's delta may be longer (start) or shorter (end): an update
	 * of unknown age, or one in the reading's span (the update before it
	 * is at most a tick period older on a CPU the thread was on).
	 */
	o->stale_open_start_ns = t->stale_open[0] ? kc->tick_gap : min_u64(t->stale_span[0], span_cap);
	o->stale_open_end_ns = t->stale_open[1] ? kc->tick_gap : min_u64(t->stale_span[1], span_cap);
	if (kc->lags) {
		/*
		 * Dated as the kernel dates (the recorded clock lags): nothing is
		 * allowed for but what no lag explains: stolen time, UNKNOWN time,
		 * and the run since the last update before an exit when the EXIT
		 * does not say it (a trace of format 1.6 before it did).
		 */
		uint64_t exit = t->exit_dated ? 0 : t->lag_exit;
		int64_t kd_run = t->kd_run;

		o->lags = 1;
		/* its exit totals end where the kernel's run total was theirs (format 1.12, kcheck_int.h) */
		if (t->exit_sum && t->exited && e->run >= 0 && t->exit_sum >= e->run &&
		    (uint64_t)(t->exit_sum - e->run) <= win)
			kd_run += (int64_t)t->exit_lag_ns - (t->exit_sum - e->run);
		o->lag_run_ns = kd_run - o->stale_run_ns - (int64_t)o->taken_ns;
		o->lag_wait_ns = t->kd_wait - o->stale_wait_ns;
		run += kd_run; /* = run_diff + lag_run_ns */
		wait += t->kd_wait;
		o->ok = within(run, tol + exit + o->steal_ns + o->stale_open_end_ns,
		               tol + t->unknown_ns + o->stale_open_start_ns);
		if (judge_wait) {
			o->ok &= within(wait, tol, tol + t->unknown_ns);
			o->ok &= within(run + wait, tol + exit + o->steal_ns + o->stale_open_end_ns,
			                tol + t->unknown_ns + o->stale_open_start_ns);
		}
		/* within only thanks to what the trace does not know: the verdict says how many */
		o->allowed = o->ok && !(within(run, tol, tol) &&
		                        (!judge_wait || (within(wait, tol, tol) && within(run + wait, tol, tol))));
	} else {
		/*
		 * The kernel dates switch-ins early (lag_in, lag_out), sleeps
		 * early (lag_end, lag_sleep), enqueues by another CPU early
		 * (lag_wake), and leaves stolen time out (steal); what the trace
		 * says it does not know (UNKNOWN) may hide run or wait time, so
		 * the trace may show that much less.
		 */
		o->ok = within(run,
		               tol + t->lag_out + t->lag_end + t->lag_sleep + t->lag_exit + o->steal_ns +
		                       o->stale_open_end_ns,
		               tol + t->lag_in + t->unknown_ns + o->stale_open_start_ns);
		if (judge_wait) {
			o->ok &= within(wait, tol + t->lag_in, tol + t->lag_out + t->lag_wake + t->unknown_ns);
			/* the sum depends only on where sleeps and enqueues are dated; stolen time is in the trace's only */
			o->ok &= within(run + wait,
			                tol + o->steal_ns + t->lag_end + t->lag_sleep + t->lag_exit +
			                        o->stale_open_end_ns,
			                tol + t->lag_wake + t->unknown_ns + o->stale_open_start_ns);
		}
	}
	worst(&r->max_run_pct, &r->max_run_ns, o->run_diff, win, !kc->lags);
	worst(&r->max_run_dated_pct, &r->max_run_ns, o->run_diff + o->lag_run_ns, win, kc->lags);
	if (judge_wait) {
		worst(&r->max_wait_pct, &r->max_wait_ns, o->wait_diff, win, !kc->lags);
		worst(&r->max_wait_dated_pct, &r->max_wait_ns, o->wait_diff + o->lag_wait_ns, win, kc->lags);
		r->have_wait = 1;
	}
	if (o->have & TL_KCHECK_SWITCHES) {
		o->vol_diff = (int64_t)o->trace.vol - (int64_t)o->kernel.vol;
		o->invol_diff = (int64_t)o->trace.invol - (int64_t)o->kernel.invol;
		/* events lost while it was UNKNOWN may have been its switches: the trace may count that many fewer */
		o->lost_events = t->unknown_ns ? t->lost_to - t->lost_from : 0;
		/*
		 * Switched in more often than out: switches out of it were not
		 * reported (docs/STATES.md), and whole stays may be missing with
		 * them (seen: 1 switch in, 3 out by the kernel's count).  Its counts
		 * are shown, not judged; its times still are.
		 */
		o->unseen_switches =
		        t->ins > o->trace.vol + o->trace.invol ? t->ins - o->trace.vol - o->trace.invol : 0;
		if (!o->unseen_switches) {
			o->ok &= within(o->vol_diff, tl_kcheck_count_tol(o->kernel.vol),
			                tl_kcheck_count_tol(o->kernel.vol) + o->lost_events) &&
			         within(o->invol_diff, tl_kcheck_count_tol(o->kernel.invol),
			                tl_kcheck_count_tol(o->kernel.invol) + o->lost_events);
			/* as for times, the percentage leaves out what any count tolerates (one switch) */
			if (absdiff(o->vol_diff) > 1 && pct(absdiff(o->vol_diff), o->kernel.vol) > r->max_switch_pct)
				r->max_switch_pct = pct(absdiff(o->vol_diff), o->kernel.vol);
			if (absdiff(o->invol_diff) > 1 &&
			    pct(absdiff(o->invol_diff), o->kernel.invol) > r->max_switch_pct)
				r->max_switch_pct = pct(absdiff(o->invol_diff), o->kernel.invol);
		}
	}
	return 1;
}
