/*
 * report_filtered.c - what a filtered recording left in the kernel
 * (FILTERED events, trace/event.h), kept per CPU during the report's walk
 * and split over the CPUs' filtered stretches when the model is built.
 *
 * The kernel's totals cover the whole recording; a window gets them in
 * proportion to its filtered stretches (`take`: the parts never add up to
 * more than the stretch).  A CPU without totals keeps its filtered time as
 * unknown: nothing is invented.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report/report_int.h"
#include "base/errors.h"

/* What a filtered recording left in the kernel on one CPU, over the whole recording. */
struct filt {
	int have;
	uint64_t busy, idle, irq, softirq, unknown, switches;
	struct tl_cpu_stats procs; /* only procs/nprocs used */
};

struct tl_report_filt {
	int ncpus;
	struct filt cpu[];
};

struct tl_report_filt *tl_report_filt_new(int ncpus)
{
	struct tl_report_filt *f = calloc(1, sizeof(*f) + (size_t)ncpus * sizeof(f->cpu[0]));

	if (f)
		f->ncpus = ncpus;
	return f;
}

void tl_report_filt_free(struct tl_report_filt *f)
{
	for (int c = 0; f && c < f->ncpus; c++)
		free(f->cpu[c].procs.procs);
	free(f);
}

int tl_report_add_cpu_proc(struct tl_cpu_stats *c, int32_t pid, const char *name, uint64_t ns)
{
	struct tl_cpu_proc *np;

	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid) {
			c->procs[i].ns += ns;
			return 0;
		}
	np = realloc(c->procs, (c->nprocs + 1) * sizeof(*np));
	if (!np)
		return -1;
	c->procs = np;
	memset(&c->procs[c->nprocs], 0, sizeof(*np));
	c->procs[c->nprocs].pid = pid;
	snprintf(c->procs[c->nprocs].name, sizeof(c->procs[0].name), "%s", name);
	c->procs[c->nprocs].ns = ns;
	c->nprocs++;
	return 0;
}

/* A total the recorder wrote; a negative one (a damaged trace's) counts as none. */
static uint64_t nonneg(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

int tl_report_filt_event(struct tl_report_filt *fl, const struct tl_event *ev, struct tl_trace *trace)
{
	struct filt *f;

	if (ev->cpu < 0 || ev->cpu >= fl->ncpus)
		return 0;
	f = &fl->cpu[ev->cpu];
	f->have = 1;
	if (ev->arg == TL_FILT_CPU_TIME) {
		f->busy += nonneg(ev->a);
		f->idle += nonneg(ev->b);
		f->switches += nonneg(ev->c);
	} else if (ev->arg == TL_FILT_CPU_INTR) {
		f->irq += nonneg(ev->a);
		f->softirq += nonneg(ev->b);
		f->unknown += nonneg(ev->c);
	} else if (ev->arg == TL_FILT_PROCESS && ev->a > 0) {
		const char *name = ev->name ? tl_trace_string(trace, ev->name) : NULL;
		char nb[32];

		if (!name) {
			snprintf(nb, sizeof(nb), "[pid %d]", (int)ev->tid);
			name = nb;
		}
		return tl_report_add_cpu_proc(&f->procs, ev->tid, name, (uint64_t)ev->a);
	}
	return 0;
}

/* Move total * k of *left into *to: the parts never add up to more than there is. */
static void take(uint64_t *left, uint64_t total, double k, uint64_t *to)
{
	double want = (double)total * k;
	uint64_t part = want < (double)*left ? (uint64_t)want : *left;

	*to += part;
	*left -= part;
}

int tl_report_filt_split(const struct tl_report_filt *fl, struct tl_cpu_stats *cpus)
{
	for (int c = 0; c < fl->ncpus; c++) {
		struct tl_cpu_stats *cs = &cpus[c];
		const struct filt *f = &fl->cpu[c];
		uint64_t all = f->busy + f->idle + f->irq + f->softirq + f->unknown, left = cs->filtered_ns;
		double k;

		if (!cs->filtered_ns)
			continue;
		if (!f->have || !all) {
			cs->unknown_ns += cs->filtered_ns;
			continue;
		}
		k = (double)cs->filtered_ns / (double)all;
		take(&left, f->busy, k, &cs->busy_ns);
		take(&left, f->irq, k, &cs->irq_ns);
		take(&left, f->softirq, k, &cs->softirq_ns);
		take(&left, f->unknown, k, &cs->unknown_ns);
		cs->idle_ns += left;
		cs->switches += (uint64_t)((double)f->switches * k + 0.5);
		for (size_t i = 0; i < f->procs.nprocs; i++)
			if (tl_report_add_cpu_proc(cs, f->procs.procs[i].pid, f->procs.procs[i].name,
			                           (uint64_t)((double)f->procs.procs[i].ns * k)) < 0)
				return tl_error("out of memory");
	}
	return 0;
}
