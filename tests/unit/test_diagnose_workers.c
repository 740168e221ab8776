/*
 * test_diagnose_workers.c - diagnose's findings on threads created for
 * work, on hand-written traces, exact: two threads created for a work, one
 * done long before the other, worker-imbalance (write_spawn()), also when
 * the trace does not know part of a worker's life, and not when the
 * creator fills a freed CPU with more work; child processes as make -j's
 * jobs (write_jobs()); a thread per task, thread-churn (write_churn()).  The trace is written with the real writer
 * and read back with the real reader, as the command does.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnose_test_util.h"

#define US 1000ull

/*
 * Work split among threads created for it: c (700) creates a (701) at 1005
 * and b (702) at 1006 and joins them; a computes on CPU 0 from 1010 and
 * exits at 4000, b on CPU 1 from 1010 and exits at b_end.  A team of two
 * on the 2 CPUs: with b_end 2100, CPU 1 is idle 2100-4000: 1900 us over 2
 * CPUs, 950 us lost of the team's 2995 (1005-4000), 31.72%; with b_end
 * 4000, none.
 *
 * With `gap`, agent (900, another process) preempts b at 1500 and the
 * switch back to b is not in the trace (a hypervisor agent's switches are
 * never reported on this project's VM): an interrupt names b as running at
 * 1500 + gap.  b is UNKNOWN that long, which could be waiting or running:
 * busy() judges b on the rest of its life (1094 us to its exit at 2100).
 * A gap of 400 us leaves 694 known, all wanting a CPU: a team, as
 * without the gap (it read as 63% before, no team); 600 us is more than
 * half its life: not judged busy, no team.
 *
 * With `d_end`, b's end wakes c on CPU 1, c creates d (703) at b_end + 3
 * and waits again, and d computes there until d_end: d fills the CPU b
 * freed (a job server, make -j).  Idle then: 3 us, and d_end to 4000.
 * d_end 2500: 1503 us idle, 751.5 us lost of 2995, 25.09%; d_end 4000:
 * 1.5 us, none.
 */
static void write_spawn(char *p, uint64_t b_end, uint64_t gap, uint64_t d_end)
{
	W = program_trace_open(p, 700, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 700, 700, 0, 0, 2, 0, "c");
	sw(1000, 0, 0, 0, 700, 0);
	ev(1005, 0, TL_EV_FORK, 701, 700, 0, 0, 0, 0, "a");
	ev(1005, -1, TL_EV_THREAD, 701, 700, 0, 0, 0, 0, "a");
	ev(1006, 0, TL_EV_FORK, 702, 700, 0, 0, 0, 0, "b");
	ev(1006, -1, TL_EV_THREAD, 702, 700, 0, 0, 0, 0, "b");
	sw(1010, 0, 700, TL_PS_S, 701, TL_EVF_WAIT_FUTEX); /* c joins */
	sw(1010, 1, 0, 0, 702, 0);
	if (gap) {
		ev(1500, -1, TL_EV_THREAD, 900, 900, 0, 0, 0, 0, "agent");
		sw(1500, 1, 702, TL_PS_PREEMPT, 900, 0);
		ev(1500 + gap, 1, TL_EV_IRQ_ENTRY, 702, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL);
		ev(1501 + gap, 1, TL_EV_IRQ_EXIT, 702, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL);
	}
	ev(b_end, 1, TL_EV_EXIT, 702, 0, 0, 0, 0, 0, NULL);
	sw(b_end, 1, 702, TL_PS_X, 0, 0);
	if (d_end) {
		ev(b_end + 1, 1, TL_EV_WAKING, 700, 0, 1, 120, 0, 0, NULL);
		ev(b_end + 1, 1, TL_EV_WAKEUP, 700, 0, 1, 120, 0, 0, NULL);
		sw(b_end + 2, 1, 0, 0, 700, 0);
		ev(b_end + 3, 1, TL_EV_FORK, 703, 700, 0, 0, 0, 0, "d");
		ev(b_end + 3, -1, TL_EV_THREAD, 703, 700, 0, 0, 0, 0, "d");
		ev(b_end + 4, 1, TL_EV_WAKEUP_NEW, 703, 700, 1, 120, 0, 0, NULL);
		sw(b_end + 5, 1, 700, TL_PS_S, 703, TL_EVF_WAIT_FUTEX);
		ev(d_end, 1, TL_EV_EXIT, 703, 0, 0, 0, 0, 0, NULL);
		sw(d_end, 1, 703, TL_PS_X, 0, 0);
	}
	ev(4000, 0, TL_EV_EXIT, 701, 0, 0, 0, 0, 0, NULL);
	ev(4000, 0, TL_EV_WAKING, 700, 701, 0, 120, 0, 0, NULL);
	ev(4000, 0, TL_EV_WAKEUP, 700, 701, 0, 120, 0, 0, NULL);
	sw(4000, 0, 701, TL_PS_X, 700, 0);
	sw(4010, 0, 700, TL_PS_S, 0, 0);
	CHECK(program_trace_close(W, 4100) == 0);
}

TEST(worker_imbalance)
{
	/* b's end, the gap in b's trace, d's end, and whether the team is found */
	static const struct {
		uint64_t b_end, gap, d_end;
		int found;
	} cases[] = { { 2100, 0, 0, 1 },   { 4000, 0, 0, 0 },    { 2100, 400, 0, 1 },
		      { 2100, 600, 0, 0 }, { 2100, 0, 2500, 1 }, { 2100, 0, 4000, 0 } };

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const uint64_t b_end = cases[k].b_end, gap = cases[k].gap, d_end = cases[k].d_end;
		const uint64_t loss = d_end ? 751500 : 950 * US; /* ns */
		const int found = cases[k].found;
		char p[] = "/tmp/tl-test-spawn-XXXXXX";
		struct tl_run run = { .to_ns = -1, .path = p };
		struct tl_diagnose_opts o;
		struct tl_findings f;
		struct tl_model m;
		const struct tl_finding *x = NULL;

		write_spawn(p, b_end, gap, d_end);
		CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
		CHECK_EQ_INT(m.nthreads, d_end ? 4 : 3); /* agent is not of the recorded process */
		for (size_t i = 1; i < m.nthreads && i < 3; i++) {
			CHECK_EQ_INT(m.threads[i].creator, 700);
			CHECK_EQ_INT(m.threads[i].exited_at, (i == 1 ? 4000 : b_end) * US);
		}
		CHECK_EQ_INT(m.threads[2].state_ns[TL_ST_UNKNOWN], gap * US);
		tl_diagnose_defaults(&o);
		o.min_cost_ns = 50 * US;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(count_kind(&f, TL_FIND_WORKER_IMBALANCE, &x), found);
		if (x && found) {
			CHECK_EQ_INT(x->pid, 700);
			CHECK_EQ_INT(x->cost_ns, loss);
			CHECK_EQ_INT(x->nthreads, 3);
			CHECK_EQ_STR(x->threads[0].role, "creator");
			CHECK_EQ_INT(x->threads[1].tid, 701);
			CHECK_EQ_STR(x->threads[1].role, "last to finish");
			CHECK_EQ_INT(x->threads[2].tid, 702);
			/* 950 (or 751.5) of 2995 us */
			CHECK_EQ_INT((int64_t)(x->evidence[0].value * 1000 + 0.5), d_end ? 25092 : 31720);
			CHECK_EQ_INT((int64_t)x->evidence[1].value, loss);
			CHECK_EQ_INT((int64_t)x->evidence[4].value, 2995 * US);
			CHECK_EQ_INT((int64_t)x->evidence[5].value, 2995 * US - loss);
		}
		CHECK_EQ_INT(f.checked[TL_FIND_WORKER_IMBALANCE], 1);
		tl_findings_release(&f);
		/* an --imbalance above its share leaves it out */
		o.imbalance_pct = d_end ? 26 : 32;
		CHECK_EQ_INT(count_with(&m, &o, TL_FIND_WORKER_IMBALANCE), 0);
		tl_report_release(&m);
		tl_run_release(&run);
		unlink(p);
	}
}

/*
 * Two child processes of c (700) as make -j's jobs: x (701) created at
 * 1005, y (702) at 1006; x computes on CPU 0 from 1010 and exits at 2500,
 * y on CPU 1 from 1010 to 4000, and c joins them.  Forked parts (no exec)
 * or the same program exec'd (`execs` 1: both /usr/bin/gzip): a team, 750
 * us lost of 2995 (2500-4000 idle over 2 CPUs).  Different programs
 * (`execs` 2: mkdir, sh): different jobs, no team.  `late`: another
 * process holds CPU 1 throughout and y waits on CPU 0 until x exits: they
 * never ran together (no CPU was freed by x's end), no team.
 */
static void write_jobs(char *p, int execs, int late)
{
	const int ycpu = late ? 0 : 1;
	const uint64_t yrun = late ? 2500 : 1010;

	W = program_trace_open(p, 700, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 700, 700, 0, 0, 2, 0, "c");
	sw(1000, 0, 0, 0, 700, 0);
	if (late) {
		ev(1000, -1, TL_EV_THREAD, 900, 900, 0, 0, 0, 0, "other");
		sw(1000, 1, 0, 0, 900, 0);
	}
	ev(1005, 0, TL_EV_FORK, 701, 700, 0, 0, 0, 0, "c");
	ev(1005, -1, TL_EV_THREAD, 701, 701, 0, 0, 0, 0, "c");
	ev(1006, 0, TL_EV_WAKEUP_NEW, 701, 700, 0, 120, 0, 0, NULL);
	ev(1006, 0, TL_EV_FORK, 702, 700, 0, 0, 0, 0, "c");
	ev(1006, -1, TL_EV_THREAD, 702, 702, 0, 0, 0, 0, "c");
	ev(1007, 0, TL_EV_WAKEUP_NEW, 702, 700, ycpu, 120, 0, 0, NULL);
	sw(1010, 0, 700, TL_PS_S, 701, TL_EVF_WAIT_FUTEX); /* c waits */
	if (execs)
		ev(1011, 0, TL_EV_EXEC, 701, 701, 0, 0, 0, 0, execs == 1 ? "/usr/bin/gzip" : "/usr/bin/mkdir");
	ev(2500, 0, TL_EV_EXIT, 701, 0, 0, 0, 0, 0, NULL);
	sw(2500, 0, 701, TL_PS_X, late ? 702 : 0, 0);
	if (!late)
		sw(yrun, 1, 0, 0, 702, 0);
	if (execs)
		ev(yrun + 2, ycpu, TL_EV_EXEC, 702, 702, 0, 0, 0, 0, execs == 1 ? "/usr/bin/gzip" : "/bin/sh");
	ev(4000, ycpu, TL_EV_EXIT, 702, 0, 0, 0, 0, 0, NULL);
	ev(4000, ycpu, TL_EV_WAKING, 700, 702, 0, 120, 0, 0, NULL);
	ev(4000, ycpu, TL_EV_WAKEUP, 700, 702, 0, 120, 0, 0, NULL);
	sw(4000, ycpu, 702, TL_PS_X, late ? 700 : 0, 0);
	if (!late)
		sw(4001, 0, 0, 0, 700, 0);
	sw(4010, 0, 700, TL_PS_S, 0, 0);
	CHECK(program_trace_close(W, 4100) == 0);
}

TEST(jobs)
{
	/* execs (none, the same program, different ones), late, and whether the team is found */
	static const struct {
		int execs, late, found;
	} cases[] = { { 0, 0, 1 }, { 1, 0, 1 }, { 2, 0, 0 }, { 0, 1, 0 } };

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char p[] = "/tmp/tl-test-jobs-XXXXXX";
		struct tl_run run = { .to_ns = -1, .path = p };
		struct tl_diagnose_opts o;
		struct tl_findings f;
		struct tl_model m;
		const struct tl_finding *x = NULL;

		write_jobs(p, cases[k].execs, cases[k].late);
		CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
		CHECK_EQ_INT(m.nthreads, 3);
		tl_diagnose_defaults(&o);
		o.min_cost_ns = 50 * US;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(count_kind(&f, TL_FIND_WORKER_IMBALANCE, &x), cases[k].found);
		if (x && cases[k].found) {
			CHECK_EQ_INT(x->cost_ns, 750 * US);
			CHECK_EQ_INT(x->threads[1].tid, 702); /* last to finish */
			CHECK_EQ_INT((int64_t)x->evidence[4].value, 2995 * US);
		}
		tl_findings_release(&f);
		tl_report_release(&m);
		tl_run_release(&run);
		unlink(p);
	}
}

/*
 * A thread per task: c (800) on CPU 0 creates 120 threads, one every
 * 10 us from 1000 (FORK, then WAKEUP_NEW 1 us later); each waits 3 us more
 * for CPU 1, runs 5 us there and exits.  Each waited 4 us to run (1 us
 * NEW, 3 RUNNABLE): 480 us in all; lives of 9 us, 100,000 a second
 * (119 gaps of 10 us).  With 99 of them, none (under 100).  As processes
 * (procs: a fork per task, then an exec 2 us into its run, a shell loop):
 * the same, and 2 us a process on a CPU before its exec, 240 us in all.
 */
static void write_churn(char *p, int n, int procs)
{
	W = program_trace_open(p, 800, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 800, 800, 0, 0, 2, 0, "c");
	sw(1000, 0, 0, 0, 800, 0);
	for (int i = 0; i < n; i++) {
		uint64_t t = 1000 + 10 * (uint64_t)i;
		int32_t tid = 801 + i;

		ev(t, 0, TL_EV_FORK, tid, 800, 0, 0, 0, 0, "task");
		ev(t, -1, TL_EV_THREAD, tid, procs ? tid : 800, 0, 0, 0, 0, "task");
		ev(t + 1, 0, TL_EV_WAKEUP_NEW, tid, 800, 1, 120, 0, 0, NULL);
		sw(t + 4, 1, 0, 0, tid, 0);
		if (procs)
			ev(t + 6, 1, TL_EV_EXEC, tid, tid, 0, 0, 0, 0, "/bin/true");
		ev(t + 9, 1, TL_EV_EXIT, tid, 0, 0, 0, 0, 0, NULL);
		sw(t + 9, 1, tid, TL_PS_X, 0, 0);
	}
	sw(1000 + 10 * (uint64_t)n + 20, 0, 800, TL_PS_S, 0, 0);
	CHECK(program_trace_close(W, 1000 + 10 * (uint64_t)n + 50) == 0);
}

TEST(thread_churn)
{
	for (int k = 0; k < 4; k++) {
		const int n = k & 1 ? 99 : 120, procs = k >= 2, e = procs; /* procs: one more evidence first */
		char p[] = "/tmp/tl-test-churn-XXXXXX";
		struct tl_run run = { .to_ns = -1, .path = p };
		struct tl_diagnose_opts o;
		struct tl_findings f;
		struct tl_model m;
		const struct tl_finding *x = NULL;

		write_churn(p, n, procs);
		CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
		CHECK_EQ_INT(m.nthreads, (size_t)n + 1);
		tl_diagnose_defaults(&o);
		o.min_cost_ns = 50 * US;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(count_kind(&f, TL_FIND_THREAD_CHURN, &x), n == 120);
		if (x && n == 120) {
			CHECK_EQ_INT(x->pid, 800);
			CHECK_EQ_INT(x->cost_ns, procs ? 720 * US : 480 * US);
			CHECK_EQ_STR(x->threads[0].role, "creator");
			CHECK_EQ_INT(x->threads[0].tid, 800);
			CHECK_EQ_INT((int64_t)x->evidence[0].value, 120);
			if (procs)
				CHECK_EQ_INT((int64_t)x->evidence[1].value, 120);        /* of them processes */
			CHECK_EQ_INT((int64_t)(x->evidence[1 + e].value + 0.5), 100840); /* 120 in 1190 us */
			CHECK_EQ_INT((int64_t)x->evidence[2 + e].value, 480 * US);
			if (procs)
				CHECK_EQ_INT((int64_t)x->evidence[4].value, 240 * US); /* before the exec */
			CHECK_EQ_INT((int64_t)x->evidence[3 + 2 * e].value, procs ? 720 * US : 480 * US);
			CHECK_EQ_INT((int64_t)x->evidence[4 + 2 * e].value, 9 * US);
			CHECK_EQ_INT((int64_t)x->evidence[5 + 2 * e].value, 600 * US);
			CHECK(strstr(x->title, procs ? "created 120 processes" : "created 120 threads") != NULL);
		}
		tl_findings_release(&f);
		tl_report_release(&m);
		tl_run_release(&run);
		unlink(p);
	}
}

int main(void)
{
	RUN_TESTS(worker_imbalance, jobs, thread_churn);
}
