/*
 * test_util.c - `threadlens util` on hand-written traces and hand-computed
 * numbers, with exact expectations: the net CPU time of a span hit by an
 * IRQ, a softirq and a preemption by another thread; sleeps and waits for
 * a CPU; nesting, kind prefixes, incomplete spans and the window; the
 * statistics (t quantiles, moments, confidence interval, central range,
 * percentiles); the RM / EDF admission arithmetic; and the JSON document.
 *
 * The trace is written with the real writer and read back with the real
 * reader, so the test covers the path the command takes.
 * `test_util --write-trace FILE` only writes that trace, for
 * tests/cli/test_util.sh, which checks the same numbers through the binary.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "event_build.h"
#include "harness.h"
#include "output/json.h"
#include "timeline/spans.h"
#include "analysis/cpuuse/cpuuse.h"

#define US 1000ull
#define T0 (1000 * US)

static struct tl_trace_writer *W;
static char path[] = "/tmp/tl-test-util-XXXXXX";

static void ev(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, uint16_t flags,
               const char *name)
{
	struct tl_event e = event_us(ts_us, cpu, type, tid, arg, a, 0, 0, flags);
	if (type == TL_EV_SWITCH) {
		e.b = 120;
		e.c = 120;
	} else if (type == TL_EV_WAKEUP || type == TL_EV_WAKING) {
		e.b = 120;
	}
	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

static void mark(uint64_t ts_us, unsigned type, int32_t tid, const char *name)
{
	ev(ts_us, -1, type, tid, 0, (type == TL_EV_REGION_BEGIN || type == TL_EV_TASK_BEGIN) ? -1 : 0, 0, name);
}

/*
 * "mod" (100) runs the module "step"; "other" (200) preempts it once.
 *
 * step #1, 1010-1060 (50 us) on cpu0: executes 1010-1020, IRQ 1020-1025,
 *   executes 1025-1030, preempted by "other" 1030-1045, executes 1045-1050,
 *   softirq 1050-1052, executes 1052-1060: P = 10 + 5 + 5 + 8 = 28 us,
 *   irq 7 us, ready 15 us.
 * step #2, 1070-1100 (30 us): executes 1070-1080 on cpu0, sleeps 1080-1090,
 *   woken onto cpu1, waits 1090-1095, executes 1095-1100: P = 15 us,
 *   asleep 10 us, ready 5 us.
 * task "outer" 1110-1130 holds step #3, 1112-1120: P = 8 us.
 * region "other-step" 1135-1138 is not asked for.
 * step #4 begins at 1140 and never ends: incomplete.
 *
 * "late" (300) shows why instances are measured from closed intervals: it
 * sleeps at 1210, is woken at 1220 onto idle cpu0, and its switch-in is
 * not reported (this VM's kernel drops the idle task's events).  Its span
 * "late" 1225-1235 looks RUNNABLE until its switch-out at 1240 reveals
 * that it ran from 1220: P = 10 us, not 0.
 *
 * "woke" (400) sleeps from 1255; its wakeup and switch-in on idle cpu1 are
 * not reported either.  It marks "woke" at 1260, an IRQ hits it at 1270
 * (the first event that shows it on cpu1), it marks the end at 1280: its
 * own marker proves it ran from 1260, so P = 18 us and irq 2 us, not
 * asleep until 1270.
 */
static void write_trace(const char *to)
{
	struct tl_trace_info info = { 0 };
	struct tl_trace_end end = { 0 };
	uint64_t lost[2] = { 0, 0 };

	snprintf(info.clock, sizeof(info.clock), "monotonic");
	snprintf(info.source, sizeof(info.source), "test");
	info.ncpus = 2;
	info.target_mode = TL_TARGET_COMMAND;
	info.ntargets = 1;
	info.targets[0] = 100;
	info.start_ns = T0;
	W = tl_trace_writer_create(to, &info);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, "mod");
	ev(1000, -1, TL_EV_THREAD, 200, 200, 0, 0, "other");
	ev(1000, 0, TL_EV_SWITCH, 0, 100, 0, 0, NULL);
	ev(1000, 1, TL_EV_SWITCH, 0, 0, 0, 0, NULL);
	mark(1010, TL_EV_REGION_BEGIN, 100, "step");
	ev(1020, 0, TL_EV_IRQ_ENTRY, 100, 0, 5, TL_EVF_HARDIRQ, "eth0");
	ev(1025, 0, TL_EV_IRQ_EXIT, 100, 0, 5, TL_EVF_HARDIRQ, NULL);
	ev(1029, 0, TL_EV_WAKEUP, 200, 100, 0, 0, NULL);
	ev(1030, 0, TL_EV_SWITCH, 100, 200, TL_PS_PREEMPT, 0, NULL);
	ev(1045, 0, TL_EV_SWITCH, 200, 100, TL_PS_S, 0, NULL);
	ev(1050, 0, TL_EV_SOFTIRQ_ENTRY, 100, 0, 1, TL_EVF_SOFTIRQ, NULL);
	ev(1052, 0, TL_EV_SOFTIRQ_EXIT, 100, 0, 1, TL_EVF_SOFTIRQ, NULL);
	mark(1060, TL_EV_REGION_END, 100, "step");

	mark(1070, TL_EV_REGION_BEGIN, 100, "step");
	ev(1080, 0, TL_EV_SWITCH, 100, 0, TL_PS_S, 0, NULL);
	ev(1090, 1, TL_EV_WAKEUP, 100, 0, 1, TL_EVF_HARDIRQ, NULL);
	ev(1095, 1, TL_EV_SWITCH, 0, 100, 0, 0, NULL);
	mark(1100, TL_EV_REGION_END, 100, "step");

	mark(1110, TL_EV_TASK_BEGIN, 100, "outer");
	mark(1112, TL_EV_REGION_BEGIN, 100, "step");
	mark(1120, TL_EV_REGION_END, 100, "step");
	mark(1130, TL_EV_TASK_END, 100, "outer");
	mark(1135, TL_EV_REGION_BEGIN, 100, "other-step");
	mark(1138, TL_EV_REGION_END, 100, "other-step");
	mark(1140, TL_EV_REGION_BEGIN, 100, "step");
	ev(1150, 1, TL_EV_SWITCH, 100, 0, TL_PS_S, 0, NULL);

	ev(1200, 0, TL_EV_SWITCH, 0, 300, 0, 0, NULL);
	ev(1210, 0, TL_EV_SWITCH, 300, 0, TL_PS_S, 0, NULL);
	ev(1220, 1, TL_EV_WAKEUP, 300, 0, 0, 0, NULL);
	mark(1225, TL_EV_REGION_BEGIN, 300, "late");
	mark(1235, TL_EV_REGION_END, 300, "late");
	ev(1240, 0, TL_EV_SWITCH, 300, 0, TL_PS_S, 0, NULL);

	ev(1250, 1, TL_EV_SWITCH, 0, 400, 0, 0, NULL);
	ev(1255, 1, TL_EV_SWITCH, 400, 0, TL_PS_S, 0, NULL);
	mark(1260, TL_EV_REGION_BEGIN, 400, "woke");
	ev(1270, 1, TL_EV_IRQ_ENTRY, 400, 0, 9, TL_EVF_HARDIRQ, "timer");
	ev(1272, 1, TL_EV_IRQ_EXIT, 400, 0, 9, TL_EVF_HARDIRQ, NULL);
	mark(1280, TL_EV_REGION_END, 400, "woke");
	ev(1285, 1, TL_EV_SWITCH, 400, 0, TL_PS_S, 0, NULL);
	CHECK(tl_trace_writer_flush(W, 1285 * US) == 0);
	end.end_ns = 1300 * US;
	end.ncpus = 2;
	end.lost_per_cpu = lost;
	CHECK(tl_trace_writer_close(W, &end) == 0);
}

/* The run of the last analysis: the window asked for, then the trace's summary. */
static struct tl_run run;

/* Measure specs in `path`, in the window [from, to] from the trace start (to < 0: to the end). */
static int analyze_window(int64_t from, int64_t to, const struct tl_cpuuse_spec *specs, size_t n,
                          struct tl_cpuuse_opts *o, struct tl_cpuuse_result *r)
{
	int rc;

	tl_run_release(&run);
	run = (struct tl_run){ .path = path, .from_ns = from, .to_ns = to };
	o->specs = specs;
	o->nspecs = n;
	rc = tl_cpuuse_analyze(&run, o, r);
	tl_run_close(&run);
	return rc;
}

static int analyze(const struct tl_cpuuse_spec *specs, size_t n, struct tl_cpuuse_opts *o, struct tl_cpuuse_result *r)
{
	return analyze_window(0, -1, specs, n, o, r);
}

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

TEST(net_cpu_of_instances)
{
	struct tl_cpuuse_spec specs[] = { { .name = "step", .rate_hz = 1000 } };
	struct tl_cpuuse_opts o = { .keep_instances = 1 };
	struct tl_cpuuse_result r;
	const struct tl_cpuuse_span *s;
	const struct tl_cpuuse_instance *in;

	CHECK_EQ_INT(analyze(specs, 1, &o, &r), 0);
	CHECK_EQ_INT(r.nspans, 1);
	s = &r.spans[0];
	CHECK_EQ_STR(s->name, "step");
	CHECK_EQ_INT(s->cpu.count, 3);
	CHECK_EQ_INT(s->incomplete, 1);
	CHECK_EQ_INT(s->unmeasured, 0);
	CHECK_EQ_INT(s->outside, 0);
	CHECK_EQ_INT(s->threads, 1);
	CHECK_EQ_INT(s->kinds_seen, 1u << TL_SPAN_REGION);
	CHECK_EQ_INT(s->ninst, 3);
	if (s->ninst == 3) {
		in = &s->inst[0]; /* IRQ, softirq and a preemption inside */
		CHECK_EQ_INT(in->begin, 1010 * US);
		CHECK_EQ_INT(in->elapsed_ns, 50 * US);
		CHECK_EQ_INT(in->cpu_ns, 28 * US);
		CHECK_EQ_INT(in->irq_ns, 7 * US);
		CHECK_EQ_INT(in->ready_ns, 15 * US);
		CHECK_EQ_INT(in->asleep_ns, 0);
		CHECK_EQ_INT(in->unknown_ns, 0);
		CHECK_EQ_INT(in->fault_ns, 0);
		CHECK_EQ_INT(in->tid, 100);
		in = &s->inst[1]; /* a sleep, then a wait for a CPU */
		CHECK_EQ_INT(in->elapsed_ns, 30 * US);
		CHECK_EQ_INT(in->cpu_ns, 15 * US);
		CHECK_EQ_INT(in->asleep_ns, 10 * US);
		CHECK_EQ_INT(in->ready_ns, 5 * US);
		CHECK_EQ_INT(in->irq_ns, 0);
		in = &s->inst[2]; /* nested in a task */
		CHECK_EQ_INT(in->elapsed_ns, 8 * US);
		CHECK_EQ_INT(in->cpu_ns, 8 * US);
		CHECK_EQ_INT(in->depth, 1);
	}
	CHECK_EQ_INT(s->state_ns[TL_ST_EXECUTING], 51 * US);
	CHECK_EQ_INT(s->state_ns[TL_ST_INTERRUPTED], 7 * US);
	CHECK_EQ_INT(s->state_ns[TL_ST_READY_PREEMPT], 15 * US);
	CHECK_EQ_INT(s->state_ns[TL_ST_RUNNABLE], 5 * US);
	CHECK_EQ_INT(s->state_ns[TL_ST_SLEEPING], 10 * US);
	/* P = {28, 15, 8} us: mean 17, sd sqrt(103) */
	CHECK_EQ_INT(s->cpu.min, 8 * US);
	CHECK_EQ_INT(s->cpu.max, 28 * US);
	CHECK_EQ_INT(s->cpu.sum, 51 * US);
	CHECK(near(s->cpu.mean, 17000, 1e-6));
	CHECK(near(s->cpu.sd, 1000 * sqrt(103), 1e-6));
	CHECK(s->has_ci);
	CHECK(near(s->t_quantile, 4.302652730, 1e-9));
	CHECK(near(s->ci_high_ns - s->cpu.mean, 4.302652730 * 1000 * sqrt(103) / sqrt(3), 1e-6));
	CHECK(near(s->cpu.mean - s->ci_low_ns, s->ci_high_ns - s->cpu.mean, 1e-6));
	CHECK_EQ_INT(s->range_low_ns, 8 * US); /* fewer than 40 values: min .. max */
	CHECK_EQ_INT(s->range_high_ns, 28 * US);
	CHECK_EQ_INT(s->p50_ns, 15 * US);
	CHECK_EQ_INT(s->p99_ns, 28 * US);
	CHECK_EQ_INT(s->worst_ns, 28 * US);
	CHECK_EQ_INT(s->quantiles_exact, 1);
	CHECK(near(s->elapsed.mean, 88000.0 / 3, 1e-6));
	CHECK_EQ_INT(s->irq.sum, 7 * US);
	CHECK_EQ_INT(s->period_ns, 1000 * US);
	/* one module at 1 kHz with P 17 us: U = 1.7% */
	CHECK_EQ_INT(r.admission.n, 1);
	if (r.admission.n == 1) {
		CHECK(near(r.admission.mean.u, 0.017, 1e-12));
		CHECK(near(r.admission.worst.u, 0.028, 1e-12));
		CHECK(r.admission.mean.rm_fits && r.admission.mean.edf_fits);
	}
	CHECK_EQ_INT(r.nseen, 4); /* "outer", "other-step", "late", "woke" */
	CHECK_EQ_INT(run.lost_total, 0);
	tl_cpuuse_result_release(&r);
}

TEST(kinds_window_and_missing)
{
	struct tl_cpuuse_spec specs[] = {
		{ .name = "task:step" },   /* no task is called step */
		{ .name = "region:step" }, /* the three regions */
		{ .name = "outer", .period_ns = 100 * US },
		{ .name = "nowhere" },
	};
	struct tl_cpuuse_opts o = { .worst_pct = 100 };
	struct tl_cpuuse_result r;

	CHECK_EQ_INT(analyze(specs, 4, &o, &r), 0);
	CHECK_EQ_INT(r.spans[0].cpu.count, 0);
	CHECK_EQ_INT(r.spans[0].kind, TL_SPAN_TASK);
	CHECK_EQ_INT(r.spans[1].cpu.count, 3);
	CHECK_EQ_INT(r.spans[1].ninst, 0); /* not kept unless asked */
	CHECK_EQ_INT(r.spans[2].cpu.count, 1);
	CHECK_EQ_INT(r.spans[2].cpu.sum, 20 * US);
	CHECK_EQ_INT(r.spans[2].kinds_seen, 1u << TL_SPAN_TASK);
	CHECK_EQ_INT(r.spans[2].has_ci, 0);
	CHECK_EQ_INT(r.spans[3].cpu.count + r.spans[3].incomplete, 0);
	/* only "outer" has a period: a module at 10 kHz using 20 us, U = 20% */
	CHECK_EQ_INT(r.admission.n, 1);
	CHECK(near(r.admission.mean.u, 0.2, 1e-12));
	tl_cpuuse_result_release(&r);

	/* a window from 1065 us: step #1 is over before it, #2 and #3 count, #4 is cut */
	o = (struct tl_cpuuse_opts){ 0 };
	CHECK_EQ_INT(analyze_window(65 * US, 145 * US, specs + 1, 1, &o, &r), 0);
	CHECK_EQ_INT(r.spans[0].cpu.count, 2);
	CHECK_EQ_INT(r.spans[0].cpu.sum, 23 * US);
	CHECK_EQ_INT(r.spans[0].incomplete, 1);
	tl_cpuuse_result_release(&r);

	/* a window from 1015 us: step #1 began before it */
	o = (struct tl_cpuuse_opts){ 0 };
	CHECK_EQ_INT(analyze_window(15 * US, -1, specs + 1, 1, &o, &r), 0);
	CHECK_EQ_INT(r.spans[0].outside, 1);
	CHECK_EQ_INT(r.spans[0].cpu.count, 2);
	tl_cpuuse_result_release(&r);
}

TEST(switches_inferred_later)
{
	struct tl_cpuuse_spec specs[] = { { .name = "late" } };
	struct tl_cpuuse_opts o = { 0 };
	struct tl_cpuuse_result r;

	CHECK_EQ_INT(analyze(specs, 1, &o, &r), 0);
	CHECK_EQ_INT(r.spans[0].cpu.count, 1);
	CHECK_EQ_INT(r.spans[0].cpu.sum, 10 * US);
	CHECK_EQ_INT(r.spans[0].ready.sum, 0);
	CHECK_EQ_INT(r.spans[0].elapsed.sum, 10 * US);
	CHECK(run.sched.inferred_switches + run.sched.inferred_wakeups >= 1);
	tl_cpuuse_result_release(&r);

	specs[0].name = "woke";
	CHECK_EQ_INT(analyze(specs, 1, &o, &r), 0);
	CHECK_EQ_INT(r.spans[0].cpu.count, 1);
	CHECK_EQ_INT(r.spans[0].cpu.sum, 18 * US);
	CHECK_EQ_INT(r.spans[0].irq.sum, 2 * US);
	CHECK_EQ_INT(r.spans[0].asleep.sum, 0);
	tl_cpuuse_result_release(&r);
}

TEST(bad_options)
{
	struct tl_cpuuse_spec specs[] = { { .name = "step", .rate_hz = -1 } };
	struct tl_cpuuse_opts o = { 0 };
	struct tl_cpuuse_result r;

	CHECK_EQ_INT(analyze(specs, 0, &o, &r), -1);
	tl_cpuuse_result_release(&r);
	CHECK_EQ_INT(analyze(specs, 1, &o, &r), -1);
	tl_cpuuse_result_release(&r);
	specs[0].rate_hz = 0;
	o.worst_pct = 101;
	CHECK_EQ_INT(analyze(specs, 1, &o, &r), -1);
	tl_cpuuse_result_release(&r);
}

TEST(json_document)
{
	struct tl_cpuuse_spec specs[] = { { .name = "step", .rate_hz = 1000 } };
	struct tl_cpuuse_opts o = { .keep_instances = 1 };
	struct tl_cpuuse_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_EQ_INT(analyze(specs, 1, &o, &r), 0);
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ_INT(tl_cpuuse_write_json(f, &r), 0);
	fclose(f);
	CHECK_EQ_INT(tl_json_check(buf, len), 0);
	CHECK(strstr(buf, "\"schema\": \"threadlens-util\"") != NULL);
	CHECK(strstr(buf, "\"cpu_ns\": 28000") != NULL);
	CHECK(strstr(buf, "\"mean_ns\": 17000") != NULL);
	CHECK(strstr(buf, "\"values_central95\": {\"low_ns\": 8000, \"high_ns\": 28000}") != NULL);
	CHECK(strstr(buf, "\"mean_pct\": 1.700") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK_EQ_INT(tl_cpuuse_write_text(f, &r, 0), 0);
	fclose(f);
	CHECK(strstr(buf, "confidence interval of the MEAN") != NULL);
	CHECK(strstr(buf, "central 95% of SINGLE values") != NULL);
	free(buf);
	tl_cpuuse_result_release(&r);
}

TEST(t_quantiles)
{
	CHECK(tl_cpuuse_t975(0) == 0);
	CHECK(near(tl_cpuuse_t975(1), 12.70620474, 1e-8));
	CHECK(near(tl_cpuuse_t975(2), 4.302652730, 1e-9));
	CHECK(near(tl_cpuuse_t975(10), 2.228138852, 1e-9));
	CHECK(near(tl_cpuuse_t975(30), 2.042272456, 1e-9));
	/* the series, against values from the incomplete beta function */
	CHECK(near(tl_cpuuse_t975(31), 2.039513446, 1e-7));
	CHECK(near(tl_cpuuse_t975(40), 2.021075390, 1e-7));
	CHECK(near(tl_cpuuse_t975(100), 1.983971519, 1e-8));
	CHECK(near(tl_cpuuse_t975(1000), 1.962339081, 1e-8));
	CHECK(near(tl_cpuuse_t975(100000000), 1.959964008, 1e-9)); /* z + (z^3 + z) / 4df */
}

TEST(moments_and_ranges)
{
	uint64_t v[] = { 10, 12, 14, 16, 18 }, many[80], ten[10];
	struct tl_cpuuse_moments m;
	double lo, hi, t;
	uint64_t a, b;

	tl_cpuuse_moments_of(v, 5, &m);
	CHECK_EQ_INT(m.count, 5);
	CHECK_EQ_INT(m.sum, 70);
	CHECK_EQ_INT(m.min, 10);
	CHECK_EQ_INT(m.max, 18);
	CHECK(near(m.mean, 14, 1e-12));
	CHECK(near(m.sd, sqrt(10), 1e-12));
	CHECK_EQ_INT(tl_cpuuse_ci95(&m, &lo, &hi, &t), 0);
	CHECK(near(t, 2.776445105, 1e-9));
	CHECK(near(lo, 14 - 2.776445105 * sqrt(10) / sqrt(5), 1e-9));
	CHECK(near(hi, 14 + 2.776445105 * sqrt(2), 1e-9));
	tl_cpuuse_moments_of(v, 1, &m);
	CHECK_EQ_INT(tl_cpuuse_ci95(&m, &lo, &hi, &t), -1);
	CHECK(m.sd == 0);
	tl_cpuuse_moments_of(v, 0, &m);
	CHECK_EQ_INT(m.count, 0);

	/* 80 values 1..80: floor(80/40) = 2 dropped on each side */
	for (int i = 0; i < 80; i++)
		many[i] = (uint64_t)i + 1;
	tl_cpuuse_central95(many, 80, &a, &b);
	CHECK_EQ_INT(a, 3);
	CHECK_EQ_INT(b, 78);
	tl_cpuuse_central95(many, 39, &a, &b);
	CHECK_EQ_INT(a, 1);
	CHECK_EQ_INT(b, 39);
	tl_cpuuse_central95(many, 40, &a, &b);
	CHECK_EQ_INT(a, 2);
	CHECK_EQ_INT(b, 39);
	tl_cpuuse_central95(many, 0, &a, &b);
	CHECK_EQ_INT(a + b, 0);

	for (int i = 0; i < 10; i++)
		ten[i] = (uint64_t)i + 1;
	CHECK_EQ_INT(tl_cpuuse_percentile(ten, 10, 50), 5);
	CHECK_EQ_INT(tl_cpuuse_percentile(ten, 10, 99), 10);
	CHECK_EQ_INT(tl_cpuuse_percentile(ten, 10, 90), 9);
	CHECK_EQ_INT(tl_cpuuse_percentile(ten, 10, 2.5), 1);
	CHECK_EQ_INT(tl_cpuuse_percentile(ten, 10, 100), 10);
	CHECK_EQ_INT(tl_cpuuse_percentile(many, 80, 99), 80);
	CHECK_EQ_INT(tl_cpuuse_percentile(many, 80, 97.5), 78);
	CHECK_EQ_INT(tl_cpuuse_percentile(ten, 0, 50), 0);
}

TEST(admission_arithmetic)
{
	/* U = 0.3, 0.2, 0.5: EDF takes all (exactly 1), RM rejects the third (1.0 > 0.7798) */
	double rate[] = { 30, 100, 25 }, p[] = { 10e6, 2e6, 20e6 };
	double rate2[] = { 50, 50, 10 }, p2[] = { 10e6, 10e6, 10e6 };
	struct tl_cpuuse_admit_row rows[3];
	struct tl_cpuuse_admit_total t;

	CHECK(near(tl_cpuuse_rm_bound(1), 1, 1e-15));
	CHECK(near(tl_cpuuse_rm_bound(2), 0.8284271247, 1e-10));
	CHECK(near(tl_cpuuse_rm_bound(3), 0.7797631497, 1e-10));
	CHECK(near(tl_cpuuse_rm_bound(1000000), log(2), 1e-6));

	tl_cpuuse_admit(rate, p, 3, rows, &t);
	CHECK(near(rows[0].u, 0.3, 1e-12));
	CHECK(rows[0].rm_admitted && rows[0].edf_admitted);
	CHECK(near(rows[0].rm_slack, 0.7, 1e-12));
	CHECK(rows[1].rm_admitted);
	CHECK(near(rows[1].rm_bound, 0.8284271247, 1e-10));
	CHECK(near(rows[1].rm_slack, 0.8284271247 - 0.5, 1e-10));
	CHECK(!rows[2].rm_admitted);
	CHECK(near(rows[2].rm_slack, 0.7797631497 - 1.0, 1e-10));
	CHECK(rows[2].edf_admitted);
	CHECK(near(rows[2].edf_slack, 0, 1e-12));
	CHECK_EQ_INT(t.n, 3);
	CHECK(near(t.u, 1.0, 1e-12));
	CHECK(!t.rm_fits);
	CHECK(t.edf_fits);
	CHECK_EQ_INT(t.rm_admitted, 2);
	CHECK_EQ_INT(t.edf_admitted, 3);

	/* a rejected module does not count against the ones after it */
	tl_cpuuse_admit(rate2, p2, 3, rows, &t);
	CHECK(rows[0].rm_admitted);
	CHECK(!rows[1].rm_admitted);
	CHECK(near(rows[1].rm_slack, 0.8284271247 - 1.0, 1e-10));
	CHECK(rows[2].rm_admitted);
	CHECK(near(rows[2].rm_bound, 0.8284271247, 1e-10)); /* two admitted, with it */
	CHECK(near(rows[2].rm_slack, 0.8284271247 - 0.6, 1e-10));
	CHECK(rows[1].edf_admitted);
	CHECK(!rows[2].edf_admitted);
	CHECK(near(rows[2].edf_slack, -0.1, 1e-12));
	CHECK(!t.rm_fits && !t.edf_fits);
	CHECK(near(t.u, 1.1, 1e-12));
	CHECK_EQ_INT(t.rm_admitted, 2);
	CHECK_EQ_INT(t.edf_admitted, 2);
}

static void remove_trace(void)
{
	unlink(path);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--write-trace")) {
		write_trace(argv[2]);
		return harness_failed;
	}
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	write_trace(path);
	atexit(remove_trace);
	RUN_TESTS(net_cpu_of_instances, kinds_window_and_missing, switches_inferred_later, bad_options, json_document,
	          t_quantiles, moments_and_ranges, admission_arithmetic);
}
