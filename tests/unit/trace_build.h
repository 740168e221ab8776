/*
 * trace_build.h - one hand-written trace at a time, for the tests that
 * write a program's trace event by event (event_build.h's fields) with the
 * real writer and read it back as the commands do.
 *
 * A test file includes it after harness.h, opens W with
 * program_trace_open(), writes with ev() and closes with
 * program_trace_close().  Each test program has its own W.
 */
#ifndef TL_TRACE_BUILD_H
#define TL_TRACE_BUILD_H

#include "event_build.h"
#include "harness.h"

static struct tl_trace_writer *W;

/* One event (event_us()'s fields), its name interned; a failure is a test failure. */
static inline void ev(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, int64_t b, int64_t c,
                      uint16_t flags, const char *name)
{
	struct tl_event e = event_us(ts_us, cpu, type, tid, arg, a, b, c, flags);

	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

#endif
