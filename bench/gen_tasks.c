/*
 * gen_tasks.c - write a synthetic trace of a sequential run with N tasks,
 * through the real trace writer, for `threadlens predict` benchmarks.
 *
 *   gen_tasks OUT.tl [N]       (N defaults to 1000000)
 *
 * One thread (tid 1001 of process 1000) runs a task "main" holding 10
 * frames "frame"; each frame has 20 us of its own code, then a loop "rows"
 * of N / 20 iterations "row" (2 tasks a row: "row" and, inside it, a
 * "pixel" covering half of it) lasting a deterministic pseudo-random 5-45
 * us.  The same arguments always give the same file.  It prints the
 * number of tasks written.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int put(struct tl_trace_writer *w, uint64_t ts, unsigned type, uint32_t name)
{
	struct tl_event e = { .ts = ts, .type = (uint16_t)type, .cpu = -1, .tid = 1001, .a = -1, .name = name };

	return tl_trace_writer_add(w, &e);
}

int main(int argc, char **argv)
{
	struct tl_trace_info info = { 0 };
	struct tl_trace_writer *w;
	struct tl_trace_end end = { 0 };
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000, x = 88172645463325252ull, t = 1000000000ull;
	uint64_t rows = n / 20, tasks = 0; /* rows a frame: 2 tasks each, 10 frames */
	uint32_t id_main, id_frame, id_rows, id_row, id_pixel;

	if (argc < 2 || n < 20) {
		fprintf(stderr, "usage: gen_tasks OUT.tl [N >= 20]\n");
		return 2;
	}
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	snprintf(info.source, sizeof(info.source), "gen_tasks");
	info.ncpus = 64;
	info.target_mode = TL_TARGET_COMMAND;
	info.ntargets = 1;
	info.targets[0] = 1000;
	if (!(w = tl_trace_writer_create(argv[1], &info))) {
		fprintf(stderr, "gen_tasks: cannot write %s\n", argv[1]);
		return 1;
	}
	id_main = tl_trace_writer_intern(w, "main");
	id_frame = tl_trace_writer_intern(w, "frame");
	id_rows = tl_trace_writer_intern(w, "rows");
	id_row = tl_trace_writer_intern(w, "row");
	id_pixel = tl_trace_writer_intern(w, "pixel");
	put(w, t, TL_EV_TASK_BEGIN, id_main);
	tasks++;
	for (int f = 0; f < 10; f++) {
		put(w, t, TL_EV_TASK_BEGIN, id_frame);
		t += 20000;
		put(w, t, TL_EV_TASK_BEGIN, id_rows);
		tasks += 2;
		for (uint64_t r = 0; r < rows; r++) {
			uint64_t d = 5000 + next_rand(&x) % 40000;
			put(w, t, TL_EV_TASK_BEGIN, id_row);
			put(w, t + d / 4, TL_EV_TASK_BEGIN, id_pixel);
			put(w, t + d / 4 + d / 2, TL_EV_TASK_END, id_pixel);
			t += d;
			put(w, t, TL_EV_TASK_END, id_row);
			tasks += 2;
		}
		put(w, t, TL_EV_TASK_END, id_rows);
		put(w, t, TL_EV_TASK_END, id_frame);
	}
	put(w, t, TL_EV_TASK_END, id_main);
	end.end_ns = t + 1000;
	if (tl_trace_writer_close(w, &end) < 0) {
		fprintf(stderr, "gen_tasks: cannot finish %s\n", argv[1]);
		return 1;
	}
	printf("%" PRIu64 "\n", tasks);
	return 0;
}
