/*
 * test_diagnose_io.c - diagnose's io-bound on a hand-written trace, exact:
 * a reader that waits for block I/O most of its life, and the consumers
 * that wait for what it reads, in its process or in another recorded one
 * (a pipeline: `dd iflag=direct | wc`); a thread of a process that is not
 * recorded is never named.  The trace is written with the real writer and
 * read back with the real reader, as the command does.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "trace_build.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"

#define US 1000ull

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, 0, NULL);
}

/*
 * reader (200) forks consumer (tid 300: its own process with `procs` 1,
 * else a thread of 200) at 1000; with `procs` 2 consumer is a process the
 * trace saw no FORK of: not recorded, never named.  Five rounds from R = 1000 + 100 k: reader
 * runs R..R+10 on CPU 0, issues a read and waits for it (IO_WAIT) until
 * the disk's interrupt at R+90, runs R+91..R+100 and wakes consumer at
 * R+95, which runs R+96..R+98 on CPU 1 and sleeps again.  reader: 80 us of
 * each 100 in IO_WAIT, 400 us; consumer's waits ended by reader's wakeups:
 * 4 of 97 us (before the first wakeup it is NEW, no wait).
 */
static void write_pipeline(char *p, int procs)
{
	W = program_trace_open(p, 200, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 200, 200, 0, 0, 2, 0, "reader");
	sw(1000, 0, 0, 0, 200);
	if (procs < 2)
		ev(1000, 0, TL_EV_FORK, 300, 200, 0, 0, 0, 0, "consumer");
	ev(1000, -1, TL_EV_THREAD, 300, procs ? 300 : 200, 0, 0, 0, 0, "consumer");
	for (uint64_t r = 1000; r < 1500; r += 100) {
		ev(r + 9, 0, TL_EV_BLOCK_ISSUE, 200, 0, 8, 2048, 4096, 0, NULL);
		sw(r + 10, 0, 200, TL_PS_D, 0);
		ev(r + 90, 0, TL_EV_WAKING, 200, 0, 0, 120, 0, TL_EVF_HARDIRQ, NULL);
		sw(r + 91, 0, 0, 0, 200);
		ev(r + 95, 0, TL_EV_WAKING, 300, 200, 0, 120, 0, 0, NULL);
		ev(r + 95, 0, TL_EV_WAKEUP, 300, 200, 1, 120, 0, 0, NULL);
		sw(r + 96, 1, 0, 0, 300);
		sw(r + 98, 1, 300, TL_PS_S, 0);
	}
	CHECK(program_trace_close(W, 1500) == 0);
}

TEST(io_bound_consumers)
{
	for (int procs = 0; procs < 3; procs++) {
		char p[] = "/tmp/tl-test-io-XXXXXX";
		struct tl_run run = { .to_ns = -1, .path = p };
		struct tl_diagnose_opts o;
		struct tl_findings f;
		struct tl_model m;

		write_pipeline(p, procs);
		CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
		tl_diagnose_defaults(&o);
		o.min_cost_ns = 100 * US;
		o.busy_pct = 101;
		CHECK_EQ_INT(tl_diagnose_model(&m, &o, &f), 0);
		CHECK_EQ_INT(f.n, 1);
		if (f.n == 1) {
			const struct tl_finding *x = &f.items[0];

			CHECK_EQ_INT(x->kind, TL_FIND_IO_BOUND);
			CHECK_EQ_INT(x->cost_ns, 400 * US);
			CHECK_EQ_INT(x->nthreads, procs < 2 ? 2 : 1);
			CHECK_EQ_INT(x->threads[0].tid, 200);
			CHECK_EQ_STR(x->threads[0].role, "reader");
			CHECK_EQ_INT((int64_t)x->evidence[0].value, 80);        /* 400 of its 500 us */
			CHECK_EQ_INT((int64_t)x->evidence[3].value, procs < 2); /* consumers */
			if (procs < 2) {
				CHECK_EQ_INT(x->threads[1].tid, 300);
				CHECK_EQ_INT(x->threads[1].pid, procs ? 300 : 200);
				CHECK_EQ_STR(x->threads[1].role, "consumer");
				CHECK_EQ_INT((int64_t)x->evidence[4].value, 4 * 97 * US);
			}
		}
		tl_findings_release(&f);
		tl_report_release(&m);
		tl_run_release(&run);
		unlink(p);
	}
}

int main(void)
{
	RUN_TESTS(io_bound_consumers);
}
