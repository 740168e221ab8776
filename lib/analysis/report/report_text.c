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
#include "analysis/report/report_int.h"

#define NAME_W 15
#define BAR_MAX 50

/* Bar letters, per state; the column labels are tl_state_short_name(). */
static const char bar_letter[TL_ST__COUNT + 1] = "NrpqyEIWSOBTZ.";

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
static void put_name(FILE *f, const char *name, int w)
{
	if (w > 0)
		tl_fmt_put_name(f, name, (size_t)w);
}

/* Like put_name, but never pads: for the last column of a row. */
static void put_tail(FILE *f, const char *text, int w)
{
	char clean[1024];
	size_t chars = tl_fmt_clean_name(text, clean, sizeof(clean));
	put_name(f, clean, w < 1 ? 1 : (size_t)w < chars ? w : (int)chars);
}

static const char *fmt_dur(uint64_t ns, char *buf)
{
	if (!ns)
		return "-";
	return tl_fmt_dur(ns, buf, 16);
}

/* A percentage that never shows a non-zero value as 0.0 or vice versa. */
static const char *fmt_pct(uint64_t part, uint64_t whole, char *buf)
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
static int fmt_share(uint64_t part, uint64_t whole, char *buf)
{
	double p = tl_fmt_pct(part, whole);
	if (part && p < 0.05)
		return snprintf(buf, 16, " <0.1%%");
	return snprintf(buf, 16, " %.1f%%", p);
}

/* "12.3%" of a percentage the model computed, "<0.1%" when it is tiny but not zero. */
static void fmt_share_d(uint64_t part, double pct, char *buf)
{
	if (part && pct < 0.05)
		snprintf(buf, 16, "<0.1%%");
	else
		snprintf(buf, 16, "%.1f%%", pct);
}

/* Counts in at most 5 characters: 12345, 523k, 12.3M. */
static const char *fmt_count(uint64_t v, char *buf)
{
	if (v < 100000)
		snprintf(buf, 16, "%" PRIu64, v);
	else if (v < 1000000)
		snprintf(buf, 16, "%.0fk", (double)v / 1e3);
	else if (v < 100000000)
		snprintf(buf, 16, "%.*fM", v < 10000000 ? 1 : 0, (double)v / 1e6);
	else
		snprintf(buf, 16, "%.1fG", (double)v / 1e9);
	return buf;
}

static uint64_t rel(const struct tl_model *m, uint64_t ts)
{
	return ts > m->run->trace_start ? ts - m->run->trace_start : 0;
}

static uint64_t window_ns(const struct tl_model *m)
{
	return m->run->win_end > m->run->win_start ? m->run->win_end - m->run->win_start : 0;
}

/* A section's title, and its note in brackets wrapped to the width under it. */
static void section(struct text *t, const char *title, const char *note)
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

static void more_rows(struct text *t, size_t shown, size_t total, const char *what)
{
	if (total > shown)
		fprintf(t->f, "(%zu more %s not shown; --top all shows them)\n", total - shown, what);
}

/* ---- header ---- */

static void header_lost(struct text *t)
{
	const struct tl_model *m = t->m;
	int listed = 0;

	fprintf(t->f, "!! LOST EVENTS: %" PRIu64 " events dropped by the kernel", m->run->lost_total);
	if (m->run->lost_per_cpu) {
		for (int c = 0; c < m->ncpus; c++) {
			if (!m->run->lost_per_cpu[c])
				continue;
			if (listed == 8) {
				fputs(", ...", t->f);
				break;
			}
			fprintf(t->f, "%scpu%d %" PRIu64, listed ? ", " : " (", c, m->run->lost_per_cpu[c]);
			listed++;
		}
		if (listed)
			putc(')', t->f);
	}
	fputs("\n!! states and counts near the gaps are uncertain; record fewer events or use a bigger buffer\n", t->f);
}

static void header(struct text *t, const struct tl_report_opts *o)
{
	const struct tl_model *m = t->m;
	const struct tl_trace_info *in = &m->run->info;
	char b1[16], b2[16], b3[16], b4[16];
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
	fputs("  host     ", t->f);
	put_tail(t->f, in->hostname[0] ? in->hostname : "?", 30);
	fputs(", kernel ", t->f);
	put_tail(t->f, in->kernel[0] ? in->kernel : "?", 30);
	fprintf(t->f, ", %d CPUs", m->ncpus > 0 ? m->ncpus : in->ncpus);
	if (in->cpu_model[0]) {
		fputs(", ", t->f);
		put_tail(t->f, in->cpu_model, 40);
	}
	fprintf(t->f, "\n  trace    %s, %" PRIu64 " events, source: ", tl_fmt_dur(dur, b1, sizeof(b1)),
	        m->run->read.events);
	put_tail(t->f, in->source[0] ? in->source : "?", 30);
	if (in->backend[0]) {
		fputs(" (", t->f);
		put_tail(t->f, in->backend, 15);
		putc(')', t->f);
	}
	putc('\n', t->f);
	if (in->filter[0])
		fputs("  filter   other processes' events were left in the kernel: the CPUS table has them\n"
		      "           as the kernel's totals\n",
		      t->f);
	if (m->run->win_start > m->run->trace_start || m->run->win_end < m->run->trace_end)
		fprintf(t->f, "  window   %s to %s (%s of %s)\n", tl_fmt_dur(rel(m, m->run->win_start), b1, sizeof(b1)),
		        tl_fmt_dur(rel(m, m->run->win_end), b2, sizeof(b2)), tl_fmt_dur(window_ns(m), b3, sizeof(b3)),
		        tl_fmt_dur(dur, b4, sizeof(b4)));
	if (m->run->lost_total)
		header_lost(t);
	/* the reader's warnings already say why a trace is incomplete */
	for (int i = 0; i < m->run->read.nwarnings && i < TL_TRACE_MAX_WARNINGS; i++)
		tl_fmt_wrap(t->f, "!! ", m->run->read.warnings[i], t->width);
	if (m->run->sched.anomalies)
		fprintf(t->f,
		        "note: %" PRIu64 " events contradicted the state model (anomalies); "
		        "numbers near them may be off\n",
		        m->run->sched.anomalies);
	if (m->run->sched.inferred_switches || m->run->sched.inferred_wakeups)
		fprintf(t->f,
		        "note: the kernel did not report %" PRIu64 " switches and %" PRIu64
		        " wakeups; they were inferred (docs/STATES.md)\n",
		        m->run->sched.inferred_switches, m->run->sched.inferred_wakeups);
	if (m->kcheck.nthreads) {
		char v[512];

		tl_kcheck_verdict(&m->kcheck, v, sizeof(v));
		tl_fmt_wrap(t->f, m->kcheck.bad ? "!! " : "  check    ", v, t->width);
	}
}

/* ---- thread states and profile ---- */

static void states_table(struct text *t, int sort)
{
	const struct tl_model *m = t->m;
	int used[TL_ST__COUNT] = { 0 };
	char note[96], b[16];

	for (size_t r = 0; r < t->nrows; r++)
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			used[s] |= m->threads[t->order[r]].state_ns[s] != 0;
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
	fprintf(t->f, "%-*s %7s %7s", NAME_W, "name", "tid", "pid");
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		if (used[s])
			fprintf(t->f, " %5s", tl_state_short_name(s));
	fprintf(t->f, " %8s\n", "lifetime");
	for (size_t r = 0; r < t->nrows; r++) {
		const struct tl_thread_stats *th = &m->threads[t->order[r]];
		uint64_t life = tl_report_lifetime(th);
		put_name(t->f, th->name, NAME_W);
		fprintf(t->f, " %7d %7d", th->tid, th->pid);
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			if (used[s])
				fprintf(t->f, " %5s", fmt_pct(th->state_ns[s], life, b));
		fprintf(t->f, " %8s\n", fmt_dur(life, b));
	}
	more_rows(t, t->nrows, m->nthreads, "threads");
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
	uint64_t total = 0;
	char pct[16];
	int plen;

	if (!th->nwakers) {
		fputs("-", t->f);
		return;
	}
	for (size_t i = 0; i < th->nwakers; i++)
		total += th->wakers[i].wait_ns;
	ws = &th->wakers[0];
	plen = snprintf(pct, sizeof(pct), " %.0f%%", tl_fmt_pct(ws->wait_ns, total));
	if (ws->tid == TL_WAKER_IRQ)
		put_tail(t->f, "[irq]", w - plen);
	else if (ws->tid == TL_WAKER_DEVICE)
		put_tail(t->f, "[device]", w - plen);
	else if (ws->tid == 0)
		put_tail(t->f, "[unknown]", w - plen);
	else
		put_tail(t->f, ws->name[0] ? ws->name : "?", w - plen);
	if (total)
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

static void sched_table(struct text *t)
{
	const struct tl_model *m = t->m;
	int tail = t->width - (NAME_W + 8 + 3 * 6 + 6 * 7 + 2);
	char b[6][16];

	if (!t->nrows)
		return;
	if (tail < 12)
		tail = 12;
	section(t, "SCHEDULING", "latency: wakeup to running; burst: one stay on a CPU");
	/* group labels centred over their columns: switches (2), latency (4), burst (2) */
	/* "max at": when the longest wait and burst began, as perf sched latency gives it (means: --json) */
	fprintf(t->f, "%*s%s%12s%s%6s%s\n", NAME_W + 8, "", "  switches", "", "sched latency to CPU", "",
	        "longest burst");
	fprintf(t->f, "%-*s %7s %5s %5s %5s %6s %6s %6s %6s %6s %6s  %s\n", NAME_W, "name", "tid", "vol", "invol",
	        "migr", "p50", "p99", "max", "at", "max", "at", "top waker");
	for (size_t r = 0; r < t->nrows; r++) {
		const struct tl_thread_stats *th = &m->threads[t->order[r]];
		const struct tl_dist *l = &th->sched_latency, *bu = &th->bursts;

		put_name(t->f, th->name, NAME_W);
		fprintf(t->f, " %7d %5s %5s %5s", th->tid, fmt_count(th->vol_switches, b[0]),
		        fmt_count(th->invol_switches, b[1]), fmt_count(th->migrations, b[2]));
		fprintf(t->f, " %6s %6s %6s %6s", fmt_dur(tl_dist_percentile(l, 50), b[0]),
		        fmt_dur(tl_dist_percentile(l, 99), b[1]), fmt_dur(l->count ? l->max : 0, b[2]),
		        fmt_at(m, th->latency_max_at, l->count, b[3], sizeof(b[3])));
		fprintf(t->f, " %6s %6s  ", fmt_dur(bu->count ? bu->max : 0, b[4]),
		        fmt_at(m, th->burst_max_at, bu->count, b[5], sizeof(b[5])));
		put_top_waker(t, th, tail);
		putc('\n', t->f);
	}
	more_rows(t, t->nrows, m->nthreads, "threads");
	{
		uint64_t n = 0;

		for (size_t i = 0; i < m->nthreads; i++)
			n += m->threads[i].waits_inferred;
		if (n)
			fprintf(t->f,
			        "note: %" PRIu64
			        " waits for a CPU are left out of the latencies: the kernel did not report\n"
			        "      their switch-in, so their length is not known (docs/STATES.md)\n",
			        n);
	}
}

/* ---- CPUs ---- */

static void cpu_table(struct text *t)
{
	const struct tl_model *m = t->m;
	uint64_t win = window_ns(m);
	int any_unknown = 0, tail;
	char b[6][16];

	if (!m->cpus || m->ncpus <= 0)
		return;
	for (int c = 0; c < m->ncpus; c++)
		any_unknown |= m->cpus[c].unknown_ns != 0;
	tail = t->width - (4 + 4 * 8 + (any_unknown ? 8 : 0) + 7 + 9 + 2);
	if (tail < 16)
		tail = 16;
	section(t, "CPUS", "util: busy + irq + softirq over the window; share: a process's time on the CPU");
	fprintf(t->f, "%4s %7s %7s %7s %7s", "cpu", "busy", "irq", "softirq", "idle");
	if (any_unknown)
		fprintf(t->f, " %7s", "unknown");
	fprintf(t->f, " %6s %8s  %s\n", "util", "switches", "top processes (share)");
	for (int i = 0; i < m->ncpus; i++) {
		const struct tl_cpu_stats *c = &m->cpus[i];
		int left = tail;

		fprintf(t->f, "%4d %7s %7s %7s %7s", c->cpu, fmt_dur(c->busy_ns, b[0]), fmt_dur(c->irq_ns, b[1]),
		        fmt_dur(c->softirq_ns, b[2]), fmt_dur(c->idle_ns, b[3]));
		if (any_unknown)
			fprintf(t->f, " %7s", fmt_dur(c->unknown_ns, b[4]));
		snprintf(b[5], sizeof(b[5]), "%.1f%%", tl_fmt_pct(c->busy_ns + c->irq_ns + c->softirq_ns, win));
		fprintf(t->f, " %6s %8s  ", b[5], fmt_count(c->switches, b[4]));
		for (size_t p = 0; p < c->nprocs && p < 3; p++) {
			char pct[16], clean[4 * TL_NAME_MAX + 8];
			int plen = fmt_share(c->procs[p].ns, win, pct);
			int nlen = (int)tl_fmt_clean_name(c->procs[p].name[0] ? c->procs[p].name : "?", clean,
			                                  sizeof(clean));
			int need = (p ? 2 : 0) + nlen + plen;

			/* a later name may be cut, but not down to nothing */
			if (need > left && p && left - plen - 2 < 8)
				break;
			fputs(p ? ", " : "", t->f);
			put_tail(t->f, clean, left - plen - (p ? 2 : 0));
			fputs(pct, t->f);
			left -= need;
		}
		if (!c->nprocs)
			fputs("-", t->f);
		putc('\n', t->f);
	}
}

/* ---- processes ---- */

static void put_main_states(struct text *t, const struct tl_process_stats *p, int w)
{
	uint64_t total = 0;
	int done[TL_ST__COUNT] = { 0 }, left = w;

	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		total += p->state_ns[s];
	for (int k = 0; k < 3; k++) {
		unsigned best = TL_ST__COUNT;
		char item[32];
		int len;

		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			if (!done[s] && p->state_ns[s] && (best == TL_ST__COUNT || p->state_ns[s] > p->state_ns[best]))
				best = s;
		/* a state that rounds to 0% says nothing here */
		if (best == TL_ST__COUNT || (k && tl_fmt_pct(p->state_ns[best], total) < 0.5))
			break;
		done[best] = 1;
		len = snprintf(item, sizeof(item), "%s%s %.0f%%", k ? ", " : "", tl_state_short_name(best),
		               tl_fmt_pct(p->state_ns[best], total));
		if (len > left)
			break;
		fputs(item, t->f);
		left -= len;
	}
	if (!total)
		fputs("-", t->f);
}

static void process_table(struct text *t)
{
	const struct tl_model *m = t->m;
	int tail = t->width - (7 + 2 + NAME_W + 8 + 10 + 10 + 8 + 6 + 2);
	char b[3][16];

	section(t, "PROCESSES", "%machine: CPU time over all CPUs; %avail: over the CPUs it may use");
	if (!t->nprocs) {
		fputs("(no processes in the window)\n", t->f);
		return;
	}
	if (tail < 16)
		tail = 16;
	fprintf(t->f, "%7s  %-*s %7s %9s %9s %7s %5s  %s\n", "pid", NAME_W, "name", "threads", "cpu time", "%machine",
	        "%avail", "cpus", "main states");
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct tl_process_stats *p = &m->procs[i];
		char cpus[24];

		fprintf(t->f, "%7d  ", p->pid);
		put_name(t->f, p->name, NAME_W);
		fmt_share_d(p->cpu_ns, p->cpu_pct_machine, b[1]);
		fmt_share_d(p->cpu_ns, p->cpu_pct_available, b[2]);
		snprintf(cpus, sizeof(cpus), "%d/%d", p->cpus_used, p->available_cpus);
		fprintf(t->f, " %7zu %9s %9s %7s %5s  ", p->nthreads, fmt_dur(p->cpu_ns, b[0]), b[1], b[2], cpus);
		put_main_states(t, p, tail);
		putc('\n', t->f);
	}
	more_rows(t, t->nprocs, m->nprocs, "processes");
}

/* The most waited-on locks (analysis/locks), when the trace gives the futex words. */
static void locks_table(struct text *t)
{
	size_t n;

	if (!t->nlocks)
		return;
	section(t, "LOCKS",
	        "waits in a lock's futex by its word: a mutex, a rwlock, a barrier; on CPU, convoy: what the holders "
	        "did");
	n = tl_locks_write_text(t->f, &t->m->locks, t->nlocks, t->width);
	more_rows(t, t->nlocks, n, "locks");
}

/* ---- the self-check ---- */

/* The first of m's threads with this tid, through tids (tl_report_tids_sort()); NULL if none. */
static const struct tl_thread_stats *thread_by_tid(const struct tl_model *m, const struct tl_report_tid *tids,
                                                   int32_t tid)
{
	const struct tl_report_tid *x = tl_report_tids_find(tids, m->nthreads, tid);

	return x ? &m->threads[x->i] : NULL;
}

/* Trace minus kernel, as a signed percentage of the window. */
static void put_dev(FILE *f, int64_t diff, uint64_t window)
{
	fprintf(f, " %+7.2f%%", window ? 100.0 * (double)diff / (double)window : 0.0);
}

/* One thread's row of the self-check. */
static void kcheck_row(struct text *t, const struct tl_kcheck_thread *k, const struct tl_thread_stats *th)
{
	uint64_t win = k->to - k->from;
	char b1[16], b2[16], b3[16], b4[16];

	fputs(k->ok ? "   " : "!! ", t->f);
	put_name(t->f, th->name, NAME_W);
	fprintf(t->f, " %7d %8s %8s", (int)k->tid, fmt_dur(k->trace.run_ns, b1), fmt_dur(k->kernel.run_ns, b2));
	put_dev(t->f, k->run_diff + k->lag_run_ns, win);
	if (k->have & TL_KCHECK_WAIT) {
		fprintf(t->f, " %8s %8s", fmt_dur(k->trace.wait_ns, b3), fmt_dur(k->kernel.wait_ns, b4));
		put_dev(t->f, k->wait_diff + k->lag_wait_ns, win);
	} else {
		fprintf(t->f, " %8s %8s %9s", "-", "-", "-");
	}
	if (k->have & TL_KCHECK_SWITCHES)
		fprintf(t->f, " %+7lld %+7lld\n", (long long)k->vol_diff, (long long)k->invol_diff);
	else
		fprintf(t->f, " %7s %7s\n", "-", "-");
}

/* 0, or -1 with tl_error set (out of memory). */
static int kcheck_table(struct text *t)
{
	const struct tl_model *m = t->m;
	const struct tl_kcheck_result *r = &m->kcheck;
	size_t shown = 0, kept = 0;
	struct tl_report_tid *tids;

	if (!r->nthreads)
		return 0;
	/* the model's threads by tid, for the lookups: threads may be tens of thousands */
	if (!(tids = malloc((m->nthreads ? m->nthreads : 1) * sizeof(*tids))))
		return tl_error("out of memory");
	for (size_t i = 0; i < m->nthreads; i++)
		tids[i] = (struct tl_report_tid){ m->threads[i].tid, i };
	tl_report_tids_sort(tids, m->nthreads);
	section(t, "Self-check against the kernel",
	        "trace vs the kernel's own accounting per thread; deviations in % of the thread's window");
	/* with the recorded clock lags, the deviations judged are the dated ones (kcheck.h) */
	fprintf(t->f, "   %-*s %7s %8s %8s %9s %8s %8s %9s %7s %7s\n", NAME_W, "THREAD", "TID", "ON-CPU", "KERNEL",
	        r->lags ? "DATED" : "DEV", "RUNQ", "KERNEL", r->lags ? "DATED" : "DEV", "VOL+-", "INVOL+-");
	/* the threads in disagreement first, all of them; then the others, up to the rows of the tables */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->nthreads; i++) {
			const struct tl_kcheck_thread *k = &r->threads[i];
			const struct tl_thread_stats *th;

			if (k->ok != pass || !(th = thread_by_tid(m, tids, k->tid)))
				continue; /* the other pass's, or a thread the report's filters leave out */
			if (kept++ >= t->nrows && pass)
				continue;
			shown++;
			kcheck_row(t, k, th);
		}
	more_rows(t, shown, kept, "threads");
	if (r->lags)
		fprintf(t->f,
		        "(DATED: trace - kernel, with the trace's switches and enqueues dated where the kernel dates "
		        "them,\n"
		        " by the clock lags the recorder read; as recorded, up to %.2f%% on-CPU and %.2f%% run-queue "
		        "wait)\n",
		        r->max_run_pct, r->max_wait_pct);
	if (r->unchecked)
		fprintf(t->f, "(%zu threads with kernel counters could not be compared: no reading at one end)\n",
		        r->unchecked);
	free(tids);
	return 0;
}

/*
 * Where the OpenMP workers' time on a CPU went, per process that has them
 * (tl_model_omp_workers()): the runtime spins between the regions, which
 * the kernel counts as EXECUTING like the work.
 */
static void omp_workers(struct text *t)
{
	const struct tl_model *m = t->m;
	char b[16];

	for (size_t i = 0; i < m->nprocs; i++) {
		struct tl_omp_workers w;

		tl_model_omp_workers(m, m->procs[i].pid, &w);
		if (!w.threads || !w.exec_ns)
			continue;
		fprintf(t->f, "OpenMP workers of %s (%d): %d thread%s, %s EXECUTING: %.1f%% inside the regions,\n",
		        m->procs[i].name, (int)m->procs[i].pid, w.threads, w.threads > 1 ? "s" : "",
		        fmt_dur(w.exec_ns, b), tl_fmt_pct(w.inside_ns, w.exec_ns));
		fprintf(t->f,
		        "  %.1f%% at a round's start or barrier, %.1f%% between the regions (spinning in the "
		        "runtime)\n",
		        tl_fmt_pct(w.around_ns, w.exec_ns), tl_fmt_pct(w.between_ns, w.exec_ns));
	}
}

/* The parallel regions of the markers (analysis/regions): those with parallel rounds. */
static void regions_table(struct text *t)
{
	const struct tl_regions_result *r = &t->m->regions;
	size_t shown = 0;
	int w = NAME_W;

	/* names told apart by their ends (OpenMP's main._omp_fn.0, .1): as wide as they need, up to 32 */
	for (size_t i = 0; i < r->n; i++)
		if (r->regions[i].rounds_parallel && (int)strlen(r->regions[i].name) > w)
			w = strlen(r->regions[i].name) < 32 ? (int)strlen(r->regions[i].name) : 32;
	for (size_t i = 0; i < r->n; i++) {
		const struct tl_region_stats *g = &r->regions[i];
		uint64_t exec = 0, wait = 0, rounds = g->rounds_parallel + g->rounds_serial + g->rounds_dynamic;
		size_t nthreads = 0;
		char b1[16];

		if (!g->rounds_parallel)
			continue;
		if (!shown++) {
			section(t, "PARALLEL REGIONS",
			        "regions of markers or of OpenMP that several threads ran at once");
			fprintf(t->f, "%-*s %7s %7s %9s %9s %8s %8s %9s\n", w, "region", "pid", "threads", "rounds",
			        "mean", "spread", "uneven", "wait/run");
		}
		for (size_t k = 0; k < g->nthreads; k++)
			nthreads += g->threads[k].instances > 0;
		exec = g->before[TL_ST_EXECUTING] + g->inside[TL_ST_EXECUTING] + g->after[TL_ST_EXECUTING];
		wait = tl_regions_ready(g->before) + tl_regions_ready(g->inside) + tl_regions_ready(g->after) +
		       g->before[TL_ST_SYNC_WAIT] + g->inside[TL_ST_SYNC_WAIT] + g->after[TL_ST_SYNC_WAIT];
		put_name(t->f, g->name, w);
		fprintf(t->f, " %7d %7zu %4llu/%-4llu %9s %7.1f%% %7.1f%% %8.0f%%\n", (int)g->pid, nthreads,
		        (unsigned long long)g->rounds_parallel, (unsigned long long)rounds,
		        fmt_dur(g->wall_ns / g->rounds_parallel, b1), tl_fmt_pct(g->lost_ns, g->wall_ns),
		        tl_fmt_pct(g->work_lost_ns, g->work_max_ns), tl_fmt_pct(wait, exec));
	}
	if (shown)
		fputs("mean: first begin to last end of a parallel round; spread: last finish after the mean, % of "
		      "the\n"
		      "rounds; uneven: CPU time inside, (largest - mean) / largest; wait/run: waiting for a CPU or in\n"
		      "sync per time executing, from each round's start to its end\n",
		      t->f);
	for (size_t i = 0; shown && i < r->n; i++) {
		const struct tl_region_stats *g = &r->regions[i];

		if (g->rounds_parallel && tl_region_is_tasks(g))
			fprintf(t->f, "%.40s: OpenMP tasks (rounds: the tasks run side by side)\n", g->name);
		else if (g->rounds_parallel && g->barriers)
			fprintf(t->f, "%.40s: rounds are the parts between its barriers (the runtime's, %llu calls)\n",
			        g->name, (unsigned long long)g->barriers);
	}
	if (shown)
		omp_workers(t);
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
	cpu_table(&t);
	process_table(&t);
	locks_table(&t);
	regions_table(&t);
	rc = kcheck_table(&t);
	free(order);
	if (rc < 0)
		return -1;
	if (fflush(out) || ferror(out))
		return tl_error_errno("write error");
	return 0;
}
