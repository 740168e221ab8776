/*
 * event_build.h - hand-written events for the unit tests, in microseconds.
 *
 * The state-machine and analysis tests write event sequences by hand; this
 * builds the struct from the fields that the table in lib/trace/event.h names,
 * so that the tests read as the sequence of kernel events they stand for.
 */
#ifndef TL_EVENT_BUILD_H
#define TL_EVENT_BUILD_H

#include "trace/event.h"

static inline struct tl_event event_us(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a,
                                       int64_t b, int64_t c, uint16_t flags)
{
	struct tl_event e = { 0 };
	e.ts = ts_us * 1000;
	e.cpu = (int16_t)cpu;
	e.type = (uint16_t)type;
	e.tid = tid;
	e.arg = arg;
	e.a = a;
	e.b = b;
	e.c = c;
	e.flags = flags;
	return e;
}

#endif
