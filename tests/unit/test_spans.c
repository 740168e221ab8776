/*
 * test_spans.c - spans from hand-written marker and probe sequences: nesting,
 * frames across threads, ends that do not match, spans cut by the end, and
 * bursts and latencies from state intervals.  Exact expectations.
 */
#include <stdlib.h>

#include "event_build.h"
#include "harness.h"
#include "timeline/spans.h"

#define MAXS 32

static struct tl_span got[MAXS];
static char names[MAXS][32];
static int ngot;
static struct tl_spans *S;

static void on_span(void *ctx, const struct tl_span *sp, const char *name)
{
	if (ngot < MAXS) {
		got[ngot] = *sp;
		snprintf(names[ngot], sizeof(names[0]), "%s", name);
	}
	ngot++;
}

static void start(int bursts)
{
	struct tl_spans_opts o = { .on_span = on_span, .want_bursts = bursts, .want_latencies = bursts };
	ngot = 0;
	S = tl_spans_new(&o);
}

/* string ids: 1 = "decode", 2 = "filter", 3 = "work" */
static const char *const strs[] = { "", "decode", "filter", "work" };

static void mark(uint64_t us, unsigned type, int32_t tid, uint32_t name, int64_t a)
{
	struct tl_event e = event_us(us, -1, type, tid, 0, a, 0, 0, 0);
	e.name = name;
	tl_spans_feed(S, &e, strs[name]);
}

static int find(const char *name, int32_t tid, unsigned kind)
{
	for (int i = 0; i < ngot && i < MAXS; i++)
		if (!strcmp(names[i], name) && got[i].tid == tid && got[i].kind == kind)
			return i;
	return -1;
}

TEST(nesting_and_parents)
{
	int a, b, c;

	start(0);
	mark(100, TL_EV_TASK_BEGIN, 10, 3, 7);   /* work, in frame 7 */
	mark(110, TL_EV_REGION_BEGIN, 10, 1, 7); /* decode inside work */
	mark(120, TL_EV_TASK_BEGIN, 10, 2, 7);   /* filter inside decode */
	mark(150, TL_EV_TASK_END, 10, 2, 0);
	mark(160, TL_EV_REGION_END, 10, 1, 0);
	mark(200, TL_EV_TASK_END, 10, 3, 0);
	tl_spans_finish(S, 1000000);
	CHECK_EQ_INT(ngot, 3);
	a = find("work", 10, TL_SPAN_TASK);
	b = find("decode", 10, TL_SPAN_REGION);
	c = find("filter", 10, TL_SPAN_TASK);
	CHECK(a >= 0 && b >= 0 && c >= 0);
	if (a < 0 || b < 0 || c < 0)
		return;
	CHECK_EQ_INT(got[c].begin, 120000);
	CHECK_EQ_INT(got[c].end, 150000);
	CHECK_EQ_INT(got[c].depth, 2);
	CHECK_EQ_INT(got[c].parent, got[b].id);
	CHECK_EQ_INT(got[b].parent, got[a].id);
	CHECK_EQ_INT(got[a].parent, 0);
	CHECK_EQ_INT(got[a].frame, 7);
	CHECK_EQ_INT(got[a].complete, 1);
	CHECK(got[a].id < got[b].id && got[b].id < got[c].id); /* ids in begin order */
	CHECK_EQ_INT(tl_spans_counters(S)->spans[TL_SPAN_TASK], 2);
	tl_spans_free(S);
}

TEST(bad_ends_and_cut_spans)
{
	int i;

	start(0);
	mark(100, TL_EV_TASK_END, 10, 3, 0); /* began before the trace */
	mark(110, TL_EV_TASK_BEGIN, 10, 3, -1);
	mark(120, TL_EV_TASK_BEGIN, 10, 2, -1); /* never ends */
	mark(130, TL_EV_TASK_END, 10, 3, 0);    /* closes work, and filter with it (incomplete) */
	mark(140, TL_EV_FUNC_ENTRY, 11, 1, 0);  /* still open at the end */
	tl_spans_finish(S, 500000);
	CHECK_EQ_INT(ngot, 3);
	i = find("filter", 10, TL_SPAN_TASK);
	CHECK(i >= 0 && got[i].complete == 0 && got[i].end == 130000);
	i = find("work", 10, TL_SPAN_TASK);
	CHECK(i >= 0 && got[i].complete == 1 && got[i].end == 130000);
	i = find("decode", 11, TL_SPAN_FUNC);
	CHECK(i >= 0 && got[i].complete == 0 && got[i].end == 500000);
	CHECK_EQ_INT(tl_spans_counters(S)->unmatched_ends, 1);
	CHECK_EQ_INT(tl_spans_counters(S)->mismatched_ends, 1);
	CHECK_EQ_INT(tl_spans_counters(S)->incomplete, 2);
	tl_spans_free(S);
}

/*
 * Inlined copies' entries (TL_EVF_INLINED: record --func from DWARF) are
 * calls without an exit: counted per name, never a span, and they do not
 * disturb the stack of the real calls around them.
 */
TEST(inlined_calls_counted)
{
	struct tl_event e;
	const struct tl_span_counters *n;
	int i;

	start(0);
	mark(100, TL_EV_FUNC_ENTRY, 10, 1, 0); /* decode, out of line */
	for (int k = 0; k < 3; k++) {
		e = event_us(110 + (uint64_t)k, 0, TL_EV_FUNC_ENTRY, 10, 0, 0, 0, 0, TL_EVF_INLINED);
		e.name = 2;
		tl_spans_feed(S, &e, strs[2]); /* filter, inlined into decode */
	}
	e = event_us(120, 0, TL_EV_FUNC_ENTRY, 10, 0, 0, 0, 0, TL_EVF_INLINED);
	e.name = 1;
	tl_spans_feed(S, &e, strs[1]); /* decode, inlined somewhere too */
	mark(130, TL_EV_FUNC_EXIT, 10, 1, 0);
	tl_spans_finish(S, 500000);
	CHECK_EQ_INT(ngot, 1);
	i = find("decode", 10, TL_SPAN_FUNC);
	CHECK(i >= 0 && got[i].complete == 1 && got[i].begin == 100000 && got[i].end == 130000 && got[i].depth == 0);
	n = tl_spans_counters(S);
	CHECK_EQ_INT(n->inlined_calls, 4);
	CHECK_EQ_INT(n->ninlined, 2);
	CHECK_EQ_INT(tl_span_inlined_calls(n, "filter"), 3);
	CHECK_EQ_INT(tl_span_inlined_calls(n, "decode"), 1);
	CHECK_EQ_INT(tl_span_inlined_calls(n, "work"), 0);
	CHECK_EQ_INT(n->incomplete, 0);
	CHECK_EQ_INT(n->mismatched_ends, 0);
	tl_spans_free(S);
}

TEST(frames_cross_threads)
{
	int i;

	start(0);
	mark(100, TL_EV_FRAME_BEGIN, 10, 0, 1);
	mark(105, TL_EV_FRAME_BEGIN, 10, 0, 2);
	mark(106, TL_EV_FRAME_BEGIN, 12, 0, 1); /* a second begin of frame 1: the first counts */
	mark(140, TL_EV_FRAME_END, 11, 0, 1);   /* ended by another thread */
	mark(150, TL_EV_FRAME_END, 11, 0, 9);   /* never began */
	mark(160, TL_EV_MARKS_LOST, 11, 0, 5);
	tl_spans_finish(S, 300000);
	CHECK_EQ_INT(ngot, 2);
	CHECK_EQ_STR(names[0], "frame");
	CHECK_EQ_INT(got[0].frame, 1);
	CHECK_EQ_INT(got[0].tid, 10);
	CHECK_EQ_INT(got[0].end - got[0].begin, 40000);
	CHECK_EQ_INT(got[0].complete, 1);
	i = 1;
	CHECK_EQ_INT(got[i].frame, 2);
	CHECK_EQ_INT(got[i].complete, 0); /* a dropped frame */
	CHECK_EQ_INT(tl_spans_counters(S)->unmatched_ends, 1);
	CHECK_EQ_INT(tl_spans_counters(S)->marks_lost, 5);
	tl_spans_free(S);
}

TEST(bursts_and_latencies)
{
	struct tl_thread th = { .tid = 20 };
	struct tl_interval iv[] = {
		{ 1000, 1500, TL_ST_RUNNABLE, 0, 5, TL_ST_EXECUTING, 0 },
		{ 1500, 1700, TL_ST_EXECUTING, 0, 0, TL_ST_INTERRUPTED, 0 },
		{ 1700, 1750, TL_ST_INTERRUPTED, 0, 0, TL_ST_EXECUTING, 0 },
		{ 1750, 2000, TL_ST_EXECUTING, 0, 0, TL_ST_SLEEPING, 0 },
		{ 2000, 3000, TL_ST_SLEEPING, -1, 0, TL_ST__COUNT, 0 },
	};

	start(1);
	for (unsigned i = 0; i < sizeof(iv) / sizeof(iv[0]); i++)
		tl_spans_interval(S, &th, &iv[i]);
	CHECK_EQ_INT(ngot, 2);
	CHECK_EQ_STR(names[0], "@latency");
	CHECK_EQ_INT(got[0].end - got[0].begin, 500);
	CHECK_EQ_STR(names[1], "@burst");
	CHECK_EQ_INT(got[1].begin, 1500);
	CHECK_EQ_INT(got[1].end, 2000);
	CHECK_EQ_INT(got[1].kind, TL_SPAN_BURST);
	tl_spans_free(S);
}

int main(void)
{
	RUN_TESTS(nesting_and_parents, bad_ends_and_cut_spans, inlined_calls_counted, frames_cross_threads,
	          bursts_and_latencies);
}
