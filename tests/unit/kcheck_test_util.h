/*
 * kcheck_test_util.h - what the self-check's unit tests share (test_kcheck.c,
 * test_kcheck_readings.c), header only like harness.h: a thread's reading,
 * its switch counts, a switch on CPU 0, an interval on CPU 0, an event fed
 * without a thread, and a local timer interrupt on CPU 0.
 */
#ifndef TL_KCHECK_TEST_UTIL_H
#define TL_KCHECK_TEST_UTIL_H

#include "analysis/kcheck/kcheck.h"
#include "harness.h"
#include "timeline/states.h"

#define MS 1000000ull

static inline struct tl_event kstat(uint64_t ts, int32_t tid, int point, int64_t run, int64_t wait, int64_t blkio)
{
	struct tl_event e = { .ts = ts, .type = TL_EV_KSTAT, .cpu = -1, .tid = tid, .arg = point };

	e.a = run;
	e.b = wait;
	e.c = blkio;
	return e;
}

static inline struct tl_event csw(uint64_t ts, int32_t tid, int point, int64_t vol, int64_t invol)
{
	struct tl_event e = { .ts = ts, .type = TL_EV_KSTAT_CSW, .cpu = -1, .tid = tid, .arg = point };

	e.a = vol;
	e.b = invol;
	return e;
}

static inline struct tl_event sw(uint64_t ts, int32_t prev, int64_t state)
{
	struct tl_event e = { .ts = ts, .type = TL_EV_SWITCH, .cpu = 0, .tid = prev, .arg = 0 };

	e.a = state;
	return e;
}

static inline void iv(struct tl_kcheck *kc, int32_t tid, uint64_t s, uint64_t e, unsigned state)
{
	struct tl_interval v = { .start = s, .end = e, .state = (uint16_t)state, .cpu = 0, .next = TL_ST__COUNT };

	tl_kcheck_interval(kc, tid, &v);
}

static inline void feed(struct tl_kcheck *kc, struct tl_event e)
{
	tl_kcheck_event(kc, &e, NULL);
}

/* The end of a local timer interrupt on CPU 0 in tid's context; told: the recorder says the tick ran in it (1.6). */
static inline struct tl_event local_timer(uint64_t ts, int32_t tid, int told)
{
	struct tl_event e = { .ts = ts,
		              .type = TL_EV_IRQ_EXIT,
		              .cpu = 0,
		              .tid = tid,
		              .flags = TL_EVF_VECTOR | TL_EVF_HARDIRQ,
		              .b = told,
		              .c = TL_VEC_LOCAL_TIMER };

	return e;
}

#endif
