/*
 * cpuuse_write.c - the writers of `threadlens util`: the terminal report and
 * the JSON document "threadlens-util" version 1 (docs/JSON.md, docs/UTIL.md).
 *
 * Writers print a tl_cpuuse_result and compute nothing but ratios (a time as
 * a share of the period).  The text fits in 100 columns; names from the
 * traced program are cleaned of control characters and cut to fit.  The
 * two intervals of P are always labelled so that nobody takes one for the
 * other: the confidence interval of the MEAN, and the central 95% range of
 * SINGLE values.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "output/json.h"
#include "output/trace_json.h"
#include "output/fmt.h"
#include "timeline/spans.h"
#include "analysis/cpuuse/cpuuse.h"

#define PCT_DECIMALS 3
#define NAME_COLS 20

static const char fault_note[] = "the trace records no page faults: a fault that sleeps (major) is in the asleep "
                                 "time, one served on the CPU (minor) is inside the net CPU time";

static uint64_t rel(const struct tl_cpuuse_result *r, uint64_t ts)
{
	return ts > r->run->trace_start ? ts - r->run->trace_start : 0;
}

/* 1 if the trace has the local timer's and the IPIs' time (format 1.4, x86): out of P like any interrupt. */
static int vectors(const struct tl_cpuuse_result *r)
{
	return !strcmp(r->run->info.irq_vectors, "recorded");
}

/* Switches and wakeups the state machine inferred (the kernel did not report them). */
static uint64_t inferred(const struct tl_cpuuse_result *r)
{
	return r->run->sched.inferred_switches + r->run->sched.inferred_wakeups;
}

/* Duration with four significant digits: "850ns", "12.34us", "3.012ms", "1.500s". */
static const char *dur(double ns, char *buf, size_t len)
{
	return tl_fmt_dur_sig(ns, 4, buf, len);
}

/*
 * An interval "lo .. hi" in one unit, with enough decimals that its width
 * shows (a narrow confidence interval of a large mean needs more than four
 * significant digits).
 */
static const char *interval(char *buf, size_t len, double lo, double hi)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" } };
	double a = fmax(fabs(lo), fabs(hi)), w;
	int u = a >= 999.95e6 ? 3 : a >= 999.95e3 ? 2 : a >= 999.95 ? 1 : 0, dec = u ? 3 : 0;

	w = (hi - lo) / units[u].scale;
	while (u && dec < 6 && w > 0 && w < 10 * pow(10, -dec))
		dec++;
	snprintf(buf, len, "%.*f .. %.*f%s", dec, lo / units[u].scale, dec, hi / units[u].scale, units[u].unit);
	return buf;
}

/* The untrusted name cleaned for a terminal, cut to `cols` characters ("~" marks a cut). */
static const char *name_cell(const char *in, char *out, size_t len, size_t cols, size_t *chars)
{
	*chars = tl_fmt_name_cut(in, cols, out, len);
	return out;
}

static const char *kinds_str(const struct tl_cpuuse_span *s, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned k = TL_SPAN_REGION; k <= TL_SPAN_FUNC; k++)
		if ((s->kinds_seen & (1u << k)) || (!s->kinds_seen && (int)k == s->kind))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", tl_span_kind_name(k));
	if (!o)
		snprintf(buf, len, "region, task or function");
	return buf;
}

/* ---- text ---- */

static void text_row(FILE *f, const char *label, const struct tl_cpuuse_moments *m)
{
	char a[24], b[24], c[24], d[24], e[24];

	if (!m->count) {
		fprintf(f, "  %-19s %10s\n", label, "-");
		return;
	}
	fprintf(f, "  %-19s %10s %10s %10s %10s %10s\n", label, dur(m->mean, a, sizeof(a)),
	        m->count > 1 ? dur(m->sd, b, sizeof(b)) : "-", dur((double)m->min, c, sizeof(c)),
	        dur((double)m->max, d, sizeof(d)), dur((double)m->sum, e, sizeof(e)));
}

/* One row per instance: 100 columns; under 100 "unknown" goes, under 90 "irq" too (--json has both). */
static void text_instances(FILE *f, const struct tl_cpuuse_result *r, const struct tl_cpuuse_span *s, int w)
{
	int unk = w >= 100, irq = w >= 90;
	char b[6][24];

	fprintf(f, "  instances (P = net CPU; times relative to the trace start):\n");
	fprintf(f, "  %8s %8s %11s %9s %9s", "id", "tid", "begin", "elapsed", "P");
	if (irq)
		fprintf(f, " %9s", "irq");
	fprintf(f, " %9s %9s", "ready", "asleep");
	if (unk)
		fprintf(f, " %9s", "unknown");
	fprintf(f, " %7s\n", s->period_ns ? "util%" : "");
	for (size_t i = 0; i < s->ninst; i++) {
		const struct tl_cpuuse_instance *in = &s->inst[i];
		fprintf(f, "  %8" PRIu64 " %8d %10.6fs %9s %9s", in->id, (int)in->tid, (double)rel(r, in->begin) / 1e9,
		        dur((double)in->elapsed_ns, b[0], sizeof(b[0])), dur((double)in->cpu_ns, b[1], sizeof(b[1])));
		if (irq)
			fprintf(f, " %9s", dur((double)in->irq_ns, b[2], sizeof(b[2])));
		fprintf(f, " %9s %9s", dur((double)in->ready_ns, b[3], sizeof(b[3])),
		        dur((double)in->asleep_ns, b[4], sizeof(b[4])));
		if (unk)
			fprintf(f, " %9s", dur((double)in->unknown_ns, b[5], sizeof(b[5])));
		if (s->period_ns)
			fprintf(f, " %7.2f", 100.0 * (double)in->cpu_ns / (double)s->period_ns);
		fputc('\n', f);
	}
}

static void text_span(FILE *f, const struct tl_cpuuse_result *r, const struct tl_cpuuse_span *s, int w)
{
	char nm[256], kinds[64], a[24], b[24], c[24], v[512], iv[80];
	size_t chars;
	int n;
	const char *worst = r->worst_pct >= 100 ? "max" : "p";

	name_cell(s->name, nm, sizeof(nm), 60, &chars);
	snprintf(v, sizeof(v), "'%s' (%s): %" PRIu64 " instance%s on %" PRIu64 " thread%s", nm,
	         kinds_str(s, kinds, sizeof(kinds)), s->cpu.count, s->cpu.count == 1 ? "" : "s", s->threads,
	         s->threads == 1 ? "" : "s");
	tl_fmt_wrap(f, "span ", v, w);
	if (s->incomplete) {
		snprintf(v, sizeof(v),
		         "%" PRIu64 " incomplete (cut by the end of the trace or window, or of an outer span)",
		         s->incomplete);
		tl_fmt_wrap(f, "  not measured: ", v, w);
	}
	if (s->outside)
		fprintf(f, "  not measured: %" PRIu64 " began before the window\n", s->outside);
	if (s->unmeasured)
		fprintf(f, "  not measured: %" PRIu64 " on threads the trace has no states for\n", s->unmeasured);
	if (!s->cpu.count) {
		fputc('\n', f);
		return;
	}
	fprintf(f, "  %-19s %10s %10s %10s %10s %10s\n", "per instance", "mean", "sd", "min", "max", "total");
	text_row(f, "net CPU (P)", &s->cpu);
	text_row(f, "elapsed", &s->elapsed);
	text_row(f, "irq/softirq", &s->irq);
	text_row(f, "ready (preempted)", &s->ready);
	text_row(f, "asleep/blocked", &s->asleep);
	text_row(f, "unknown", &s->unknown);
	fprintf(f, "  %-19s %10s\n", "page-fault stalls", "not recorded");
	if (s->has_ci)
		snprintf(v, sizeof(v), "%s  (Student t %.3f, %" PRIu64 " df)",
		         interval(iv, sizeof(iv), s->ci_low_ns, s->ci_high_ns), s->t_quantile, s->cpu.count - 1);
	else
		snprintf(v, sizeof(v), "- (needs 2 instances)");
	tl_fmt_wrap(f, "  P, 95% confidence interval of the MEAN:  ", v, w);
	snprintf(v, sizeof(v), "%s  (2.5%% .. 97.5%%%s)",
	         interval(iv, sizeof(iv), (double)s->range_low_ns, (double)s->range_high_ns),
	         s->quantiles_exact ? "" : ", within 3.2%");
	tl_fmt_wrap(f, "  P, central 95% of SINGLE values:         ", v, w);
	fprintf(f, "  P percentiles: p50 %s, p99 %s", dur((double)s->p50_ns, a, sizeof(a)),
	        dur((double)s->p99_ns, b, sizeof(b)));
	if (r->worst_pct < 100 && r->worst_pct != 99 && r->worst_pct != 50)
		fprintf(f, ", %s%g %s", worst, r->worst_pct, dur((double)s->worst_ns, c, sizeof(c)));
	fputc('\n', f);
	if (s->period_ns) {
		double per = (double)s->period_ns;
		n = snprintf(v, sizeof(v), "%s", dur(per, a, sizeof(a)));
		if (s->rate_hz > 0)
			n += snprintf(v + n, sizeof(v) - (size_t)n, " (%g Hz)", s->rate_hz);
		snprintf(v + n, sizeof(v) - (size_t)n, ": mean %.2f%%, p99 %.2f%%, max %.2f%%; elapsed mean %.2f%%",
		         100 * s->cpu.mean / per, 100 * (double)s->p99_ns / per, 100 * (double)s->cpu.max / per,
		         100 * s->elapsed.mean / per);
		tl_fmt_wrap(f, "  share of its period ", v, w);
	}
	if (s->ninst)
		text_instances(f, r, s, w);
	fputc('\n', f);
}

/*
 * The admission table: 96 columns; narrower, the module's name takes 14
 * columns, not 20, and the RM bound column goes (the line under the table
 * gives the bound of them all).
 */
static void text_admit_view(FILE *f, const struct tl_cpuuse_result *r, const char *title,
                            const struct tl_cpuuse_admit_row *rows, const struct tl_cpuuse_admit_total *t, int worst,
                            int w)
{
	const struct tl_cpuuse_admission *ad = &r->admission;
	int narrow = w < 96, cols = narrow ? 14 : NAME_COLS;
	char nm[256], p[24], v[320];
	size_t chars;

	fprintf(f, "  %s:\n", title);
	fprintf(f, "  %-*s %9s %10s %9s", cols, "module", "rate Hz", "P", "U");
	if (!narrow)
		fprintf(f, " %9s", "RM bound");
	fprintf(f, "  %-15s %s\n", "RM", "EDF");
	for (size_t i = 0; i < ad->n; i++) {
		const struct tl_cpuuse_span *s = &r->spans[ad->span[i]];
		const struct tl_cpuuse_admit_row *row = &rows[i];
		double rate = s->rate_hz > 0 ? s->rate_hz : 1e9 / (double)s->period_ns;
		char rm[32], edf[32];

		name_cell(s->name, nm, sizeof(nm), (size_t)cols, &chars);
		snprintf(rm, sizeof(rm), "%s %+.2f%%", row->rm_admitted ? "admit " : "reject", 100 * row->rm_slack);
		snprintf(edf, sizeof(edf), "%s %+.2f%%", row->edf_admitted ? "admit " : "reject", 100 * row->edf_slack);
		fprintf(f, "  %s%*s %9.2f %10s %8.3f%%", nm, (int)((size_t)cols - chars), "", rate,
		        dur(worst ? (double)s->worst_ns : s->cpu.mean, p, sizeof(p)), 100 * row->u);
		if (!narrow)
			fprintf(f, " %8.3f%%", 100 * row->rm_bound);
		fprintf(f, "  %-15s %s\n", rm, edf);
	}
	snprintf(v, sizeof(v), "U %.3f%%; RM bound %.3f%%: %s, slack %+.3f%%; EDF bound 100%%: %s, slack %+.3f%%",
	         100 * t->u, 100 * t->rm_bound, t->rm_fits ? "fits" : "does NOT fit", 100 * t->rm_slack,
	         t->edf_fits ? "fits" : "does NOT fit", 100 * t->edf_slack);
	snprintf(p, sizeof(p), "  all %zu: ", t->n);
	tl_fmt_wrap(f, p, v, w);
}

static void text_admission(FILE *f, const struct tl_cpuuse_result *r, int w)
{
	const struct tl_cpuuse_admission *ad = &r->admission;
	char title[96];

	if (!ad->n)
		return;
	tl_fmt_wrap(
	        f, "",
	        "admission test: sum of R x P <= B on one CPU (U = R x P); modules offered in the order given, each "
	        "admitted if it fits with those admitted before it; slack = bound - U so far",
	        w);
	text_admit_view(f, r, "with the mean of P", ad->mean_rows, &ad->mean, 0, w);
	if (r->worst_pct >= 100)
		snprintf(title, sizeof(title), "with the max of P (worst case seen)");
	else
		snprintf(title, sizeof(title), "with the p%g of P (worst-case view)", r->worst_pct);
	text_admit_view(f, r, title, ad->worst_rows, &ad->worst, 1, w);
	fprintf(f, "  RM bound n(2^(1/n) - 1) is sufficient, not necessary; it tends to ln 2 = 69.3%%\n");
}

int tl_cpuuse_write_admission_text(FILE *f, const struct tl_cpuuse_result *r, int width)
{
	text_admission(f, r, width > 0 ? width : 100);
	fflush(f);
	return ferror(f) ? tl_error("write error") : 0;
}

int tl_cpuuse_write_text(FILE *f, const struct tl_cpuuse_result *r, int width)
{
	int w = width > 0 ? width : 100;
	char nm[256], a[24], v[512];
	size_t chars;

	name_cell(r->run->path ? r->run->path : "", nm, sizeof(nm), 40, &chars);
	snprintf(v, sizeof(v), "%s, window %.3fs .. %.3fs (%s), %d CPUs", nm, (double)rel(r, r->run->win_start) / 1e9,
	         (double)rel(r, r->run->win_end) / 1e9,
	         dur((double)(r->run->win_end - r->run->win_start), a, sizeof(a)), r->run->info.ncpus);
	tl_fmt_wrap(f, "threadlens util: ", v, w);
	if (r->run->lost_total) {
		snprintf(v, sizeof(v),
		         "LOST EVENTS: %" PRIu64 " events dropped by the kernel; times near the gaps are uncertain",
		         r->run->lost_total);
		tl_fmt_wrap(f, "!! ", v, w);
	}
	if (r->run->spans.marks_lost)
		fprintf(f, "!! LOST MARKERS: %" PRIu64 " markers the program could not hand over\n",
		        r->run->spans.marks_lost);
	snprintf(v, sizeof(v),
	         "net CPU time: the span's thread EXECUTING inside the span.  Not in P: interrupts that hit it (%s), "
	         "time other threads ran (ready), waits (asleep); page faults are not recorded (docs/UTIL.md)",
	         vectors(r) ? "IRQ handlers, softirqs, the local timer and IPIs"
	                    : "IRQ handlers, softirqs; this trace lacks the local timer and IPIs: in P");
	tl_fmt_wrap(f, "P = ", v, w);
	fputc('\n', f);
	for (size_t i = 0; i < r->nspans; i++)
		text_span(f, r, &r->spans[i], w);
	text_admission(f, r, w);
	fflush(f);
	if (ferror(f))
		return tl_error("write error");
	return 0;
}

/* ---- JSON ---- */

static void json_moments(struct tl_json *j, const char *key, const struct tl_cpuuse_moments *m)
{
	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "mean_ns", (uint64_t)llround(m->mean));
	if (m->count > 1)
		tl_json_kv_uint(j, "sd_ns", (uint64_t)llround(m->sd));
	else {
		tl_json_key(j, "sd_ns");
		tl_json_null(j);
	}
	tl_json_kv_uint(j, "min_ns", m->min);
	tl_json_kv_uint(j, "max_ns", m->max);
	tl_json_kv_uint(j, "total_ns", m->sum);
	tl_json_end_object(j);
}

static void json_pct_or_null(struct tl_json *j, const char *key, double num, uint64_t den)
{
	if (den)
		tl_json_kv_double(j, key, 100.0 * num / (double)den, PCT_DECIMALS);
	else {
		tl_json_key(j, key);
		tl_json_null(j);
	}
}

static void json_instances(struct tl_json *j, const struct tl_cpuuse_result *r, const struct tl_cpuuse_span *s)
{
	tl_json_key(j, "instances");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < s->ninst; i++) {
		const struct tl_cpuuse_instance *in = &s->inst[i];
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_uint(j, "id", in->id);
		tl_json_kv_int(j, "tid", in->tid);
		tl_json_kv_string(j, "kind", tl_span_kind_name(in->kind));
		tl_json_kv_int(j, "depth", in->depth);
		tl_json_kv_int(j, "frame", in->frame);
		tl_json_kv_uint(j, "start_ns", rel(r, in->begin));
		tl_json_kv_uint(j, "end_ns", rel(r, in->end));
		tl_json_kv_uint(j, "elapsed_ns", in->elapsed_ns);
		tl_json_kv_uint(j, "cpu_ns", in->cpu_ns);
		tl_json_kv_uint(j, "irq_ns", in->irq_ns);
		tl_json_kv_uint(j, "ready_ns", in->ready_ns);
		tl_json_kv_uint(j, "asleep_ns", in->asleep_ns);
		tl_json_kv_uint(j, "unknown_ns", in->unknown_ns);
		tl_json_kv_uint(j, "page_fault_ns", in->fault_ns);
		json_pct_or_null(j, "util_pct", (double)in->cpu_ns, s->period_ns);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
}

static void json_span(struct tl_json *j, const struct tl_cpuuse_result *r, const struct tl_cpuuse_span *s,
                      int with_inst)
{
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_string(j, "name", s->name);
	tl_json_key(j, "kind");
	if (s->kind >= 0)
		tl_json_string(j, tl_span_kind_name((unsigned)s->kind));
	else
		tl_json_null(j);
	tl_json_key(j, "kinds_seen");
	tl_json_begin_array(j, TL_JSON_INLINE);
	for (unsigned k = TL_SPAN_REGION; k <= TL_SPAN_FUNC; k++)
		if (s->kinds_seen & (1u << k))
			tl_json_string(j, tl_span_kind_name(k));
	tl_json_end_array(j);
	tl_json_kv_uint(j, "count", s->cpu.count);
	tl_json_kv_uint(j, "threads", s->threads);
	tl_json_kv_uint(j, "incomplete", s->incomplete);
	tl_json_kv_uint(j, "outside_window", s->outside);
	tl_json_kv_uint(j, "unmeasured", s->unmeasured);
	tl_json_key(j, "rate_hz");
	if (s->rate_hz > 0)
		tl_json_double(j, s->rate_hz, 6);
	else
		tl_json_null(j);
	tl_json_key(j, "period_ns");
	if (s->period_ns)
		tl_json_uint(j, s->period_ns);
	else
		tl_json_null(j);

	tl_json_key(j, "cpu");
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_uint(j, "mean_ns", (uint64_t)llround(s->cpu.mean));
	tl_json_key(j, "sd_ns");
	if (s->cpu.count > 1)
		tl_json_uint(j, (uint64_t)llround(s->cpu.sd));
	else
		tl_json_null(j);
	tl_json_kv_uint(j, "min_ns", s->cpu.min);
	tl_json_kv_uint(j, "max_ns", s->cpu.max);
	tl_json_kv_uint(j, "total_ns", s->cpu.sum);
	tl_json_kv_uint(j, "p50_ns", s->p50_ns);
	tl_json_kv_uint(j, "p99_ns", s->p99_ns);
	tl_json_kv_uint(j, "worst_ns", s->worst_ns);
	tl_json_kv_bool(j, "quantiles_exact", s->quantiles_exact);
	tl_json_key(j, "mean_ci95");
	if (s->has_ci) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		/* as computed: a tiny, widely spread sample can give a low end below 0 */
		tl_json_kv_int(j, "low_ns", llround(s->ci_low_ns));
		tl_json_kv_int(j, "high_ns", llround(s->ci_high_ns));
		tl_json_kv_double(j, "t", s->t_quantile, 6);
		tl_json_kv_uint(j, "df", s->cpu.count - 1);
		tl_json_end_object(j);
	} else {
		tl_json_null(j);
	}
	tl_json_key(j, "values_central95");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_uint(j, "low_ns", s->range_low_ns);
	tl_json_kv_uint(j, "high_ns", s->range_high_ns);
	tl_json_end_object(j);
	tl_json_end_object(j);

	json_moments(j, "elapsed", &s->elapsed);
	json_moments(j, "irq", &s->irq);
	json_moments(j, "ready", &s->ready);
	json_moments(j, "asleep", &s->asleep);
	json_moments(j, "unknown", &s->unknown);
	tl_json_key(j, "page_fault");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_bool(j, "recorded", 0);
	tl_json_kv_uint(j, "total_ns", 0);
	tl_json_end_object(j);
	tl_json_key(j, "state_ns");
	tl_json_begin_object(j, TL_JSON_INLINE);
	for (unsigned st = 0; st < TL_ST__COUNT; st++)
		tl_json_kv_uint(j, tl_state_name(st), s->state_ns[st]);
	tl_json_end_object(j);
	tl_json_key(j, "utilization");
	if (s->period_ns && s->cpu.count) {
		tl_json_begin_object(j, TL_JSON_INLINE);
		json_pct_or_null(j, "mean_pct", s->cpu.mean, s->period_ns);
		json_pct_or_null(j, "p99_pct", (double)s->p99_ns, s->period_ns);
		json_pct_or_null(j, "worst_pct", (double)s->worst_ns, s->period_ns);
		json_pct_or_null(j, "max_pct", (double)s->cpu.max, s->period_ns);
		json_pct_or_null(j, "elapsed_mean_pct", s->elapsed.mean, s->period_ns);
		tl_json_end_object(j);
	} else {
		tl_json_null(j);
	}
	if (with_inst)
		json_instances(j, r, s);
	tl_json_end_object(j);
}

static void json_view(struct tl_json *j, const char *key, const struct tl_cpuuse_result *r,
                      const struct tl_cpuuse_admit_row *rows, const struct tl_cpuuse_admit_total *t, int worst)
{
	const struct tl_cpuuse_admission *ad = &r->admission;

	tl_json_key(j, key);
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_key(j, "modules");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < ad->n; i++) {
		const struct tl_cpuuse_span *s = &r->spans[ad->span[i]];
		const struct tl_cpuuse_admit_row *row = &rows[i];
		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_string(j, "name", s->name);
		tl_json_kv_double(j, "rate_hz", s->rate_hz > 0 ? s->rate_hz : 1e9 / (double)s->period_ns, 6);
		tl_json_kv_uint(j, "p_ns", worst ? s->worst_ns : (uint64_t)llround(s->cpu.mean));
		tl_json_kv_double(j, "u_pct", 100 * row->u, PCT_DECIMALS);
		tl_json_kv_double(j, "rm_bound_pct", 100 * row->rm_bound, PCT_DECIMALS);
		tl_json_kv_bool(j, "rm_admitted", row->rm_admitted);
		tl_json_kv_double(j, "rm_slack_pct", 100 * row->rm_slack, PCT_DECIMALS);
		tl_json_kv_bool(j, "edf_admitted", row->edf_admitted);
		tl_json_kv_double(j, "edf_slack_pct", 100 * row->edf_slack, PCT_DECIMALS);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_kv_uint(j, "n", t->n);
	tl_json_kv_double(j, "u_pct", 100 * t->u, PCT_DECIMALS);
	tl_json_kv_double(j, "rm_bound_pct", 100 * t->rm_bound, PCT_DECIMALS);
	tl_json_kv_bool(j, "rm_fits", t->rm_fits);
	tl_json_kv_double(j, "rm_slack_pct", 100 * t->rm_slack, PCT_DECIMALS);
	tl_json_kv_uint(j, "rm_admitted", t->rm_admitted);
	tl_json_kv_bool(j, "edf_fits", t->edf_fits);
	tl_json_kv_double(j, "edf_slack_pct", 100 * t->edf_slack, PCT_DECIMALS);
	tl_json_kv_uint(j, "edf_admitted", t->edf_admitted);
	tl_json_end_object(j);
}

void tl_cpuuse_json_admission(struct tl_json *j, const struct tl_cpuuse_result *r)
{
	const struct tl_cpuuse_admission *ad = &r->admission;
	char worst[32];

	tl_json_key(j, "admission");
	if (!ad->n) {
		tl_json_null(j);
		return;
	}
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_int(j, "cpus", 1);
	if (r->worst_pct >= 100)
		snprintf(worst, sizeof(worst), "max");
	else
		snprintf(worst, sizeof(worst), "p%g", r->worst_pct);
	tl_json_kv_string(j, "worst_case", worst);
	json_view(j, "mean", r, ad->mean_rows, &ad->mean, 0);
	json_view(j, "worst", r, ad->worst_rows, &ad->worst, 1);
	tl_json_end_object(j);
}

int tl_cpuuse_write_json(FILE *f, const struct tl_cpuuse_result *r)
{
	struct tl_json j;
	tl_json_init(&j, f, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-util");
	tl_json_kv_int(&j, "version", 1);
	tl_json_trace(&j, r->run);
	tl_json_window(&j, r->run);
	tl_json_kv_uint(&j, "lost_events", r->run->lost_total);
	tl_json_kv_uint(&j, "marks_lost", r->run->spans.marks_lost);
	tl_json_kv_uint(&j, "inferred", inferred(r));
	tl_json_key(&j, "page_faults");
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_bool(&j, "recorded", 0);
	tl_json_kv_string(&j, "note", fault_note);
	tl_json_end_object(&j);
	tl_json_key(&j, "local_timer_ipi"); /* removed from P (irq time) when recorded */
	tl_json_begin_object(&j, TL_JSON_INLINE);
	tl_json_kv_bool(&j, "recorded", vectors(r));
	tl_json_end_object(&j);
	tl_json_key(&j, "spans");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->nspans; i++)
		json_span(&j, r, &r->spans[i], r->instances_kept);
	tl_json_end_array(&j);
	tl_cpuuse_json_admission(&j, r);
	tl_json_key(&j, "other_spans");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (size_t i = 0; i < r->nseen; i++)
		tl_json_string(&j, r->seen[i]);
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}
