/*
 * fuzz_frames.c - libFuzzer target: any sequence of scheduler events and
 * markers given to `threadlens frames` must never crash, leak or break the
 * analysis' invariants.
 *
 * The input is not a trace file (the reader's checksums would stop most
 * mutations, and fuzz_reader covers that) but a list of 8-byte records,
 * each one event: switches, wakeups, forks, exits, thread identities,
 * RUNTIME repairs, lost events and every marker type, on two CPUs and six
 * tids, with small frame ids so that begins, ends and steps collide.  The
 * first two bytes choose the window, the interval and the options.  The
 * events go through the real writer and reader into tl_frames_analyze().
 *
 * Checked: every thread of every finished frame has from <= to and a state
 * split that sums exactly to to - from; the counts add up (completed +
 * unfinished = begun); the JSON document is valid; the text report prints.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/frames/frames.h"
#include "output/json.h"
#include "trace/trace.h"

#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static const char *const names[] = { "", "decode", "filter", "work" };

struct check {
	struct tl_json j;
	uint64_t frames;
};

static void on_frame(void *ctx, const struct tl_frame *f)
{
	struct check *c = ctx;

	if (f->end < f->begin)
		__builtin_trap();
	for (size_t i = 0; i < f->nthreads; i++) {
		const struct tl_frame_thread *t = &f->threads[i];
		uint64_t sum = 0;
		for (int s = 0; s < TL_ST__COUNT; s++)
			sum += t->state_ns[s];
		if (t->to < t->from || sum != t->to - t->from || !t->roles)
			__builtin_trap();
	}
	for (size_t i = 0; i < f->nsteps; i++)
		if (!f->steps[i].count || !f->steps[i].name)
			__builtin_trap();
	c->frames++;
	tl_frames_write_json_frame(&c->j, f, 1000000);
}

static void add(struct tl_trace_writer *w, const uint8_t *b, uint64_t *ts)
{
	struct tl_event e = { 0 };
	unsigned kind = b[0] % 16;
	int cpu = b[3] & 1;
	static const unsigned markers[] = { TL_EV_FRAME_BEGIN, TL_EV_FRAME_END, TL_EV_REGION_BEGIN, TL_EV_REGION_END,
		                            TL_EV_TASK_BEGIN,  TL_EV_TASK_END,  TL_EV_MARKS_LOST };
	static const int64_t states[] = { 0, TL_PS_S, TL_PS_D, TL_PS_Z };

	*ts += (uint64_t)b[4] * 1000;
	e.ts = *ts;
	e.cpu = (int16_t)cpu;
	e.tid = b[1] % 6 + 1;
	switch (kind) {
	case 0:
		e.type = TL_EV_SWITCH;
		e.tid = b[1] % 7;
		e.arg = b[2] % 7;
		e.a = states[b[5] & 3] | ((b[5] & 4) ? TL_PS_PREEMPT : 0);
		e.b = e.c = 120;
		break;
	case 1:
	case 2:
		e.type = kind == 1 ? TL_EV_WAKING : TL_EV_WAKEUP_NEW;
		e.arg = b[2] % 7;
		e.a = b[5] & 1;
		e.b = 120;
		break;
	case 3:
		e.type = TL_EV_FORK;
		e.arg = b[2] % 6 + 1;
		break;
	case 4: e.type = TL_EV_EXIT; break;
	case 5: e.type = TL_EV_FREE; break;
	case 6:
		e.type = TL_EV_THREAD;
		e.cpu = -1;
		e.arg = b[2] & 1 ? 100 : 200;
		e.name = tl_trace_writer_intern(w, b[2] & 2 ? "a" : "b");
		break;
	case 7:
		e.type = TL_EV_RUNTIME;
		e.a = (int64_t)b[5] * 1000;
		break;
	case 8:
		e.type = TL_EV_LOST;
		e.tid = 0;
		e.a = 1;
		break;
	default:
		e.type = (uint16_t)markers[(kind - 9) % 7];
		e.cpu = -1;
		e.a = (b[5] & 0x80) && e.type != TL_EV_FRAME_BEGIN && e.type != TL_EV_FRAME_END ? -1 : b[5] % 8;
		if (e.type >= TL_EV_REGION_BEGIN && e.type <= TL_EV_TASK_END)
			e.name = tl_trace_writer_intern(w, names[b[6] % 3 + 1]);
		if (e.type == TL_EV_REGION_END || e.type == TL_EV_TASK_END)
			e.a = 0;
		break;
	}
	tl_trace_writer_add(w, &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *only[] = { "filter" };
	int64_t ids[] = { 1 };
	struct tl_frames_opts o = { .worst = 2, .frame_ids = ids, .nframe_ids = 1 };
	struct tl_run run;
	struct tl_frames_result r;
	struct check c = { .frames = 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (fuzz_trace_write("frames", data, size, add, &run) < 0)
		return 0;
	o.interval_ns = 10000 + (uint64_t)(data[1] >> 2) * 1000;
	if (data[0] & 0x80) {
		o.steps = only;
		o.nsteps = 1;
	}
	o.on_frame = on_frame;
	o.ctx = &c;
	mem = open_memstream(&buf, &len);
	if (!mem)
		return 0;
	tl_json_init(&c.j, mem, TL_JSON_PRETTY);
	tl_frames_write_json_begin(&c.j);
	if (tl_frames_analyze(&run, &o, &r) < 0) {
		tl_run_release(&run);
		fclose(mem);
		free(buf);
		return 0;
	}
	tl_run_close(&run);
	if (r.completed + r.unfinished != r.begun || c.frames != r.begun || r.nworst > 2)
		__builtin_trap();
	tl_frames_write_json_end(&c.j, &r);
	if (tl_json_finish(&c.j) < 0)
		__builtin_trap();
	fflush(mem);
	if (tl_json_check(buf, len) < 0)
		__builtin_trap();
	rewind(mem);
	if (tl_frames_write_text(mem, &r, NULL) < 0)
		__builtin_trap();
	fclose(mem);
	free(buf);
	tl_frames_release(&r);
	tl_run_release(&run);
	return 0;
}
