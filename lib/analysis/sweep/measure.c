/*
 * measure.c - tl_sweep_measure(): one run's figures for the results
 * database, from the same analyses as util, hist, frames and report
 * (measure.h).  Each analysis gets a fresh tl_run over the whole trace, as
 * the command would.
 */
#include "analysis/sweep/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpuuse/cpuuse.h"
#include "analysis/frames/frames.h"
#include "analysis/hist/hist.h"
#include "analysis/report/report.h"
#include "base/errors.h"

static void run_init(struct tl_run *run, const char *path)
{
	memset(run, 0, sizeof(*run));
	run->path = path;
	run->to_ns = -1;
}

/* util: every module in one pass. */
static int modules(const char *path, const struct tl_spec *s, struct tl_sweep_measure *m)
{
	struct tl_cpuuse_spec specs[TL_CPUUSE_MAX_SPANS];
	struct tl_cpuuse_opts o = { .specs = specs, .nspecs = s->nmodules };
	struct tl_cpuuse_result r = { 0 };
	struct tl_run run;
	int rc;

	if (s->nmodules > TL_CPUUSE_MAX_SPANS)
		return tl_error("at most %d MODULE lines", TL_CPUUSE_MAX_SPANS);
	for (size_t i = 0; i < s->nmodules; i++)
		specs[i] = (struct tl_cpuuse_spec){ .name = s->modules[i].span, .rate_hz = s->modules[i].hz };
	run_init(&run, path);
	rc = tl_cpuuse_analyze(&run, &o, &r);
	for (size_t i = 0; rc == 0 && i < r.nspans; i++) {
		const struct tl_cpuuse_span *sp = &r.spans[i];
		struct tl_sweep_module *mo = &m->modules[i];
		mo->count = sp->cpu.count;
		mo->cpu_mean_ns = sp->cpu.mean;
		mo->cpu_sd_ns = sp->cpu.sd;
		mo->has_ci = sp->has_ci;
		mo->ci_low_ns = sp->ci_low_ns;
		mo->ci_high_ns = sp->ci_high_ns;
		mo->range_low_ns = sp->range_low_ns;
		mo->range_high_ns = sp->range_high_ns;
		mo->cpu_p50_ns = sp->p50_ns;
		mo->cpu_p99_ns = sp->p99_ns;
		mo->elapsed_mean_ns = sp->elapsed.mean;
		mo->irq_mean_ns = sp->irq.mean;
		mo->utilization = mo->rate_hz * sp->cpu.mean / 1e9;
	}
	if (rc == 0) {
		m->lost = run.lost_total;
		m->marks_lost = run.spans.marks_lost;
	}
	tl_cpuuse_result_release(&r);
	tl_run_release(&run);
	return rc;
}

/* hist: each module's lengths. */
static int lengths(const char *path, struct tl_sweep_module *mo)
{
	struct tl_hist_query q = { .span = mo->span };
	struct tl_hist_result r = { 0 };
	struct tl_run run;
	int rc;

	run_init(&run, path);
	rc = tl_hist_analyze(&run, &q, &r);
	if (rc == 0 && r.stats.count) {
		mo->len_min_ns = r.stats.min;
		mo->len_max_ns = r.stats.max;
		for (int k = 0; k < TL_HIST_NPCT && k < 4; k++)
			mo->len_pct_ns[k] = r.pct[k];
	}
	tl_hist_result_release(&r);
	tl_run_release(&run);
	return rc;
}

static int frames(const char *path, struct tl_sweep_measure *m)
{
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;
	struct tl_run run;
	int rc;

	run_init(&run, path);
	rc = tl_frames_analyze(&run, &o, &r);
	if (rc == 0) {
		m->frames = r.completed;
		m->fps = r.fps;
		if (r.latency.count) {
			m->latency_mean_ns = r.latency.sum / r.latency.count;
			m->latency_p50_ns = tl_dist_percentile(&r.latency, 50);
			m->latency_p99_ns = tl_dist_percentile(&r.latency, 99);
			m->latency_max_ns = r.latency.max;
		}
	}
	tl_frames_release(&r);
	tl_run_release(&run);
	return rc;
}

static int threads(const char *path, struct tl_sweep_measure *m)
{
	struct tl_model model;
	struct tl_run run;
	int rc;

	run_init(&run, path);
	memset(&model, 0, sizeof(model));
	rc = tl_report_analyze(&run, &model);
	if (rc < 0) { /* the model is released */
		tl_run_release(&run);
		return -1;
	}
	if (model.nthreads && !(m->threads = calloc(model.nthreads, sizeof(*m->threads))))
		rc = tl_error("out of memory");
	for (size_t i = 0; m->threads && i < model.nthreads; i++) {
		const struct tl_thread_stats *t = &model.threads[i];
		struct tl_sweep_thread *o = &m->threads[m->nthreads++];
		o->tid = t->tid;
		o->pid = t->pid;
		memcpy(o->name, t->name, sizeof(o->name));
		memcpy(o->state_ns, t->state_ns, sizeof(o->state_ns));
	}
	tl_report_release(&model);
	tl_run_release(&run);
	return rc;
}

int tl_sweep_measure(const char *path, const struct tl_spec *s, struct tl_sweep_measure *m)
{
	memset(m, 0, sizeof(*m));
	if (s->nmodules && !(m->modules = calloc(s->nmodules, sizeof(*m->modules))))
		return tl_error("out of memory");
	m->nmodules = s->nmodules;
	for (size_t i = 0; i < s->nmodules; i++) {
		snprintf(m->modules[i].span, sizeof(m->modules[i].span), "%s", s->modules[i].span);
		m->modules[i].rate_hz = s->modules[i].hz;
	}
	if ((s->nmodules && modules(path, s, m) < 0) || frames(path, m) < 0 || threads(path, m) < 0)
		goto fail;
	for (size_t i = 0; i < m->nmodules; i++)
		if (lengths(path, &m->modules[i]) < 0)
			goto fail;
	return 0;
fail:
	tl_sweep_measure_release(m);
	return -1;
}

void tl_sweep_measure_release(struct tl_sweep_measure *m)
{
	free(m->modules);
	free(m->threads);
	memset(m, 0, sizeof(*m));
}
