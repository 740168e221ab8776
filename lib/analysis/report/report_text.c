/*
 * report_text.c - the report as terminal tables (threadlens report).
 *
 * Layout: a header (trace, window, warnings), then per-thread state
 * occupation, a bar profile of the same rows, per-thread scheduling, per-CPU
 * utilization and per-process summary.  Tables are laid out for 100
 * columns; only the free-text last columns (top waker, top processes, main
 * states) and the bars stretch or shrink with opts->width.  Numbers are
 * right-aligned, names left-aligned and cut with '~'.  Every name is cleaned
 * (tl_fmt_clean_name) before it reaches the terminal, because a thread
 * can name itself with escape sequences.  docs/REPORT.md explains the
 * columns; keep it in step with this file.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "analysis/report/report_text_int.h"

#define BAR_MAX 50

/* Bar letters, per state; the column labels are tl_state_short_name(). */
static const char bar_letter[TL_ST__COUNT + 1] = "NrpqyEIWSOBTZ.";

/* ---- header ---- */

static void header_lost(struct text *t)
{
	const struct tl_model *m = t->m;
	char v[512];
	int listed = 0, n;

	n = snprintf(v, sizeof(v), "LOST EVENTS: %" PRIu64 " events dropped by the kernel", m->run->lost_total);
	if (m->run->lost_per_cpu) {
		for (int c = 0; c < m->ncpus; c++) {
			if (!m->run->lost_per_cpu[c])
				continue;
			if (listed == 8) {
				n += snprintf(v + n, sizeof(v) - (size_t)n, ", ...");
				break;
			}
			n += snprintf(v + n, sizeof(v) - (size_t)n, "%scpu%d %" PRIu64, listed ? ", " : " (", c,
			              m->run->lost_per_cpu[c]);
			listed++;
		}
		if (listed)
			snprintf(v + n, sizeof(v) - (size_t)n, ")");
	}
	tl_fmt_wrap(t->f, "!! ", v, t->width);
	tl_fmt_wrap(t->f, "!! ",
	            "states and counts near the gaps are uncertain; record fewer events or use a bigger buffer",
	            t->width);
}

static void header(struct text *t, const struct tl_report_opts *o)
{
	const struct tl_model *m = t->m;
	const struct tl_trace_info *in = &m->run->info;
	char b1[16], b2[16], b3[16], b4[16], v[512];
	uint64_t dur = rel(m, m->run->trace_end);

	fputs("threadlens report", t->f);
	if (m->run->path) {
		fputs(": ", t->f);
		put_tail(t->f, m->run->path, t->width - 19);
	}
	fputs("\n  command  ", t->f);
	if (in->target_mode == TL_TARGET_SYSTEM)
		fputs("system-wide (-a)", t->f);
	else
		put_tail(t->f, in->command[0] ? in->command : "?", t->width - 28);
	for (int i = 0; i < in->ntargets && i < TL_TRACE_MAX_TARGETS; i++) {
		if (i == 4) {
			fputs(",...", t->f);
			break;
		}
		fprintf(t->f, "%s%d", i ? "," : in->ntargets > 1 ? "  [pids " : "  [pid ", in->targets[i]);
	}
	fputs(in->ntargets > 0 && in->target_mode != TL_TARGET_SYSTEM ? "]\n" : "\n", t->f);
	/* the recording host's names, cleaned by the wrap */
	snprintf(v, sizeof(v), "%s, kernel %s, %d CPUs%s%s", in->hostname[0] ? in->hostname : "?",
	         in->kernel[0] ? in->kernel : "?", m->ncpus > 0 ? m->ncpus : in->ncpus, in->cpu_model[0] ? ", " : "",
	         in->cpu_model);
	tl_fmt_wrap(t->f, "  host     ", v, t->width);
	fprintf(t->f, "  trace    %s, %" PRIu64 " events, source: ", tl_fmt_dur(dur, b1, sizeof(b1)),
	        m->run->read.events);
	put_tail(t->f, in->source[0] ? in->source : "?", 30);
	if (in->backend[0]) {
		fputs(" (", t->f);
		put_tail(t->f, in->backend, 15);
		putc(')', t->f);
	}
	putc('\n', t->f);
	if (in->filter[0])
		tl_fmt_wrap(t->f, "  filter   ",
		            "other processes' events were left in the kernel: the CPUS table has them as the kernel's "
		            "totals",
		            t->width);
	if (m->run->win_start > m->run->trace_start || m->run->win_end < m->run->trace_end)
		fprintf(t->f, "  window   %s to %s (%s of %s)\n", tl_fmt_dur(rel(m, m->run->win_start), b1, sizeof(b1)),
		        tl_fmt_dur(rel(m, m->run->win_end), b2, sizeof(b2)), tl_fmt_dur(window_ns(m), b3, sizeof(b3)),
		        tl_fmt_dur(dur, b4, sizeof(b4)));
	if (m->run->lost_total)
		header_lost(t);
	/* the reader's warnings already say why a trace is incomplete */
	for (int i = 0; i < m->run->read.nwarnings && i < TL_TRACE_MAX_WARNINGS; i++)
		tl_fmt_wrap(t->f, "!! ", m->run->read.warnings[i], t->width);
	if (m->run->sched.anomalies) {
		snprintf(v, sizeof(v),
		         "%" PRIu64 " events contradicted the state model (anomalies); numbers near them may be off",
		         m->run->sched.anomalies);
		tl_fmt_wrap(t->f, "note: ", v, t->width);
	}
	if (m->run->sched.inferred_switches || m->run->sched.inferred_wakeups) {
		uint64_t s = m->run->sched.inferred_switches, w = m->run->sched.inferred_wakeups;
		char sw[40] = "", wk[40] = "";

		/* only the counts that are not 0: "2 switches", "1 switch and 3 wakeups" */
		if (s)
			snprintf(sw, sizeof(sw), "%" PRIu64 " switch%s", s, s == 1 ? "" : "es");
		if (w)
			snprintf(wk, sizeof(wk), "%" PRIu64 " wakeup%s", w, w == 1 ? "" : "s");
		snprintf(v, sizeof(v), "the kernel did not report %s%s%s; %s inferred (docs/STATES.md)", sw,
		         s && w ? " and " : "", wk, s + w == 1 ? "it was" : "they were");
		tl_fmt_wrap(t->f, "note: ", v, t->width);
	}
	if (m->kcheck.nthreads) {
		tl_kcheck_verdict(&m->kcheck, v, sizeof(v));
		tl_fmt_wrap(t->f, m->kcheck.bad ? "!! " : "  check    ", v, t->width);
	}
	if (m->kcheck.taken && m->kcheck.taken_ns) {
		snprintf(v, sizeof(v),
		         "%s of the %s the checked threads were on a CPU (%.2f%%) was the hypervisor's: EXECUTING "
		         "holds it, the kernel's run time leaves it out (CLOCK_TAKEN)",
		         tl_fmt_dur(m->kcheck.taken_ns, b1, sizeof(b1)), tl_fmt_dur(m->kcheck.run_ns, b2, sizeof(b2)),
		         m->kcheck.run_ns ? 100.0 * (double)m->kcheck.taken_ns / (double)m->kcheck.run_ns : 0.0);
		tl_fmt_wrap(t->f, "  steal    ", v, t->width);
	}
}

/* ---- thread states and profile ---- */

/*
 * Which states get a column of their own (col[s]) when the table is
 * narrower than one per state: those with the largest share of some row's
 * lifetime; the others go to one "other" column.  Returns how many went
 * there, and their largest share in *most (%).
 */
static int fit_states(struct text *t, const int *used, int cols, int *col, double *most)
{
	const struct tl_model *m = t->m;
	double top[TL_ST__COUNT] = { 0 };
	int nused = 0, merged = 0;

	*most = 0;
	for (unsigned s = 0; s < TL_ST__COUNT; s++) {
		col[s] = used[s];
		nused += used[s];
		for (size_t r = 0; r < t->nrows; r++) {
			const struct tl_thread_stats *th = &m->threads[t->order[r]];
			double p = tl_fmt_pct(th->state_ns[s], tl_report_lifetime(th));

			if (p > top[s])
				top[s] = p;
		}
	}
	/* keep cols - 1 states and "other": the smallest go first, ties the later state */
	while (nused > cols && nused - merged > cols - 1) {
		unsigned least = TL_ST__COUNT;

		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			if (col[s] && (least == TL_ST__COUNT || top[s] <= top[least]))
				least = s;
		col[least] = 0;
		if (top[least] > *most)
			*most = top[least];
		merged++;
	}
	return merged;
}

/*
 * One row per thread: its share of its lifetime in each state some row
 * was in.  Narrower than the width needs (11 states need 106 columns), the
 * pid goes first (the PROCESSES table has the pids), then the states of
 * the smallest shares share an "other" column, which a line under the
 * table names; --json and --csv=states give every one.
 */
static void states_table(struct text *t, int sort)
{
	const struct tl_model *m = t->m;
	int used[TL_ST__COUNT] = { 0 }, col[TL_ST__COUNT], nused = 0, pid = 1, merged, avail;
	char note[96], b[16];
	double most;

	for (size_t r = 0; r < t->nrows; r++)
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			used[s] |= m->threads[t->order[r]].state_ns[s] != 0;
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		nused += used[s];
	if (sort >= 0 && sort < TL_ST__COUNT)
		snprintf(note, sizeof(note), "%% of each thread's lifetime; sorted by time in %s",
		         tl_state_name((unsigned)sort));
	else
		snprintf(note, sizeof(note), "%% of each thread's lifetime; sorted by %s",
		         sort == TL_REPORT_SORT_NAME  ? "name"
		         : sort == TL_REPORT_SORT_TID ? "tid"
		         : sort == TL_REPORT_SORT_PID ? "pid"
		                                      : "lifetime");
	section(t, "THREAD STATES", note);
	if (!t->nrows) {
		fputs("(no threads in the window)\n", t->f);
		return;
	}
	/* name, tid, pid, 6 a state, lifetime */
	avail = t->width - (NAME_W + 8 + 8 + 9);
	if (avail < 6 * nused) {
		pid = 0;
		avail += 8;
	}
	merged = fit_states(t, used, avail / 6, col, &most);
	fprintf(t->f, "%-*s %7s", NAME_W, "name", "tid");
	if (pid)
		fprintf(t->f, " %7s", "pid");
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		if (col[s])
			fprintf(t->f, " %5s", tl_state_short_name(s));
	fprintf(t->f, "%s %8s\n", merged ? " other" : "", "lifetime");
	for (size_t r = 0; r < t->nrows; r++) {
		const struct tl_thread_stats *th = &m->threads[t->order[r]];
		uint64_t life = tl_report_lifetime(th), other = 0;

		put_name(t->f, th->name, NAME_W);
		fprintf(t->f, " %7d", th->tid);
		if (pid)
			fprintf(t->f, " %7d", th->pid);
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			if (col[s])
				fprintf(t->f, " %5s", fmt_pct(th->state_ns[s], life, b));
			else if (used[s])
				other += th->state_ns[s];
		if (merged)
			fprintf(t->f, " %5s", fmt_pct(other, life, b));
		fprintf(t->f, " %8s\n", fmt_dur(life, b));
	}
	more_rows(t, t->nrows, m->nthreads, "threads");
	if (merged) {
		char text[256];
		int n = 0;

		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			if (used[s] && !col[s])
				n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%s", n ? ", " : "",
				              tl_state_short_name(s));
		snprintf(text + n, sizeof(text) - (size_t)n,
		         " (each at most %s%% of a thread's lifetime; --width %d shows every state)",
		         most < 0.05 ? "<0.1" : (snprintf(b, sizeof(b), "%.1f", most), b), NAME_W + 8 + 9 + 6 * nused);
		tl_fmt_wrap(t->f, "other: ", text, t->width);
	}
}

/*
 * Split `w` bar cells among the states in proportion to their time, by
 * largest remainder, so the cells always add up to w exactly.
 */
static void bar_cells(const uint64_t *ns, uint64_t total, int w, int *cells)
{
	double rem[TL_ST__COUNT];
	int given = 0;

	for (unsigned s = 0; s < TL_ST__COUNT; s++) {
		double exact = total ? (double)ns[s] * w / (double)total : 0;
		cells[s] = (int)exact;
		rem[s] = exact - cells[s];
		given += cells[s];
	}
	while (total && given < w) {
		unsigned best = 0;
		for (unsigned s = 1; s < TL_ST__COUNT; s++)
			if (rem[s] > rem[best])
				best = s;
		cells[best]++;
		rem[best] = -1;
		given++;
	}
}

static void profile(struct text *t)
{
	const struct tl_model *m = t->m;
	int w = t->width - NAME_W - 1 - 7 - 4;
	int used[TL_ST__COUNT] = { 0 };
	char note[64];

	if (!t->nrows)
		return;
	if (w > BAR_MAX)
		w = BAR_MAX;
	if (w < 10)
		w = 10;
	snprintf(note, sizeof(note), "one character = %.1f%% of the thread's lifetime", 100.0 / w);
	section(t, "STATE PROFILE", note);
	for (size_t r = 0; r < t->nrows; r++) {
		const struct tl_thread_stats *th = &m->threads[t->order[r]];
		int cells[TL_ST__COUNT];

		bar_cells(th->state_ns, tl_report_lifetime(th), w, cells);
		put_name(t->f, th->name, NAME_W);
		fprintf(t->f, " %7d |", th->tid);
		for (unsigned s = 0; s < TL_ST__COUNT; s++) {
			used[s] |= cells[s] > 0;
			for (int i = 0; i < cells[s]; i++)
				putc(bar_letter[s], t->f);
		}
		fputs(tl_report_lifetime(th) ? "|\n" : "(no time in the window)\n", t->f);
	}
	fputs("legend:", t->f);
	for (unsigned s = 0, col = 7; s < TL_ST__COUNT; s++) {
		unsigned len;
		if (!used[s])
			continue;
		len = 4 + (unsigned)strlen(tl_state_name(s)); /* "  r RUNNABLE" */
		if (col + len > (unsigned)t->width) {
			fputs("\n       ", t->f);
			col = 7;
		}
		fprintf(t->f, "  %c %s", bar_letter[s], tl_state_name(s));
		col += len;
	}
	putc('\n', t->f);
}

/* ---- scheduling ---- */

/* "name 62%" for the waker that ended most of the thread's waiting time. */
static void put_top_waker(struct text *t, const struct tl_thread_stats *th, int w)
{
	const struct tl_waker_stat *ws;
	const char *name;
	uint64_t total = 0;
	char pct[16], clean[4 * TL_NAME_MAX + 8];
	int plen;

	if (!th->nwakers) {
		fputs("-", t->f);
		return;
	}
	for (size_t i = 0; i < th->nwakers; i++)
		total += th->wakers[i].wait_ns;
	ws = &th->wakers[0];
	plen = total ? snprintf(pct, sizeof(pct), " %.0f%%", tl_fmt_pct(ws->wait_ns, total)) : 0;
	name = ws->tid == TL_WAKER_IRQ      ? "[irq]"
	       : ws->tid == TL_WAKER_DEVICE ? "[device]"
	       : ws->tid == 0               ? "[unknown]"
	       : ws->name[0]                ? ws->name
	                                    : "?";
	/* a name that does not fit with its share goes without it: the name is what the column tells */
	if ((int)tl_fmt_clean_name(name, clean, sizeof(clean)) + plen > w)
		plen = 0;
	put_tail(t->f, clean, w - plen);
	if (plen)
		fputs(pct, t->f);
}

/* When a maximum began, in seconds from the trace's start, as perf sched latency's "max at"; "-" if none. */
static const char *fmt_at(const struct tl_model *m, uint64_t at, uint64_t count, char *buf, size_t len)
{
	double sec = rel(m, at) / 1e9;

	if (!at || !count)
		snprintf(buf, len, "-");
	else /* six characters: 0.758s, 12.35s, 123.5s, 1234s */
		snprintf(buf, len, "%.*fs", sec < 9.9995 ? 3 : sec < 99.995 ? 2 : sec < 999.95 ? 1 : 0, sec);
	return buf;
}

/*
 * Switches, latencies, the longest burst and the top waker per thread.
 * Narrower than 97 columns the "at" columns go (when the longest wait and
 * burst began; --json has them).
 */
static void sched_table(struct text *t)
{
	const struct tl_model *m = t->m;
	int tail = t->width - (NAME_W + 8 + 3 * 6 + 6 * 7 + 2), at = tail >= 12;
	char b[6][16];

	if (!t->nrows)
		return;
	if (!at)
		tail += 2 * 7;
	if (tail < 9)
		tail = 9;
	section(t, "SCHEDULING", "latency: wakeup to running; burst: one stay on a CPU");
	/* group labels centred over their columns: switches (3), latency (4 or 3), burst (2 or 1) */
	/* "max at": when the longest wait and burst began, as perf sched latency gives it (means: --json) */
	if (at)
		fprintf(t->f, "%*s%s%12s%s%6s%s\n", NAME_W + 8, "", "  switches", "", "sched latency to CPU", "",
		        "longest burst");
	else
		fprintf(t->f, "%*s%s%11s%s%6s%s\n", NAME_W + 8, "", "  switches", "", "sched latency", "", "burst");
	fprintf(t->f, "%-*s %7s %5s %5s %5s %6s %6s %6s", NAME_W, "name", "tid", "vol", "invol", "migr", "p50", "p99",
	        "max");
	if (at)
		fprintf(t->f, " %6s %6s %6s  %s\n", "at", "max", "at", "top waker");
	else
		fprintf(t->f, " %6s  %s\n", "max", "top waker");
	for (size_t r = 0; r < t->nrows; r++) {
		const struct tl_thread_stats *th = &m->threads[t->order[r]];
		const struct tl_dist *l = &th->sched_latency, *bu = &th->bursts;

		put_name(t->f, th->name, NAME_W);
		fprintf(t->f, " %7d %5s %5s %5s", th->tid, fmt_count(th->vol_switches, b[0]),
		        fmt_count(th->invol_switches, b[1]), fmt_count(th->migrations, b[2]));
		fprintf(t->f, " %6s %6s %6s", fmt_dur(tl_dist_percentile(l, 50), b[0]),
		        fmt_dur(tl_dist_percentile(l, 99), b[1]), fmt_dur(l->count ? l->max : 0, b[2]));
		if (at)
			fprintf(t->f, " %6s", fmt_at(m, th->latency_max_at, l->count, b[3], sizeof(b[3])));
		fprintf(t->f, " %6s", fmt_dur(bu->count ? bu->max : 0, b[4]));
		if (at)
			fprintf(t->f, " %6s", fmt_at(m, th->burst_max_at, bu->count, b[5], sizeof(b[5])));
		fputs("  ", t->f);
		put_top_waker(t, th, tail);
		putc('\n', t->f);
	}
	more_rows(t, t->nrows, m->nthreads, "threads");
	{
		uint64_t n = 0;

		for (size_t i = 0; i < m->nthreads; i++)
			n += m->threads[i].waits_inferred;
		if (n) {
			char v[160];

			snprintf(v, sizeof(v),
			         "%" PRIu64 " waits for a CPU are left out of the latencies: the kernel did not report "
			         "their switch-in, so their length is not known (docs/STATES.md)",
			         n);
			tl_fmt_wrap(t->f, "note: ", v, t->width);
		}
	}
}

int tl_report_write_text(FILE *out, const struct tl_model *m, const struct tl_report_opts *o)
{
	struct text t = { .f = out, .m = m };
	size_t dflt = TL_REPORT_TEXT_TOP;
	int sort = o ? o->sort : TL_REPORT_SORT_DEFAULT;
	size_t *order;
	int rc;

	if (sort == TL_REPORT_SORT_DEFAULT)
		sort = TL_ST_EXECUTING;
	t.width = o && o->width > 0 ? o->width : 100;
	if (t.width < 60)
		t.width = 60;
	if (t.width > 300)
		t.width = 300;
	order = tl_report_thread_order(m, sort, tl_report_limit(o, m->nthreads, dflt), &t.nrows);
	if (!order)
		return -1;
	t.order = order;
	t.nprocs = tl_report_limit(o, m->nprocs, dflt);
	for (size_t i = 0; i < m->locks.n; i++)
		t.nlocks += m->locks.items[i].addr && m->locks.items[i].waits;
	t.nlocks = tl_report_limit(o, t.nlocks, dflt);

	header(&t, o);
	states_table(&t, sort);
	profile(&t);
	sched_table(&t);
	tl_rtext_cpus(&t);
	tl_rtext_processes(&t);
	tl_rtext_locks(&t);
	tl_rtext_regions(&t);
	rc = tl_rtext_kcheck(&t);
	free(order);
	if (rc < 0)
		return -1;
	if (fflush(out) || ferror(out))
		return tl_error_errno("write error");
	return 0;
}
