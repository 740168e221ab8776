/*
 * test_diff.c - threadlens diff's thread rows (analysis/diff): which
 * changes of a state's share are marked and in what order, on two
 * hand-built recordings with exact times.
 *
 * Process 500: `big` lives the whole second and runs 500 ms then sleeps
 * (after: 550 ms); `tiny` lives 0.9 ms, runs 100 us then sleeps and exits
 * (after: runs 400 us).  big's EXECUTING +5 points are 50 ms of thread
 * time; tiny's +33.3 points are 0.3 ms: ranked by the thread time moved,
 * big's rows come first, and with one recording a side (noise unknown)
 * tiny's are not marked: under 1 ms moved.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis/diff/diff.h"
#include "harness.h"
#include "trace_build.h"

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, 0, NULL);
}

static void write_side(char *p, uint64_t big_run, uint64_t tiny_run)
{
	W = program_trace_open(p, 500, 1000);
	CHECK(W != NULL);
	if (!W)
		return;
	ev(1000, -1, TL_EV_THREAD, 501, 500, 0, 0, 0, 0, "big");
	ev(1000, -1, TL_EV_THREAD, 502, 500, 0, 0, 0, 0, "tiny");
	sw(1000, 0, 0, 0, 501);
	sw(1000, 1, 0, 0, 502);
	sw(1000 + tiny_run, 1, 502, TL_PS_S, 0);
	ev(1890, 1, TL_EV_WAKING, 502, 0, 0, 120, 0, 0, NULL);
	sw(1890, 1, 0, 0, 502);
	ev(1900, 1, TL_EV_EXIT, 502, 0, 0, 0, 0, 0, NULL);
	sw(1900, 1, 502, TL_PS_X, 0);
	sw(1000 + big_run, 0, 501, TL_PS_S, 0);
	CHECK_EQ_INT(program_trace_close(W, 1001000), 0);
}

TEST(rows_by_thread_time)
{
	char a[] = "/tmp/tl-test-diffa-XXXXXX", b[] = "/tmp/tl-test-diffb-XXXXXX";
	const char *pa = a, *pb = b;
	struct tl_diff_result r;

	write_side(a, 500000, 100);
	write_side(b, 550000, 400);
	CHECK_EQ_INT(tl_diff_analyze(&pa, 1, &pb, 1, &r), 0);
	CHECK_EQ_INT(r.noise, 0);
	CHECK_EQ_INT(r.nrows, 4);
	if (r.nrows == 4) {
		static const struct {
			const char *thread;
			unsigned state;
			double a, b, moved_ns;
			int flagged;
		} want[4] = {
			{ "big", TL_ST_EXECUTING, 50, 55, 50e6, 1 },
			{ "big", TL_ST_SLEEPING, 50, 45, 50e6, 1 },
			{ "tiny", TL_ST_EXECUTING, 100.0 * 110 / 900, 100.0 * 410 / 900, 0.3e6, 0 },
			{ "tiny", TL_ST_SLEEPING, 100.0 * 790 / 900, 100.0 * 490 / 900, 0.3e6, 0 },
		};
		for (int i = 0; i < 4; i++) {
			CHECK_EQ_STR(r.rows[i].thread, want[i].thread);
			CHECK_EQ_INT(r.rows[i].state, want[i].state);
			CHECK(fabs(r.rows[i].v.a - want[i].a) < 1e-9 && fabs(r.rows[i].v.b - want[i].b) < 1e-9);
			CHECK(fabs(r.rows[i].moved_ns - want[i].moved_ns) < 1e-3);
			CHECK_EQ_INT(r.rows[i].v.flagged, want[i].flagged);
		}
	}
	tl_diff_release(&r);
	unlink(a);
	unlink(b);
}

int main(void)
{
	RUN_TESTS(rows_by_thread_time);
}
