/*
 * test_yspin.c - runs of sched_yield calls (analysis/yspin), exact: which
 * runs spin (at most TL_YSPIN_LOOP_NS between calls on average), a run
 * partly outside the window, runs found in the calls (a gap over
 * TL_YIELD_SPIN_GAP_NS, a run over TL_YIELD_SPIN_MAX_NS, time going
 * back), a damaged YIELD_SPIN ignored; and diagnose's yield-spinning on a
 * hand-written trace, once with the eBPF back end's YIELD_SPIN runs and
 * once with the perf back end's calls (YIELD_ENTER/EXIT), which must come
 * to the same runs.  The traces are written with the real writer and read
 * back with the real reader, as the commands do.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_build.h"
#include "harness.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"
#include "analysis/yspin/yspin.h"

#define US 1000ull
#define FAR 1000000000000ull

static struct tl_trace_writer *W;

static void ev(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, int64_t b, int64_t c,
               const char *name)
{
	struct tl_event e = event_us(ts_us, cpu, type, tid, arg, a, b, c, 0);
	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, NULL);
}

TEST(which_runs_spin)
{
	struct tl_yspin_sum s = { 0 };

	tl_yspin_add(&s, 100, 1100, 101, 0, FAR); /* 10 ns apart */
	CHECK_EQ_INT(s.calls, 101);
	CHECK_EQ_INT(s.ns, 1000);
	CHECK_EQ_INT(s.runs, 1);
	tl_yspin_add(&s, 0, 3 * TL_YSPIN_LOOP_NS, 4, 0, FAR); /* just at the line */
	CHECK_EQ_INT(s.runs, 2);
	CHECK_EQ_INT(s.ns, 1000 + 3 * TL_YSPIN_LOOP_NS);
	tl_yspin_add(&s, 0, 3 * TL_YSPIN_LOOP_NS + 1, 4, 0, FAR); /* just over: calls between real work */
	tl_yspin_add(&s, 500, 500, 1, 0, FAR);                    /* one call is no run */
	tl_yspin_add(&s, 100, 200, 50, 300, FAR);                 /* before the window */
	tl_yspin_add(&s, 100, 200, 50, 0, 99);                    /* after it */
	CHECK_EQ_INT(s.runs, 2);
	CHECK_EQ_INT(s.calls, 105);
	memset(&s, 0, sizeof(s));
	/* 1001 calls over 1000 ns, the window from 1500 and to 1900: half, then two fifths of them */
	tl_yspin_add(&s, 1000, 2000, 1001, 1500, FAR);
	CHECK_EQ_INT(s.ns, 500);
	CHECK_EQ_INT(s.calls, 501);
	tl_yspin_add(&s, 1000, 2000, 1001, 0, 1400);
	CHECK_EQ_INT(s.ns, 900);
	CHECK_EQ_INT(s.calls, 501 + 400);
	CHECK_EQ_INT(s.runs, 2);
}

TEST(runs_found_in_calls)
{
	struct tl_yspin_sum s = { 0 };
	struct tl_yspin_run r = { 0 };
	uint64_t t = 1000;

	for (int i = 0; i < 5; i++, t += 1000) /* 5 calls, 1 us apart */
		tl_yspin_call(&r, t, &s, 0, FAR);
	t += TL_YIELD_SPIN_GAP_NS; /* a gap just over the line ends the run */
	tl_yspin_call(&r, t, &s, 0, FAR);
	CHECK_EQ_INT(s.runs, 1);
	CHECK_EQ_INT(s.calls, 5);
	CHECK_EQ_INT(s.ns, 4000);
	tl_yspin_call(&r, t + TL_YIELD_SPIN_GAP_NS, &s, 0, FAR); /* at the line: the same run, 1 ms apart */
	tl_yspin_end(&r, &s, 0, FAR);
	CHECK_EQ_INT(s.runs, 1); /* 2 calls 1 ms apart: no spin */
	CHECK_EQ_INT(r.calls, 0);
	tl_yspin_end(&r, &s, 0, FAR); /* nothing open: nothing */
	CHECK_EQ_INT(s.runs, 1);
	/* a run that lasts TL_YIELD_SPIN_MAX_NS ends there, as the recorder's does */
	memset(&s, 0, sizeof(s));
	for (t = 0; t <= TL_YIELD_SPIN_MAX_NS; t += 5000)
		tl_yspin_call(&r, t, &s, 0, FAR);
	CHECK_EQ_INT(s.runs, 1);
	CHECK_EQ_INT(s.calls, TL_YIELD_SPIN_MAX_NS / 5000);
	CHECK_EQ_INT(r.calls, 1);
	tl_yspin_call(&r, 10, &s, 0, FAR); /* back in time: a new run */
	CHECK_EQ_INT(r.calls, 1);
	CHECK_EQ_INT(r.first, 10);
}

TEST(damaged_event)
{
	struct tl_yspin_sum s = { 0 };
	struct tl_event e = { .ts = 5000, .type = TL_EV_YIELD_SPIN, .tid = 1, .a = 10, .b = 900, .c = 100 };

	tl_yspin_event(&s, &e, 0, FAR);
	CHECK_EQ_INT(s.runs, 1);
	CHECK_EQ_INT(s.ns, 900); /* 4000 .. 4900 */
	e.c = 6000;              /* ended before the trace's clock began */
	tl_yspin_event(&s, &e, 0, FAR);
	e.c = 100;
	e.b = 4901;
	tl_yspin_event(&s, &e, 0, FAR);
	e.b = -1;
	tl_yspin_event(&s, &e, 0, FAR);
	e.b = 900;
	e.a = 1;
	tl_yspin_event(&s, &e, 0, FAR);
	CHECK_EQ_INT(s.runs, 1);
	CHECK_EQ_INT(s.calls, 10);
}

/*
 * app (900) computes on CPU 0 from 1000 to 1600 us; spin (901) on CPU 1
 * from 1000.  eBPF (perf 0): runs of 200 calls over 1030..1180, 2 calls
 * 90 us apart over 1200..1290 (no spin) and 1000 calls over 1340..1490.
 * perf: 151 calls 1 us apart over 1030..1180, a switch out 1190..1195, 2
 * calls at 1200 and 1290, a switch out 1300..1305, 151 calls over
 * 1340..1490 (the switches, 10 us after a call's return, are yields that
 * gave the CPU away: READY_YIELD).  Both: 300 us in 2 spinning runs; spin on a CPU 600 us
 * (eBPF) or 590 us (perf).
 */
static void write_spinner(char *p, int perf)
{
	W = program_trace_open(p, 900, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 900, 900, 0, 0, 2, "app");
	ev(1000, -1, TL_EV_THREAD, 901, 900, 0, 0, 0, "spin");
	sw(1000, 0, 0, 0, 900);
	sw(1000, 1, 0, 0, 901);
	if (!perf) {
		ev(1190, 1, TL_EV_YIELD_SPIN, 901, 0, 200, 150 * US, 10 * US, NULL);
		ev(1300, 1, TL_EV_YIELD_SPIN, 901, 0, 2, 90 * US, 10 * US, NULL);
		ev(1500, 1, TL_EV_YIELD_SPIN, 901, 0, 1000, 150 * US, 10 * US, NULL);
	} else {
		for (uint64_t t = 1030; t <= 1180; t++) {
			ev(t, 1, TL_EV_YIELD_ENTER, 901, 0, 0, 0, 0, NULL);
			ev(t, 1, TL_EV_YIELD_EXIT, 901, 0, 0, 0, 0, NULL);
		}
		sw(1190, 1, 901, TL_PS_PREEMPT, 0);
		sw(1195, 1, 0, 0, 901);
		for (uint64_t t = 1200; t <= 1290; t += 90) {
			ev(t, 1, TL_EV_YIELD_ENTER, 901, 0, 0, 0, 0, NULL);
			ev(t, 1, TL_EV_YIELD_EXIT, 901, 0, 0, 0, 0, NULL);
		}
		sw(1300, 1, 901, TL_PS_PREEMPT, 0);
		sw(1305, 1, 0, 0, 901);
		for (uint64_t t = 1340; t <= 1490; t++) {
			ev(t, 1, TL_EV_YIELD_ENTER, 901, 0, 0, 0, 0, NULL);
			ev(t, 1, TL_EV_YIELD_EXIT, 901, 0, 0, 0, 0, NULL);
		}
	}
	CHECK_EQ_INT(program_trace_close(W, 1600), 0);
}

TEST(yield_spinning)
{
	for (int perf = 0; perf < 2; perf++) {
		char p[] = "/tmp/tl-test-yspin-XXXXXX";
		struct tl_run run = { .to_ns = -1, .path = p };
		struct tl_diagnose_opts o;
		struct tl_findings f;
		struct tl_model m;
		const struct tl_thread_stats *t = NULL;
		const struct tl_finding *x = NULL;
		const uint64_t calls = perf ? 302 : 1200, oncpu = perf ? 590 * US : 600 * US;

		write_spinner(p, perf);
		CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
		for (size_t i = 0; i < m.nthreads; i++)
			if (m.threads[i].tid == 901)
				t = &m.threads[i];
		CHECK(t != NULL);
		if (t) {
			CHECK_EQ_INT(t->yield_spin.runs, 2);
			CHECK_EQ_INT(t->yield_spin.calls, calls);
			CHECK_EQ_INT(t->yield_spin.ns, 300 * US);
			CHECK_EQ_INT(t->state_ns[TL_ST_EXECUTING], oncpu);
		}
		tl_diagnose_defaults(&o);
		o.min_cost_ns = 100 * US;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(f.n, 1);
		CHECK_EQ_INT(f.checked[TL_FIND_YIELD_SPIN], 2);
		if (f.n == 1 && (x = &f.items[0])) {
			CHECK_EQ_INT(x->kind, TL_FIND_YIELD_SPIN);
			CHECK_EQ_INT(x->cost_ns, 300 * US);
			CHECK_EQ_INT(x->nthreads, 1);
			CHECK_EQ_INT(x->threads[0].tid, 901);
			CHECK_EQ_STR(x->threads[0].role, "spinner");
			/* 300 of 600 (590) us on a CPU, in thousandths of a % */
			CHECK_EQ_INT((int64_t)(x->evidence[0].value * 1000 + 0.5), perf ? 50847 : 50000);
			CHECK_EQ_INT((int64_t)x->evidence[1].value, 300 * US);
			CHECK_EQ_INT((int64_t)x->evidence[2].value, calls);
			/* the mean from one call to the next: 300 us over calls - 2 */
			CHECK_EQ_INT((int64_t)(x->evidence[3].value + 0.5), perf ? 1000 : 250);
			CHECK_EQ_INT((int64_t)x->evidence[4].value, 2);
			CHECK_EQ_INT((int64_t)x->evidence[5].value, perf ? 2 : 0); /* the switches 10 us after a call */
		}
		tl_findings_release(&f);
		/* a --yield-spin over its share, or a cost over its time, leaves it out */
		o.yield_spin_pct = perf ? 51 : 50.001;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(f.n, 0);
		tl_findings_release(&f);
		o.yield_spin_pct = 20;
		o.min_cost_ns = 300 * US + 1;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(f.n, 0);
		tl_findings_release(&f);
		tl_report_release(&m);
		tl_run_release(&run);
		unlink(p);
	}
}

int main(void)
{
	RUN_TESTS(which_runs_spin, runs_found_in_calls, damaged_event, yield_spinning);
}
