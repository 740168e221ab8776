/*
 * report_csv.c - the report as CSV tables, one table per call.
 *
 * Every table starts with a header line; rows end with "\n".  Cells follow
 * RFC 4180: a cell holding a comma or a double quote is quoted, quotes
 * doubled.  Names are untrusted, so they are cleaned first (control
 * characters and invalid UTF-8 become '?': a row is always one line), and a
 * name that starts with '=', '+', '-' or '@' gets a leading apostrophe so
 * that spreadsheets do not run it as a formula.  Numbers are as in the JSON:
 * integer nanoseconds, instants relative to the trace start, percentages
 * with three decimals.  Row order and --top as in the JSON writer.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/errors.h"
#include "analysis/report/report_int.h"

static uint64_t rel(const struct tl_model *m, uint64_t ts)
{
	return ts > m->run->trace_start ? ts - m->run->trace_start : 0;
}

/* A text cell, with its leading comma unless it starts the row (tl_fmt_csv_cell). */
static void put_text(FILE *f, const char *s, int first)
{
	tl_fmt_csv_cell(f, s, first);
}

static void put_state_header(FILE *f, const char *suffix)
{
	for (unsigned s = 0; s < TL_ST__COUNT; s++) {
		char lower[32];
		size_t i;
		const char *name = tl_state_name(s);
		for (i = 0; name[i] && i < sizeof(lower) - 1; i++)
			lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
		lower[i] = 0;
		fprintf(f, ",%s%s", lower, suffix);
	}
}

static void put_dist(FILE *f, const struct tl_dist *d)
{
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, d->count, tl_dist_mean(d),
	        tl_dist_percentile(d, 50), tl_dist_percentile(d, 99), d->count ? d->max : 0);
}

/* "tid,pid,name" of a thread row. */
static void put_thread_id(FILE *f, const struct tl_thread_stats *t)
{
	fprintf(f, "%d,%d", t->tid, t->pid);
	put_text(f, t->name, 0);
}

static void csv_threads(FILE *f, const struct tl_model *m, const size_t *order, size_t n)
{
	fputs("tid,pid,name,process,target,start_ns,end_ns,lifetime_ns", f);
	put_state_header(f, "_ns");
	fputs(",voluntary,involuntary,yields,migrations", f);
	for (int k = 0; k < 3; k++) {
		static const char *const dn[] = { "sched_latency", "ready_wait", "bursts" };
		fprintf(f, ",%s_count,%s_mean_ns,%s_p50_ns,%s_p99_ns,%s_max_ns", dn[k], dn[k], dn[k], dn[k], dn[k]);
	}
	fputs(",top_waker_tid,top_waker_name\n", f);
	for (size_t r = 0; r < n; r++) {
		const struct tl_thread_stats *t = &m->threads[order[r]];
		put_thread_id(f, t);
		put_text(f, t->process, 0);
		fprintf(f, ",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64, t->is_target ? 1 : 0, rel(m, t->start),
		        rel(m, t->end), tl_report_lifetime(t));
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			fprintf(f, ",%" PRIu64, t->state_ns[s]);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, t->vol_switches, t->invol_switches,
		        t->yields, t->migrations);
		put_dist(f, &t->sched_latency);
		put_dist(f, &t->ready_wait);
		put_dist(f, &t->bursts);
		if (t->nwakers) {
			fprintf(f, ",%d", t->wakers[0].tid);
			put_text(f, t->wakers[0].name, 0);
		} else {
			fputs(",,", f);
		}
		putc('\n', f);
	}
}

static void csv_states(FILE *f, const struct tl_model *m, const size_t *order, size_t n)
{
	fputs("tid,pid,name,state,ns,pct,entries\n", f);
	for (size_t r = 0; r < n; r++) {
		const struct tl_thread_stats *t = &m->threads[order[r]];
		for (unsigned s = 0; s < TL_ST__COUNT; s++) {
			put_thread_id(f, t);
			fprintf(f, ",%s,%" PRIu64 ",%.3f,%" PRIu64 "\n", tl_state_name(s), t->state_ns[s],
			        tl_fmt_pct(t->state_ns[s], tl_report_lifetime(t)), t->entries[s]);
		}
	}
}

static void csv_transitions(FILE *f, const struct tl_model *m, const size_t *order, size_t n)
{
	fputs("tid,pid,name,from,to,count\n", f);
	for (size_t r = 0; r < n; r++) {
		const struct tl_thread_stats *t = &m->threads[order[r]];
		for (unsigned a = 0; a < TL_ST__COUNT; a++)
			for (unsigned b = 0; b < TL_ST__COUNT; b++) {
				if (!t->trans[a][b])
					continue;
				put_thread_id(f, t);
				fprintf(f, ",%s,%s,%u\n", tl_state_name(a), tl_state_name(b), (unsigned)t->trans[a][b]);
			}
	}
}

static void csv_wakers(FILE *f, const struct tl_model *m, const size_t *order, size_t n)
{
	fputs("tid,pid,name,waker_tid,waker_name,count,wait_ns\n", f);
	for (size_t r = 0; r < n; r++) {
		const struct tl_thread_stats *t = &m->threads[order[r]];
		for (size_t w = 0; w < t->nwakers; w++) {
			put_thread_id(f, t);
			fprintf(f, ",%d", t->wakers[w].tid);
			put_text(f, t->wakers[w].name, 0);
			fprintf(f, ",%" PRIu64 ",%" PRIu64 "\n", t->wakers[w].count, t->wakers[w].wait_ns);
		}
	}
}

static void csv_cpus(FILE *f, const struct tl_model *m)
{
	uint64_t win = m->run->win_end > m->run->win_start ? m->run->win_end - m->run->win_start : 0;

	fputs("cpu,busy_ns,irq_ns,softirq_ns,idle_ns,unknown_ns,util_pct,switches\n", f);
	for (int i = 0; m->cpus && i < m->ncpus; i++) {
		const struct tl_cpu_stats *c = &m->cpus[i];
		fprintf(f, "%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64 "\n", c->cpu,
		        c->busy_ns, c->irq_ns, c->softirq_ns, c->idle_ns, c->unknown_ns,
		        tl_fmt_pct(c->busy_ns + c->irq_ns + c->softirq_ns, win), c->switches);
	}
}

static void csv_processes(FILE *f, const struct tl_model *m, size_t n)
{
	fputs("pid,name,target,threads,start_ns,end_ns,cpu_ns,cpu_pct_machine,cpu_pct_available,"
	      "available_cpus,cpus_used",
	      f);
	put_state_header(f, "_ns");
	putc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct tl_process_stats *p = &m->procs[i];
		fprintf(f, "%d", p->pid);
		put_text(f, p->name, 0);
		fprintf(f, ",%d,%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%d,%d", p->is_target ? 1 : 0,
		        p->nthreads, rel(m, p->start), rel(m, p->end), p->cpu_ns, p->cpu_pct_machine,
		        p->cpu_pct_available, p->available_cpus, p->cpus_used);
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			fprintf(f, ",%" PRIu64, p->state_ns[s]);
		putc('\n', f);
	}
}

int tl_report_write_csv(FILE *out, const struct tl_model *m, int table, const struct tl_report_opts *o)
{
	size_t n, *order;

	if (table < 0 || table >= TL_CSV__COUNT)
		return tl_error("unknown CSV table %d", table);
	order = tl_report_thread_order(m, o ? o->sort : TL_REPORT_SORT_DEFAULT,
	                               tl_report_limit(o, m->nthreads, SIZE_MAX), &n);
	if (!order)
		return -1;
	switch (table) {
	case TL_CSV_THREADS: csv_threads(out, m, order, n); break;
	case TL_CSV_STATES: csv_states(out, m, order, n); break;
	case TL_CSV_TRANSITIONS: csv_transitions(out, m, order, n); break;
	case TL_CSV_WAKERS: csv_wakers(out, m, order, n); break;
	case TL_CSV_CPUS: csv_cpus(out, m); break;
	case TL_CSV_PROCESSES: csv_processes(out, m, tl_report_limit(o, m->nprocs, SIZE_MAX)); break;
	}
	free(order);
	if (fflush(out) || ferror(out))
		return tl_error_errno("write error");
	return 0;
}
