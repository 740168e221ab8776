/*
 * fuzz_trace.h - for the fuzz targets that turn their input into a trace
 * and analyse it (fuzz_frames, fuzz_regions): the input after its first
 * two bytes is a list of 8-byte records, each written as one event by the
 * target's add() through the real writer into a temporary file (made on
 * the first call, removed at exit); the first two bytes choose whether
 * the trace has its end block and the window the analysis reads.
 */
#ifndef TL_FUZZ_TRACE_H
#define TL_FUZZ_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "timeline/run.h"
#include "trace/trace.h"

static char fuzz_trace_path[64];

static void fuzz_trace_cleanup(void)
{
	unlink(fuzz_trace_path);
}

/*
 * Write the trace of data (2..4096 bytes; tag names the file) and set *run
 * to read it.  0, or -1 when the input is not used (its size, or the
 * trace could not be written).
 */
static int fuzz_trace_write(const char *tag, const uint8_t *data, size_t size,
                            void (*add)(struct tl_trace_writer *w, const uint8_t *rec, uint64_t *ts),
                            struct tl_run *run)
{
	struct tl_trace_info info = { 0 };
	struct tl_trace_end end = { 0 };
	struct tl_trace_writer *w;
	uint64_t ts = 1000000;

	if (size < 2 || size > 4096)
		return -1;
	if (!fuzz_trace_path[0]) {
		int fd;

		snprintf(fuzz_trace_path, sizeof(fuzz_trace_path), "/tmp/tl-fuzz-%s-XXXXXX", tag);
		fd = mkstemp(fuzz_trace_path);
		if (fd < 0) {
			fuzz_trace_path[0] = 0;
			return -1;
		}
		close(fd);
		atexit(fuzz_trace_cleanup);
	}
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	info.ncpus = 2;
	info.start_ns = 1000000;
	w = tl_trace_writer_create(fuzz_trace_path, &info);
	if (!w)
		return -1;
	tl_trace_writer_set_level(w, 0);
	for (size_t i = 2; i + 8 <= size; i += 8)
		add(w, data + i, &ts);
	end.end_ns = ts + 1000;
	end.ncpus = 2;
	if (tl_trace_writer_close(w, data[0] & 0x40 ? &end : NULL) < 0)
		return -1;
	*run = (struct tl_run){ .path = fuzz_trace_path, .to_ns = -1 };
	run->from_ns = (data[0] & 3) * 50000;
	if (data[1] & 3)
		run->to_ns = run->from_ns + (data[1] & 3) * 200000;
	return 0;
}

#endif
