/*
 * report_text_sys.c - the text report's tables of the machine and of the
 * checks: CPUs, processes, locks, parallel regions, the self-check against
 * the kernel (report_text_int.h).  Each fits t->width columns.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "analysis/report/report_text_int.h"

/* ---- CPUs ---- */

void tl_rtext_cpus(struct text *t)
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
	fprintf(t->f, " %6s %8s  %s\n", "util", "switches", tail >= 21 ? "top processes (share)" : "top processes");
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

void tl_rtext_processes(struct text *t)
{
	const struct tl_model *m = t->m;
	int tail = t->width - (7 + 2 + NAME_W + 8 + 10 + 10 + 8 + 6 + 2);
	char b[3][16];

	section(t, "PROCESSES", "%machine: CPU time over all CPUs; %avail: over the CPUs it may use");
	if (!t->nprocs) {
		fputs("(no processes in the window)\n", t->f);
		return;
	}
	if (tail < 11) /* "main states", "SYNC 75%" */
		tail = 11;
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
void tl_rtext_locks(struct text *t)
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

/* One thread's row of the self-check; with the kernel's own figures (`kernel`) or only the deviations. */
static void kcheck_row(struct text *t, const struct tl_kcheck_thread *k, const struct tl_thread_stats *th, int kernel)
{
	uint64_t win = k->to - k->from;
	char b1[16], b2[16], b3[16], b4[16];

	fputs(k->ok ? "   " : "!! ", t->f);
	put_name(t->f, th->name, NAME_W);
	fprintf(t->f, " %7d %8s", (int)k->tid, fmt_dur(k->trace.run_ns, b1));
	if (kernel)
		fprintf(t->f, " %8s", fmt_dur(k->kernel.run_ns, b2));
	put_dev(t->f, k->run_diff + k->lag_run_ns, win);
	if (k->have & TL_KCHECK_WAIT) {
		fprintf(t->f, " %8s", fmt_dur(k->trace.wait_ns, b3));
		if (kernel)
			fprintf(t->f, " %8s", fmt_dur(k->kernel.wait_ns, b4));
		put_dev(t->f, k->wait_diff + k->lag_wait_ns, win);
	} else {
		fprintf(t->f, " %8s%s %9s", "-", kernel ? "        -" : "", "-");
	}
	if (k->have & TL_KCHECK_SWITCHES)
		fprintf(t->f, " %+7lld %+7lld\n", (long long)k->vol_diff, (long long)k->invol_diff);
	else
		fprintf(t->f, " %7s %7s\n", "-", "-");
}

/* 0, or -1 with tl_error set (out of memory). */
int tl_rtext_kcheck(struct text *t)
{
	const struct tl_model *m = t->m;
	const struct tl_kcheck_result *r = &m->kcheck;
	size_t shown = 0, kept = 0;
	struct tl_report_tid *tids;
	int kernel = t->width >= 98; /* the kernel's columns; narrower, the deviations alone */
	char v[320];

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
	fprintf(t->f, "   %-*s %7s %8s%s %9s %8s%s %9s %7s %7s\n", NAME_W, "THREAD", "TID", "ON-CPU",
	        kernel ? "   KERNEL" : "", r->lags ? "DATED" : "DEV", "RUNQ", kernel ? "   KERNEL" : "",
	        r->lags ? "DATED" : "DEV", "VOL+-", "INVOL+-");
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
			kcheck_row(t, k, th, kernel);
		}
	more_rows(t, shown, kept, "threads");
	if (r->lags) {
		snprintf(v, sizeof(v),
		         "DATED: trace - kernel, with the trace's switches and enqueues dated where the kernel dates "
		         "them, by the clock lags the recorder read; as recorded, up to %.2f%% on-CPU and %.2f%% "
		         "run-queue wait)",
		         r->max_run_pct, r->max_wait_pct);
		tl_fmt_wrap(t->f, "(", v, t->width);
	}
	if (!kernel)
		tl_fmt_wrap(t->f, "(",
		            "the kernel's own figures: --width 98 or --json; ON-CPU and RUNQ are the trace's)",
		            t->width);
	if (r->unchecked) {
		snprintf(v, sizeof(v), "%zu threads with kernel counters could not be compared: no reading at one end)",
		         r->unchecked);
		tl_fmt_wrap(t->f, "(", v, t->width);
	}
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
	char b[16], v[320];

	for (size_t i = 0; i < m->nprocs; i++) {
		struct tl_omp_workers w;

		tl_model_omp_workers(m, m->procs[i].pid, &w);
		if (!w.threads || !w.exec_ns)
			continue;
		/* the process's name is cleaned by the wrap */
		snprintf(v, sizeof(v),
		         "OpenMP workers of %s (%d): %d thread%s, %s EXECUTING: %.1f%% inside the regions, %.1f%% at "
		         "a round's start or barrier, %.1f%% between the regions (spinning in the runtime)",
		         m->procs[i].name, (int)m->procs[i].pid, w.threads, w.threads > 1 ? "s" : "",
		         fmt_dur(w.exec_ns, b), tl_fmt_pct(w.inside_ns, w.exec_ns), tl_fmt_pct(w.around_ns, w.exec_ns),
		         tl_fmt_pct(w.between_ns, w.exec_ns));
		tl_fmt_wrap(t->f, "", v, t->width);
	}
}

/* The parallel regions of the markers (analysis/regions): those with parallel rounds. */
void tl_rtext_regions(struct text *t)
{
	const struct tl_regions_result *r = &t->m->regions;
	size_t shown = 0;
	int w = NAME_W;

	/* names told apart by their ends (OpenMP's main._omp_fn.0, .1): as wide as they need, up to 32 */
	for (size_t i = 0; i < r->n; i++)
		if (r->regions[i].rounds_parallel && (int)strlen(r->regions[i].name) > w)
			w = strlen(r->regions[i].name) < 32 ? (int)strlen(r->regions[i].name) : 32;
	if (w > t->width - 64) /* the numbers' 64 columns first */
		w = t->width - 64 < NAME_W ? NAME_W : t->width - 64;
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
		tl_fmt_wrap(
		        t->f, "",
		        "mean: first begin to last end of a parallel round; spread: last finish after the mean, % of "
		        "the rounds; uneven: CPU time inside, (largest - mean) / largest; wait/run: waiting for a "
		        "CPU or in sync per time executing, from each round's start to its end",
		        t->width);
	for (size_t i = 0; shown && i < r->n; i++) {
		const struct tl_region_stats *g = &r->regions[i];
		char v[160];

		if (g->rounds_parallel && tl_region_is_tasks(g))
			snprintf(v, sizeof(v), "%.40s: OpenMP tasks (rounds: the tasks run side by side)", g->name);
		else if (g->rounds_parallel && g->barriers)
			snprintf(v, sizeof(v),
			         "%.40s: rounds are the parts between its barriers (the runtime's, %llu calls)",
			         g->name, (unsigned long long)g->barriers);
		else
			continue;
		tl_fmt_wrap(t->f, "", v, t->width);
	}
	if (shown)
		omp_workers(t);
}
