/*
 * event_build.h - hand-written events for the unit tests, in microseconds.
 *
 * The state-machine and analysis tests write event sequences by hand; this
 * builds the struct from the fields that the table in lib/trace/event.h names,
 * so that the tests read as the sequence of kernel events they stand for.
 */
#ifndef TL_EVENT_BUILD_H
#define TL_EVENT_BUILD_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace/event.h"
#include "trace/trace.h"

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

/*
 * A trace of a recorded command whose process is `pid`, on 2 CPUs, that
 * starts at start_us, in a new file named from the mkstemp() template
 * path.  NULL on failure.
 */
static inline struct tl_trace_writer *program_trace_open(char *path, int32_t pid, uint64_t start_us)
{
	struct tl_trace_info info = { 0 };
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	snprintf(info.source, sizeof(info.source), "test");
	info.ncpus = 2;
	info.target_mode = TL_TARGET_COMMAND;
	info.ntargets = 1;
	info.targets[0] = pid;
	info.start_ns = start_us * 1000;
	return tl_trace_writer_create(path, &info);
}

/* Flush up to and end the trace at end_us, no events lost.  0, or -1. */
static inline int program_trace_close(struct tl_trace_writer *w, uint64_t end_us)
{
	struct tl_trace_end end = { 0 };
	uint64_t lost[2] = { 0, 0 };

	if (tl_trace_writer_flush(w, end_us * 1000) < 0)
		return -1;
	end.end_ns = end_us * 1000;
	end.ncpus = 2;
	end.lost_per_cpu = lost;
	return tl_trace_writer_close(w, &end);
}

#endif
