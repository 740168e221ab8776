/*
 * fuzz_util.c - libFuzzer target: `threadlens util` on arbitrary sequences
 * of scheduler, interrupt, marker and probe events must never crash, and
 * must keep its invariants:
 *  - every measured instance splits exactly: cpu + irq + ready + asleep +
 *    unknown == elapsed (the state snapshots at its begin and end are
 *    exact), and every instance kept is counted once;
 *  - the span statistics are ordered: min <= mean <= max, and the central
 *    95% range lies inside [min, max].
 *
 * Each 4 input bytes make one event (type, time step, thread and CPU, name
 * or state), written with the real writer to a scratch file and read back,
 * so the mirror of the span builder's nesting in cpuuse.c (mismatched and
 * unmatched ends, spans cut by the end, tid reuse) is what gets exercised.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/event.h"
#include "trace/trace.h"
#include "analysis/cpuuse/cpuuse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const unsigned types[] = {
	TL_EV_REGION_BEGIN, TL_EV_REGION_END,    TL_EV_TASK_BEGIN,   TL_EV_TASK_END, TL_EV_FUNC_ENTRY,
	TL_EV_FUNC_EXIT,    TL_EV_SWITCH,        TL_EV_SWITCH,       TL_EV_WAKEUP,   TL_EV_IRQ_ENTRY,
	TL_EV_IRQ_EXIT,     TL_EV_SOFTIRQ_ENTRY, TL_EV_SOFTIRQ_EXIT, TL_EV_EXIT,     TL_EV_FREE,
	TL_EV_FORK,         TL_EV_THREAD,        TL_EV_MARKS_LOST,   TL_EV_RUNTIME,  TL_EV_LOST,
};
static const char *const names[] = { "a", "b", "c", "a" };
static const int64_t states[] = { 0, TL_PS_S, TL_PS_D, TL_PS_PREEMPT };

static char path[64];

static int write_trace(const uint8_t *data, size_t size)
{
	struct tl_trace_info info = { .ncpus = 2, .start_ns = 1000 };
	struct tl_trace_end end = { .ncpus = 2 };
	struct tl_trace_writer *w;
	uint64_t ts = 1000;

	snprintf(info.clock, sizeof(info.clock), "monotonic");
	w = tl_trace_writer_create(path, &info);
	if (!w)
		return -1;
	tl_trace_writer_set_level(w, 0);
	for (size_t i = 0; i + 4 <= size && i < 4 * 4096; i += 4) {
		struct tl_event e = { 0 };
		unsigned type = types[data[i] % (sizeof(types) / sizeof(types[0]))];
		int tid = 100 + (data[i + 2] & 3), cpu = (data[i + 2] >> 2) & 1;

		ts += data[i + 1] * 100u;
		e.ts = ts;
		e.type = (uint16_t)type;
		e.tid = tid;
		e.cpu = (int16_t)(type >= TL_EV_FRAME_BEGIN && type != TL_EV_FUNC_ENTRY && type != TL_EV_FUNC_EXIT
		                          ? -1
		                          : cpu);
		switch (type) {
		case TL_EV_SWITCH:
			e.tid = data[i + 2] & 0x10 ? 0 : tid;
			e.arg = data[i + 3] & 0x10 ? 0 : 100 + (data[i + 3] & 3);
			e.a = states[(data[i + 3] >> 2) & 3];
			e.b = e.c = 120;
			break;
		case TL_EV_WAKEUP:
			e.arg = 100 + (data[i + 3] & 3);
			e.a = cpu;
			break;
		case TL_EV_FORK: e.arg = 100; break;
		case TL_EV_THREAD:
			e.arg = 100;
			e.name = tl_trace_writer_intern(w, "t");
			break;
		case TL_EV_RUNTIME:
		case TL_EV_LOST:
		case TL_EV_MARKS_LOST: e.a = data[i + 3]; break;
		case TL_EV_REGION_BEGIN:
		case TL_EV_TASK_BEGIN:
			e.a = -1;
			/* fall through */
		case TL_EV_REGION_END:
		case TL_EV_TASK_END:
		case TL_EV_FUNC_ENTRY:
		case TL_EV_FUNC_EXIT: e.name = tl_trace_writer_intern(w, names[data[i + 3] & 3]); break;
		default: e.a = data[i + 3] & 7; break;
		}
		tl_trace_writer_add(w, &e);
	}
	end.end_ns = ts + 1000;
	return tl_trace_writer_close(w, &end);
}

static void check(const struct tl_cpuuse_result *r)
{
	for (size_t i = 0; i < r->nspans; i++) {
		const struct tl_cpuuse_span *s = &r->spans[i];
		if (s->ninst != s->cpu.count)
			__builtin_trap();
		for (size_t k = 0; k < s->ninst; k++) {
			const struct tl_cpuuse_instance *in = &s->inst[k];
			if (in->cpu_ns + in->irq_ns + in->ready_ns + in->asleep_ns + in->unknown_ns != in->elapsed_ns)
				__builtin_trap();
		}
		if (s->cpu.count && (s->cpu.mean < (double)s->cpu.min - 1e-6 ||
		                     s->cpu.mean > (double)s->cpu.max + 1e-6 || s->range_low_ns < s->cpu.min ||
		                     s->range_high_ns > s->cpu.max || s->range_low_ns > s->range_high_ns))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_cpuuse_spec specs[] = {
		{ .name = "a" },
		{ .name = "region:b", .rate_hz = 1000 },
		{ .name = "function:c", .period_ns = 50000 },
	};
	struct tl_cpuuse_opts o = { .specs = specs, .nspecs = 3, .keep_instances = 1 };
	struct tl_run run = { .path = path, .to_ns = -1 };
	struct tl_cpuuse_result r;
	FILE *devnull;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/tl-fuzz-util-%d.tl", (int)getpid());
	if (size < 1 || write_trace(data + 1, size - 1) < 0)
		return 0;
	if (data[0] & 1) { /* a window somewhere inside */
		run.from_ns = (int64_t)(data[0] >> 1) * 2000;
		run.to_ns = run.from_ns + 40000;
	}
	o.worst_pct = data[0] & 2 ? 100 : 0;
	if (tl_cpuuse_analyze(&run, &o, &r) == 0) {
		check(&r);
		devnull = fopen("/dev/null", "w");
		if (devnull) {
			tl_cpuuse_write_text(devnull, &r, 0);
			tl_cpuuse_write_json(devnull, &r);
			fclose(devnull);
		}
	}
	tl_cpuuse_result_release(&r);
	tl_run_release(&run);
	unlink(path);
	return 0;
}
