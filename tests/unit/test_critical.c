/*
 * test_critical.c - the critical path of a frame (analysis/critical) on a
 * hand-written three-thread chain, exact: the ending thread's own time,
 * its sleep given to the thread whose wakeup ended it, that thread's wait
 * for a CPU named with the thread that had it, and the parts summing to
 * the frame's latency.  And a thread's life instead of a frame (--tid), and
 * the recorded command's main thread when the window holds no frame.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_build.h"
#include "harness.h"
#include "analysis/critical/critical.h"
#include "base/errors.h"

#define US 1000ull
#define A 101 /* begins and ends the frame */
#define B 102 /* wakes A */
#define C 103 /* takes B's CPU */

static struct tl_trace_writer *W;
static char path[] = "/tmp/tl-test-critical-XXXXXX";

static void ev(uint64_t t, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, const char *name)
{
	struct tl_event e = event_us(t, cpu, type, tid, arg, a, 120, 120, 0);

	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, NULL);
}

/*
 * (us) A begins frame 7 at 1000 and sleeps 1000-1030 until B wakes it; B
 * runs 1000-1010 on CPU 1, loses its CPU to C 1010-1020 (its quantum),
 * runs 1020-1030 and wakes A at 1030; A runs 1031-1040 on CPU 0 (1030-1031
 * waiting for it) and ends the frame at 1040.  Frame 8 (1050-1060) is A's
 * alone.
 */
static void write_trace(void)
{
	W = program_trace_open(path, 100, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, "app");
	ev(1000, -1, TL_EV_THREAD, A, 100, 0, "a");
	ev(1000, -1, TL_EV_THREAD, B, 100, 0, "b");
	ev(1000, -1, TL_EV_THREAD, C, 100, 0, "c");
	sw(1000, 0, 0, 0, A);
	sw(1000, 1, 0, 0, B);
	ev(1000, -1, TL_EV_FRAME_BEGIN, A, 0, 7, NULL);
	sw(1000, 0, A, TL_PS_S, 0);
	sw(1010, 1, B, TL_PS_RUNNING, C); /* runnable, no wakeup: its quantum ran out */
	sw(1020, 1, C, TL_PS_S, B);
	ev(1030, 1, TL_EV_WAKING, A, B, 0, NULL);
	ev(1030, 1, TL_EV_WAKEUP, A, B, 0, NULL);
	sw(1031, 0, 0, 0, A);
	ev(1040, -1, TL_EV_FRAME_END, A, 0, 7, NULL);
	ev(1050, -1, TL_EV_FRAME_BEGIN, A, 0, 8, NULL);
	ev(1060, -1, TL_EV_FRAME_END, A, 0, 8, NULL);
	sw(1070, 0, A, TL_PS_S, 0);
	sw(1070, 1, B, TL_PS_S, 0);
	CHECK(program_trace_close(W, 1100) == 0);
}

static const struct tl_crit_part *part(const struct tl_crit_frame *f, int32_t tid, unsigned state)
{
	for (size_t i = 0; i < f->nparts; i++)
		if (f->parts[i].tid == tid && f->parts[i].state == state)
			return &f->parts[i];
	return NULL;
}

TEST(chain)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_crit_opts o = { .frame = 7 };
	struct tl_crit_result r;
	const struct tl_crit_frame *f;
	const struct tl_crit_part *x;
	uint64_t sum = 0;

	CHECK_EQ_INT(tl_crit_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.n, 1);
	CHECK_EQ_INT(r.frames_seen, 2);
	if (r.n != 1)
		goto out;
	f = &r.frames[0];
	CHECK_EQ_INT(f->id, 7);
	CHECK_EQ_INT(f->ended_by, A);
	CHECK_EQ_STR(f->ended_by_name, "a");
	CHECK_EQ_INT(f->nparts, 4);
	for (size_t i = 0; i < f->nparts; i++)
		sum += f->parts[i].ns;
	CHECK_EQ_INT(sum, 40 * US);
	x = part(f, A, TL_ST_EXECUTING);
	CHECK(x && x->ns == 9 * US);
	x = part(f, A, TL_ST_RUNNABLE);
	CHECK(x && x->ns == 1 * US && x->by == B);
	x = part(f, B, TL_ST_EXECUTING);
	CHECK(x && x->ns == 20 * US); /* 1000-1010 and 1020-1030: A's sleep is B's doing */
	x = part(f, B, TL_ST_READY_QUANTUM);
	CHECK(x && x->ns == 10 * US && x->by == C && !strcmp(x->by_name, "c"));
	/* the path, latest first */
	CHECK_EQ_INT(f->npath, 5);
	if (f->npath == 5) {
		CHECK_EQ_INT(f->path[0].tid, A);
		CHECK_EQ_INT(f->path[0].from, 1031 * US);
		CHECK_EQ_INT(f->path[2].tid, B);
		CHECK_EQ_INT(f->path[2].to, 1030 * US);
		CHECK_EQ_INT(f->path[3].state, TL_ST_READY_QUANTUM);
		CHECK_EQ_INT(f->path[4].from, 1000 * US);
	}
	/* the text: the path's stretches wrapped at the width (100 unless told), each whole */
	for (int width = 0; width <= 80; width += 80) {
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);

		CHECK(mem != NULL);
		if (!mem)
			break;
		CHECK_EQ_INT(tl_crit_write_text(mem, &r, width), 0);
		fclose(mem);
		if (!width)
			CHECK_HAS(buf, "\n  path, latest first: a EXECUTING 9.00us < a RUNNABLE 1.00us < b EXECUTING "
			               "10.0us\n"
			               "                      < b READY_QUANTUM 10.0us < b EXECUTING 10.0us\n");
		else
			CHECK_HAS(buf, "\n  path, latest first: a EXECUTING 9.00us < a RUNNABLE 1.00us\n"
			               "                      < b EXECUTING 10.0us < b READY_QUANTUM 10.0us\n"
			               "                      < b EXECUTING 10.0us\n");
		/* and the header's prose */
		CHECK_HAS(buf, width ? "1 of 2 complete frames; each frame's latency along its critical path (the "
		                       "thread\nthat ended it, back"
		                     : "1 of 2 complete frames; each frame's latency along its critical path (the "
		                       "thread that ended it, back\nthrough");
		free(buf);
	}
out:
	tl_crit_release(&r);
	tl_run_release(&run);
}

TEST(worst_and_missing)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_crit_opts o = { .frame = -1, .worst = 5 };
	struct tl_crit_result r;

	CHECK_EQ_INT(tl_crit_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.n, 2);
	if (r.n == 2) {
		CHECK_EQ_INT(r.frames[0].id, 7); /* 40 us, then frame 8's 10 us */
		CHECK_EQ_INT(r.frames[1].id, 8);
		CHECK_EQ_INT(r.frames[1].nparts, 1);
		CHECK_EQ_INT(r.frames[1].parts[0].state, TL_ST_EXECUTING);
	}
	tl_crit_release(&r);
	tl_run_release(&run);

	/* a window from 45 us: frame 7 began before it, so only frame 8 is the window's */
	run = (struct tl_run){ .from_ns = 45 * US, .to_ns = -1, .path = path };
	o = (struct tl_crit_opts){ .frame = -1 };
	CHECK_EQ_INT(tl_crit_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.frames_seen, 1);
	CHECK(r.n == 1 && r.frames[0].id == 8);
	tl_crit_release(&r);
	tl_run_release(&run);

	run = (struct tl_run){ .to_ns = -1, .path = path };
	o = (struct tl_crit_opts){ .frame = 9 };
	CHECK_EQ_INT(tl_crit_analyze(&run, &o, &r), -1);
	CHECK(strstr(tl_error_msg(), "no complete frame 9") != NULL);
	tl_run_release(&run);
}

/*
 * B's life, back from the trace's end (1100): asleep 1070-1100 (no waker),
 * running 1020-1070 but for nothing, its quantum lost to C 1010-1020, and
 * running 1000-1010: B's alone, 100 us.  A's: its sleep 1000-1030 is B's.
 */
TEST(thread_life)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_crit_opts o = { .frame = -1, .tid = B };
	struct tl_crit_result r;
	const struct tl_crit_frame *f;
	const struct tl_crit_part *x;
	uint64_t sum = 0;

	CHECK_EQ_INT(tl_crit_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.thread_scope, 1);
	CHECK_EQ_INT(r.n, 1);
	CHECK_EQ_INT(r.frames_seen, 2);
	if (r.n == 1) {
		f = &r.frames[0];
		CHECK_EQ_INT(f->id, -1);
		CHECK_EQ_INT(f->ended_by, B);
		CHECK_EQ_INT(f->begin, 1000 * US);
		CHECK_EQ_INT(f->end, 1100 * US);
		x = part(f, B, TL_ST_EXECUTING);
		CHECK(x && x->ns == 60 * US);
		x = part(f, B, TL_ST_READY_QUANTUM);
		CHECK(x && x->ns == 10 * US && x->by == C);
		for (size_t i = 0; i < f->nparts; i++)
			sum += f->parts[i].ns;
		CHECK_EQ_INT(sum, 100 * US);
		CHECK_EQ_INT(f->nparts, 3); /* and its sleep at the end */
	}
	tl_crit_release(&r);
	tl_run_release(&run);

	/* A: its first sleep is what B did until it woke A */
	run = (struct tl_run){ .to_ns = -1, .path = path };
	o = (struct tl_crit_opts){ .frame = -1, .tid = A };
	CHECK_EQ_INT(tl_crit_analyze(&run, &o, &r), 0);
	if (r.n == 1) {
		x = part(&r.frames[0], B, TL_ST_EXECUTING);
		CHECK(x && x->ns == 20 * US);
		x = part(&r.frames[0], A, TL_ST_EXECUTING);
		CHECK(x && x->ns == 39 * US);
	}
	tl_crit_release(&r);
	tl_run_release(&run);

	/* no frame in the window (after 65 us): the command's main thread, 100, never seen running */
	run = (struct tl_run){ .from_ns = 65 * US, .to_ns = -1, .path = path };
	o = (struct tl_crit_opts){ .frame = -1 };
	CHECK_EQ_INT(tl_crit_analyze(&run, &o, &r), 0);
	CHECK_EQ_INT(r.frames_seen, 0);
	CHECK_EQ_INT(r.thread_scope, 1);
	if (r.n == 1) {
		CHECK_EQ_INT(r.frames[0].ended_by, 100);
		CHECK_EQ_STR(r.frames[0].ended_by_name, "app");
		CHECK_EQ_INT(r.frames[0].begin, 1065 * US);
		CHECK_EQ_INT(r.frames[0].end, 1100 * US);
		CHECK_EQ_INT(r.frames[0].nparts, 1);
		CHECK_EQ_INT(r.frames[0].parts[0].state, TL_ST_UNKNOWN);
	}
	tl_crit_release(&r);
	tl_run_release(&run);

	run = (struct tl_run){ .to_ns = -1, .path = path };
	o = (struct tl_crit_opts){ .frame = -1, .tid = 4242 };
	CHECK_EQ_INT(tl_crit_analyze(&run, &o, &r), -1);
	CHECK(strstr(tl_error_msg(), "no thread 4242") != NULL);
	tl_run_release(&run);
}

static void remove_trace(void)
{
	unlink(path);
}

int main(void)
{
	write_trace();
	atexit(remove_trace);
	RUN_TESTS(chain, worst_and_missing, thread_life);
}
