/*
 * fuzz_regions.c - libFuzzer target: any sequence of scheduler events,
 * OpenMP region instances and calls of the OpenMP runtime's barriers given
 * to the report's walk (analysis/regions, the workers' split) must never
 * crash, leak or break the model's invariants.
 *
 * The input is a list of 8-byte records, each one event, as fuzz_frames
 * has them: switches, wakeups, forks, exits, thread identities in two
 * processes, and REGION_BEGIN/END of GCC's outlined names (a region, a
 * task) and of a marker's, FUNC_ENTRY/EXIT of libgomp's barrier (an
 * inlined entry now and then) and of another function, on two CPUs and
 * six tids: so that tasks nest in regions, barriers in tasks, and ends go
 * missing; affinity masks (of one CPU or both, or of a word past the
 * CPUs) and a filtered recording's stretches and totals, for the waits
 * beside idle CPUs (analysis/confine); sched_yield calls and runs of them
 * (analysis/yspin).  The first two bytes choose the window.  The events go through
 * the real writer and reader into tl_report_analyze().
 *
 * Checked: every region's compared rounds are among its parallel ones and
 * its nested instances among a thread's; the JSON document is valid; the
 * text report prints, at a width of 80 to 120 columns the last byte
 * chooses, and no line of it is wider (report_text.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/report/report.h"
#include "output/json.h"
#include "trace/trace.h"

#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const regions[] = { "main._omp_fn.0", "main._omp_fn.1", "blocks" };
static const char *const funcs[] = { "libgomp.so.1:GOMP_barrier", "libgomp.so.1:GOMP_loop_end", "work" };

static void add(struct tl_trace_writer *w, const uint8_t *b, uint64_t *ts)
{
	struct tl_event e = { 0 };
	unsigned kind = b[0] % 12;
	static const int64_t states[] = { 0, TL_PS_S, TL_PS_D, TL_PS_Z };

	*ts += (uint64_t)b[4] * 1000;
	e.ts = *ts;
	e.cpu = (int16_t)(b[3] & 1);
	e.tid = b[1] % 6 + 1;
	switch (kind) {
	case 0:
	case 1:
		e.type = TL_EV_SWITCH;
		e.tid = b[1] % 7;
		e.arg = b[2] % 7;
		e.a = states[b[5] & 3] | ((b[5] & 4) ? TL_PS_PREEMPT : 0);
		e.b = e.c = 120;
		e.flags = (uint16_t)((b[7] & 3) << 5); /* TL_EVF_OTHER_TID, TL_EVF_OTHER_ARG */
		if (b[7] & 4)                          /* into a lock's futex wait */
			e.flags |= TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK;
		break;
	case 2:
		e.type = TL_EV_WAKEUP;
		e.arg = b[2] % 7;
		e.b = 120;
		break;
	case 3:
		e.type = TL_EV_FORK;
		e.arg = b[2] % 6 + 1;
		break;
	case 4: e.type = b[2] & 1 ? TL_EV_EXIT : TL_EV_FREE; break;
	case 5:
		e.type = TL_EV_THREAD;
		e.cpu = -1;
		e.arg = b[2] & 1 ? 1 : 4; /* two processes, their leaders tids 1 and 4 */
		e.name = tl_trace_writer_intern(w, "app");
		break;
	case 6:
	case 7:
		e.type = kind == 6 ? TL_EV_REGION_BEGIN : TL_EV_REGION_END;
		e.cpu = -1;
		e.a = kind == 6 && (b[5] & 0x80) ? b[5] % 4 : -1;
		if (kind == 7)
			e.a = 0;
		e.name = tl_trace_writer_intern(w, regions[b[6] % 3]);
		break;
	case 8:
	case 9:
		e.type = kind == 8 ? TL_EV_FUNC_ENTRY : TL_EV_FUNC_EXIT;
		e.cpu = -1;
		if (kind == 8 && (b[5] & 0x40))
			e.flags = TL_EVF_INLINED;
		e.name = tl_trace_writer_intern(w, funcs[b[6] % 3]);
		break;
	case 11:
		if (b[5] & 0x80) {
			e.type = TL_EV_FILTERED;
			e.tid = 0;
			e.arg = b[5] % 3; /* enum tl_filtered_kind */
			e.a = (int64_t)b[6] * 1000 - 1000;
			e.b = (int64_t)b[7] * 1000;
			e.c = b[2];
		} else {
			e.type = TL_EV_AFFINITY;
			e.cpu = -1;
			e.a = b[5] % 3 == 2 ? 1 : 0; /* word 1: past the 2 CPUs */
			e.b = b[6] & 3;
			e.c = __builtin_popcount(b[6] & 3);
		}
		break;
	case 10:
		if (b[5] & 0x80) {
			/* sched_yield: a run of calls (eBPF; damaged now and then) or one call (perf) */
			e.type = b[5] & 0x40 ? TL_EV_YIELD_SPIN : b[5] & 0x20 ? TL_EV_YIELD_ENTER : TL_EV_YIELD_EXIT;
			e.a = b[6] % 64;
			e.b = (int64_t)b[7] * 500 - 1000;
			e.c = (int64_t)b[2] * 1000;
			break;
		}
		if (b[5] & 0x40) {
			/* the futex word of the next wait (three locks, or none), or a word's name */
			e.type = b[5] & 0x20 ? TL_EV_FUTEX_NAME : TL_EV_FUTEX_WAIT;
			e.a = (int64_t)(b[6] % 4) * 0x100;
			if (e.type == TL_EV_FUTEX_NAME) {
				e.tid = b[1] & 1 ? 1 : 4; /* a process */
				e.name = tl_trace_writer_intern(w, b[7] & 1 ? "queue_lock (app)" : "[heap]");
			}
			break;
		}
		/* fall through */
	default:
		e.type = TL_EV_WAKING;
		e.arg = b[2] % 7;
		e.b = 120;
		break;
	}
	tl_trace_writer_add(w, &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_run run;
	struct tl_model m;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (fuzz_trace_write("regions", data, size, add, &run) < 0)
		return 0;
	if (tl_report_analyze(&run, &m) < 0) {
		tl_run_release(&run);
		return 0;
	}
	for (size_t i = 0; i < m.regions.n; i++) {
		const struct tl_region_stats *g = &m.regions.regions[i];

		if (g->rounds_compared > g->rounds_parallel)
			__builtin_trap();
		for (size_t k = 0; k < g->nthreads; k++)
			if (g->threads[k].nested > g->threads[k].instances)
				__builtin_trap();
	}
	for (size_t i = 0; i < m.nprocs; i++) {
		struct tl_omp_workers ow;

		tl_model_omp_workers(&m, m.procs[i].pid, &ow);
		if (ow.between_ns > ow.exec_ns)
			__builtin_trap();
	}
	mem = open_memstream(&buf, &len);
	if (mem) {
		if (tl_report_write_json(mem, &m, NULL) < 0)
			__builtin_trap();
		fflush(mem);
		if (tl_json_check(buf, len) < 0)
			__builtin_trap();
		rewind(mem);
		{
			struct tl_report_opts o = { .sort = TL_REPORT_SORT_DEFAULT,
				                    .width = 80 + (size ? data[size - 1] % 41 : 0) };
			size_t col = 0;

			if (tl_report_write_text(mem, &m, &o) < 0)
				__builtin_trap();
			fclose(mem);
			/* columns are characters: UTF-8 continuation bytes take none */
			for (size_t i = 0; i < len && buf[i]; i++) {
				if (buf[i] == '\n')
					col = 0;
				else if (((unsigned char)buf[i] & 0xc0) != 0x80 && ++col > (size_t)o.width)
					__builtin_trap();
			}
		}
		free(buf);
	}
	tl_report_release(&m);
	tl_run_release(&run);
	return 0;
}
