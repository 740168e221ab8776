/*
 * test_analysis.c - tl_report_analyze() on a hand-written trace: the model's
 * per-thread, per-CPU and per-process numbers, the recorded program's
 * process tree, filters and the time window, all with exact expectations.
 *
 * The trace is written with the real writer and read back with the real
 * reader, so the test also covers the path the report takes.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "trace_build.h"
#include "analysis/report/report.h"

#define US 1000ull
#define T0 (1000 * US)

static char path[] = "/tmp/tl-test-analysis-XXXXXX";

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, 120, 120, 0, NULL);
}

/*
 * app (100) runs on cpu0 and starts thread worker (101) and process
 * helper (200).  other (300), not part of the program, preempts the worker.
 *
 *  cpu0: idle | 100 1000-1050 | 200 1050-1060 | idle ... 1100
 *  cpu1: idle 1000-1012 | 101 1012-1030 | 300 1030-1040 | 101 1040-1070 | idle
 */
static void write_trace(void)
{
	struct tl_trace_info info = { 0 };
	struct tl_trace_end end = { 0 };
	uint64_t lost[2] = { 0, 0 };
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	snprintf(info.source, sizeof(info.source), "test");
	info.ncpus = 2;
	info.target_mode = TL_TARGET_COMMAND;
	info.ntargets = 1;
	info.targets[0] = 100;
	info.start_ns = T0;
	W = tl_trace_writer_create(path, &info);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, 2, 0, "app");
	ev(1000, -1, TL_EV_THREAD, 300, 300, 0, 0, 0, 0, "other");
	sw(1000, 0, 0, 0, 100);
	ev(1010, 0, TL_EV_FORK, 101, 100, 0, 0, 0, 0, "worker");
	ev(1010, 0, TL_EV_THREAD, 101, 100, 0, 0, 0, 0, "worker");
	ev(1010, 0, TL_EV_WAKEUP_NEW, 101, 100, 1, 120, 0, 0, NULL);
	sw(1012, 1, 0, 0, 101);
	ev(1020, 0, TL_EV_FORK, 200, 100, 0, 0, 0, 0, "helper");
	ev(1020, 0, TL_EV_THREAD, 200, 200, 0, 0, 0, 0, "helper");
	ev(1020, 0, TL_EV_WAKEUP_NEW, 200, 100, 0, 120, 0, 0, NULL);
	ev(1030, 1, TL_EV_WAKING, 300, 0, 1, 120, 0, TL_EVF_HARDIRQ, NULL);
	sw(1030, 1, 101, TL_PS_PREEMPT, 300);
	sw(1040, 1, 300, TL_PS_S, 101);
	ev(1040, 0, TL_EV_SOFTIRQ_ENTRY, 100, 0, 3, 0, 0, TL_EVF_SOFTIRQ, NULL); /* NET_RX inside app's time */
	ev(1043, 0, TL_EV_SOFTIRQ_EXIT, 100, 0, 3, 0, 0, TL_EVF_SOFTIRQ, NULL);
	ev(1044, 0, TL_EV_IRQ_ENTRY, 100, 0, 11, 0, 0, TL_EVF_HARDIRQ, NULL);
	ev(1045, 0, TL_EV_IRQ_EXIT, 100, 0, 11, 1, 0, TL_EVF_HARDIRQ, NULL);
	ev(1045, 1, TL_EV_MIGRATE, 101, 0, 1, 0, 0, 0, NULL);
	sw(1050, 0, 100, TL_PS_S, 200);
	ev(1055, 0, TL_EV_EXIT, 200, 0, 0, 0, 0, 0, NULL);
	sw(1060, 0, 200, TL_PS_Z, 0);
	ev(1065, 1, TL_EV_WAKING, 100, 101, 0, 120, 0, 0, NULL);
	sw(1070, 1, 101, TL_PS_S, 0);
	CHECK(tl_trace_writer_flush(W, 1070 * US) == 0);
	end.end_ns = 1100 * US;
	end.ncpus = 2;
	end.lost_per_cpu = lost;
	CHECK(tl_trace_writer_close(W, &end) == 0);
}

static const struct tl_thread_stats *thread(const struct tl_model *m, int32_t tid)
{
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == tid)
			return &m->threads[i];
	return NULL;
}

static const struct tl_process_stats *proc(const struct tl_model *m, int32_t pid)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	return NULL;
}

/* The run opens `path` itself, as the command line's does. */
static int analyze(struct tl_model *m, struct tl_run *o)
{
	o->path = path;
	return tl_report_analyze(o, m);
}

static void release(struct tl_model *m, struct tl_run *o)
{
	tl_report_release(m);
	tl_run_release(o);
}

TEST(whole_trace)
{
	struct tl_run o = { .to_ns = -1 };
	struct tl_model m;
	const struct tl_thread_stats *w;
	const struct tl_process_stats *p;

	CHECK_EQ_INT(analyze(&m, &o), 0);
	CHECK_EQ_INT(o.win_end - o.win_start, 100 * US);
	/* the program: app, worker and the helper process it started; not "other" */
	CHECK_EQ_INT(m.nthreads, 3);
	CHECK(thread(&m, 300) == NULL);
	w = thread(&m, 101);
	CHECK(w != NULL);
	if (w) {
		CHECK_EQ_STR(w->name, "worker");
		CHECK_EQ_STR(w->process, "app");
		CHECK_EQ_INT(w->pid, 100);
		CHECK_EQ_INT(w->start, 1010 * US);
		CHECK_EQ_INT(w->end, 1100 * US);
		CHECK_EQ_INT(w->state_ns[TL_ST_NEW], 0);
		CHECK_EQ_INT(w->state_ns[TL_ST_RUNNABLE], 2 * US);
		CHECK_EQ_INT(w->state_ns[TL_ST_EXECUTING], 48 * US);
		CHECK_EQ_INT(w->state_ns[TL_ST_READY_PREEMPT],
		             10 * US); /* "other" was woken and took the CPU at once */
		CHECK_EQ_INT(w->state_ns[TL_ST_SLEEPING], 30 * US);
		CHECK_EQ_INT(w->invol_switches, 1);
		CHECK_EQ_INT(w->vol_switches, 1);
		CHECK_EQ_INT(w->migrations, 1);
		CHECK_EQ_INT(w->bursts.count, 2);
		CHECK_EQ_INT(w->bursts.max, 30 * US);
		CHECK_EQ_INT(w->sched_latency.count, 1);
		CHECK_EQ_INT(w->sched_latency.max, 2 * US);
		CHECK_EQ_INT(w->latency_max_at, 1010 * US); /* "max at": woken at 1010 */
		CHECK_EQ_INT(w->burst_max_at, 1040 * US);   /* the 30 us burst from 1040 */
		CHECK_EQ_INT(w->trans[TL_ST_EXECUTING][TL_ST_SLEEPING], 1);
		CHECK_EQ_INT(w->entries[TL_ST_EXECUTING], 2);
	}
	w = thread(&m, 100);
	CHECK(w != NULL);
	if (w) {
		CHECK_EQ_INT(w->nwakers, 1);
		CHECK_EQ_INT(w->wakers[0].tid, 101);
		CHECK_EQ_STR(w->wakers[0].name, "worker");
		CHECK_EQ_INT(w->wakers[0].wait_ns, 15 * US);
		CHECK_EQ_INT(w->state_ns[TL_ST_EXECUTING], 46 * US);
		CHECK_EQ_INT(w->state_ns[TL_ST_INTERRUPTED], 4 * US);
		/* by source, largest first */
		CHECK_EQ_INT(w->intr[0].soft, 1);
		CHECK_EQ_INT(w->intr[0].irq, 3);
		CHECK_EQ_INT(w->intr[0].count, 1);
		CHECK_EQ_INT(w->intr[0].ns, 3 * US);
		CHECK_EQ_INT(w->intr[1].soft, 0);
		CHECK_EQ_INT(w->intr[1].irq, 11);
		CHECK_EQ_INT(w->intr[1].ns, 1 * US);
		CHECK_EQ_INT(w->intr[2].count, 0);
	}
	CHECK(thread(&m, 101) && thread(&m, 101)->intr[0].count == 0);
	w = thread(&m, 200);
	CHECK(w && w->is_target);
	if (w)
		CHECK_EQ_INT(w->state_ns[TL_ST_ZOMBIE], 40 * US);
	p = proc(&m, 100);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ_INT(p->nthreads, 2);
		CHECK_EQ_INT(p->cpu_ns, 94 * US); /* EXECUTING: the interrupts apart */
		CHECK_EQ_INT(p->available_cpus, 2);
		CHECK_EQ_INT(p->cpus_used, 2);
		CHECK(p->cpu_pct_machine > 46.99 && p->cpu_pct_machine < 47.01);
		CHECK(p->cpu_pct_available > 46.99 && p->cpu_pct_available < 47.01);
	}
	/*
	 * app's threads wanting a CPU: app alone 1000-1010, app and worker
	 * 1010-1050, worker 1050-1065, both 1065-1070 (app woken, never run
	 * again), app 1070-1100
	 */
	{
		const struct tl_load_proc *l = tl_load_find(&m.load, 100);

		CHECK(l != NULL);
		if (l) {
			CHECK_EQ_INT(l->at_level[0], 0);
			CHECK_EQ_INT(l->at_level[1], (10 + 15 + 30) * US);
			CHECK_EQ_INT(l->at_level[2], (40 + 5) * US);
			CHECK_EQ_INT(l->max_level, 2);
		}
	}
	/* cpu1: idle 12 + 30 (1070-1100), busy 18 + 10 + 30 */
	CHECK_EQ_INT(m.cpus[1].busy_ns, 58 * US);
	CHECK_EQ_INT(m.cpus[1].idle_ns, 42 * US);
	CHECK_EQ_INT(m.cpus[1].nprocs, 2);
	CHECK_EQ_INT(m.cpus[1].procs[0].pid, 100);
	CHECK_EQ_INT(m.cpus[1].procs[0].ns, 48 * US);
	CHECK_EQ_STR(m.cpus[1].procs[1].name, "other");
	CHECK_EQ_INT(m.cpus[0].busy_ns, 56 * US);
	CHECK_EQ_INT(m.cpus[0].softirq_ns, 3 * US);
	CHECK_EQ_INT(m.cpus[0].irq_ns, 1 * US);
	CHECK_EQ_INT(o.lost_total, 0);
	CHECK_EQ_INT(o.read.complete, 1);
	release(&m, &o);
}

TEST(window_and_filters)
{
	struct tl_run o = { .from_ns = 20 * US, .to_ns = 60 * US };
	struct tl_model m;
	const struct tl_thread_stats *w;
	uint64_t sum = 0;

	CHECK_EQ_INT(analyze(&m, &o), 0);
	CHECK_EQ_INT(o.win_start, 1020 * US);
	CHECK_EQ_INT(o.win_end, 1060 * US);
	CHECK_EQ_INT(o.trace_end, 1100 * US); /* the whole file was still read */
	CHECK_EQ_INT(o.read.complete, 1);
	w = thread(&m, 101);
	CHECK(w != NULL);
	if (w) {
		for (int s = 0; s < TL_ST__COUNT; s++)
			sum += w->state_ns[s];
		CHECK_EQ_INT(sum, 40 * US);
		CHECK_EQ_INT(w->state_ns[TL_ST_EXECUTING], 30 * US);
		CHECK_EQ_INT(w->entries[TL_ST_EXECUTING], 1); /* only the run that began inside */
		CHECK_EQ_INT(w->bursts.count, 2);             /* one ended inside, one is cut by the window's end */
	}
	release(&m, &o);

	/* --all brings in "other"; --comm filters by thread or process name */
	o = (struct tl_run){ .to_ns = -1, .all_threads = 1, .comm = "oth" };
	CHECK_EQ_INT(analyze(&m, &o), 0);
	CHECK_EQ_INT(m.nthreads, 1);
	CHECK(thread(&m, 300) != NULL);
	release(&m, &o);
	{
		int tids[] = { 200 };
		o = (struct tl_run){ .to_ns = -1, .tids = tids, .ntids = 1 };
		CHECK_EQ_INT(analyze(&m, &o), 0);
		CHECK_EQ_INT(m.nthreads, 1);
		CHECK_EQ_INT(m.nprocs, 1);
		CHECK_EQ_INT(m.procs[0].pid, 200);
		release(&m, &o);
	}
}

static const struct tl_cpu_proc *cpu_proc(const struct tl_cpu_stats *c, int32_t pid)
{
	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid)
			return &c->procs[i];
	return NULL;
}

/*
 * A filtered recording of app (100): the kernel left other processes'
 * events out and wrote their totals (FILTERED).  cpu0: 100 runs 1000-1040,
 * then a filtered stretch; cpu1: a filtered stretch all along, split by
 * the totals: other (300) 50 us, another (301) 30 us (busy 70: 10 us of
 * theirs fall in the 10 unknown), idle 10, irq 6, softirq 4, and 5
 * switches left out.
 */
static char fpath[] = "/tmp/tl-test-analysis-filtered-XXXXXX";

static void write_filtered(void)
{
	struct tl_trace_info info = { 0 };
	struct tl_trace_end end = { 0 };
	uint64_t lost[2] = { 0, 0 };
	int fd = mkstemp(fpath);

	CHECK(fd >= 0);
	close(fd);
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	snprintf(info.source, sizeof(info.source), "record");
	snprintf(info.filter, sizeof(info.filter), "processes");
	info.ncpus = 2;
	info.target_mode = TL_TARGET_COMMAND;
	info.ntargets = 1;
	info.targets[0] = 100;
	info.start_ns = T0;
	W = tl_trace_writer_create(fpath, &info);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, 2, 0, "app");
	ev(1000, -1, TL_EV_THREAD, 300, 300, 0, 0, 0, 0, "other");
	ev(1000, 0, TL_EV_SWITCH, 0, 100, 0, 120, 120, TL_EVF_OTHER_TID, NULL);
	ev(1000, 1, TL_EV_SWITCH, 0, 300, 0, 120, 120, TL_EVF_OTHER_TID | TL_EVF_OTHER_ARG, NULL);
	ev(1040, 0, TL_EV_SWITCH, 100, 0, TL_PS_S, 120, 120, TL_EVF_OTHER_ARG, NULL);
	ev(1100, 0, TL_EV_FILTERED, 0, TL_FILT_CPU_TIME, 0, 60 * US, 0, 0, NULL);
	ev(1100, 0, TL_EV_FILTERED, 0, TL_FILT_CPU_INTR, 0, 0, 0, 0, NULL);
	ev(1100, 1, TL_EV_FILTERED, 0, TL_FILT_CPU_TIME, 70 * US, 10 * US, 5, 0, NULL);
	ev(1100, 1, TL_EV_FILTERED, 0, TL_FILT_CPU_INTR, 6 * US, 4 * US, 10 * US, 0, NULL);
	ev(1100, 1, TL_EV_FILTERED, 300, TL_FILT_PROCESS, 50 * US, 0, 0, 0, "other");
	ev(1100, 1, TL_EV_FILTERED, 301, TL_FILT_PROCESS, 30 * US, 0, 0, 0, "another");
	CHECK(tl_trace_writer_flush(W, 1100 * US) == 0);
	end.end_ns = 1100 * US;
	end.ncpus = 2;
	end.lost_per_cpu = lost;
	CHECK(tl_trace_writer_close(W, &end) == 0);
}

TEST(filtered_totals)
{
	struct tl_run o = { .to_ns = -1, .all_threads = 1, .path = fpath };
	struct tl_model m;
	const struct tl_cpu_stats *c;
	const struct tl_cpu_proc *cp;

	CHECK_EQ_INT(tl_report_analyze(&o, &m), 0);
	CHECK_EQ_STR(o.info.filter, "processes");
	CHECK_EQ_INT(m.nthreads, 1); /* other (300) has no states: left out even with --all */
	CHECK(thread(&m, 100) != NULL);
	c = &m.cpus[0];
	CHECK_EQ_INT(c->busy_ns, 40 * US);
	CHECK_EQ_INT(c->idle_ns, 60 * US);
	CHECK_EQ_INT(c->filtered_ns, 60 * US);
	c = &m.cpus[1];
	CHECK_EQ_INT(c->filtered_ns, 100 * US);
	CHECK_EQ_INT(c->busy_ns, 70 * US);
	CHECK_EQ_INT(c->idle_ns, 10 * US);
	CHECK_EQ_INT(c->irq_ns, 6 * US);
	CHECK_EQ_INT(c->softirq_ns, 4 * US);
	CHECK_EQ_INT(c->unknown_ns, 10 * US);
	CHECK_EQ_INT(c->switches, 1 + 5);
	cp = cpu_proc(c, 300);
	CHECK(cp != NULL && cp->ns == 50 * US && !strcmp(cp->name, "other"));
	cp = cpu_proc(c, 301);
	CHECK(cp != NULL && cp->ns == 30 * US && !strcmp(cp->name, "another"));
	release(&m, &o);

	/* half the recording: half of each total */
	o = (struct tl_run){ .to_ns = 50 * US, .path = fpath };
	CHECK_EQ_INT(tl_report_analyze(&o, &m), 0);
	c = &m.cpus[1];
	CHECK_EQ_INT(c->filtered_ns, 50 * US);
	CHECK_EQ_INT(c->busy_ns, 35 * US);
	CHECK_EQ_INT(c->unknown_ns, 5 * US);
	CHECK_EQ_INT(c->irq_ns, 3 * US);
	CHECK_EQ_INT(c->softirq_ns, 2 * US);
	CHECK_EQ_INT(c->idle_ns, 5 * US);
	cp = cpu_proc(c, 300);
	CHECK(cp != NULL && cp->ns == 25 * US);
	release(&m, &o);
}

static void remove_trace(void)
{
	unlink(path);
	unlink(fpath);
}

/* A trace of its own at path (a mkstemp() template) on ncpus CPUs, of program pid (0: the system). */
static struct tl_trace_writer *open_trace(char *tpath, int ncpus, int32_t pid)
{
	struct tl_trace_info info = { 0 };
	int fd = mkstemp(tpath);

	if (fd < 0)
		return NULL;
	close(fd);
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	info.ncpus = ncpus;
	info.target_mode = pid ? TL_TARGET_COMMAND : TL_TARGET_SYSTEM;
	info.ntargets = pid ? 1 : 0;
	info.targets[0] = pid;
	info.start_ns = T0;
	return tl_trace_writer_create(tpath, &info);
}

/* Flush W up to flush_us and end it at end_us, nothing lost.  0, or -1. */
static int close_trace(uint64_t flush_us, uint64_t end_us, int ncpus)
{
	struct tl_trace_end end = { 0 };
	uint64_t lost[8] = { 0 };

	if (tl_trace_writer_flush(W, flush_us * US) < 0)
		return -1;
	end.end_ns = end_us * US;
	end.ncpus = ncpus;
	end.lost_per_cpu = lost;
	return tl_trace_writer_close(W, &end);
}

/*
 * A wait whose waker the trace does not name (a wakeup from the idle task,
 * outside any interrupt) is kept, as tid 0 "[unknown]" (docs/REPORT.md):
 * app (100) sleeps 1010-1020, is woken by nobody known, waits for CPU 0
 * until 1025, sleeps again from 1030 to the end.
 */
/*
 * The CPUs a process may use (seed 000, Eq. 4): on 4 CPUs, app's threads
 * pinned to {0} and {1}, then worker widened to {1,2} (AFFINITY, format
 * 1.3): 3 CPUs, whatever the THREAD counts say.  old (no AFFINITY, as
 * before 1.3) says 1 CPU per thread but runs on two: at least the CPUs it
 * ran on.  Before, the process took its threads' largest count: 1 each,
 * so %avail read 200%.
 */
TEST(affinity_union)
{
	char apath[] = "/tmp/tl-test-analysis-affinity-XXXXXX";
	struct tl_run o = { .to_ns = -1, .path = apath };
	struct tl_model m;
	const struct tl_process_stats *p;

	W = open_trace(apath, 4, 0);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, 1, 0, "app");
	ev(1000, -1, TL_EV_AFFINITY, 100, 0, 0, 0x1, 1, 0, NULL);
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, 1, 0, "worker");
	ev(1000, -1, TL_EV_AFFINITY, 101, 0, 0, 0x2, 1, 0, NULL);
	ev(1000, -1, TL_EV_THREAD, 200, 200, 0, 0, 1, 0, "old");
	ev(1000, -1, TL_EV_THREAD, 201, 200, 0, 0, 1, 0, "old2");
	sw(1000, 0, 0, 0, 100);
	sw(1000, 1, 0, 0, 101);
	sw(1000, 2, 0, 0, 200);
	sw(1000, 3, 0, 0, 201);
	ev(1050, 1, TL_EV_AFFINITY, 101, 0, 0, 0x6, 2, 0, NULL);
	sw(1100, 0, 100, TL_PS_S, 0);
	sw(1100, 1, 101, TL_PS_S, 0);
	sw(1100, 2, 200, TL_PS_S, 0);
	sw(1100, 3, 201, TL_PS_S, 0);
	CHECK(close_trace(1100, 1100, 4) == 0);

	CHECK_EQ_INT(tl_report_analyze(&o, &m), 0);
	p = proc(&m, 100);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ_INT(p->available_cpus, 3);
		CHECK_EQ_INT(p->cpus_used, 2);
		CHECK(p->cpu_pct_available > 66.66 && p->cpu_pct_available < 66.67);
	}
	p = proc(&m, 200);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ_INT(p->available_cpus, 2);
		CHECK_EQ_INT(p->cpus_used, 2);
		CHECK(p->cpu_pct_available > 99.99 && p->cpu_pct_available < 100.01);
	}
	tl_report_release(&m);
	tl_run_release(&o);
	unlink(apath);
}

TEST(unknown_waker)
{
	char upath[] = "/tmp/tl-test-analysis-unknown-XXXXXX";
	struct tl_run o = { .to_ns = -1, .path = upath };
	struct tl_model m;
	const struct tl_thread_stats *a;

	W = open_trace(upath, 2, 100);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, 0, 0, "app");
	sw(1000, 0, 0, 0, 100);
	sw(1010, 0, 100, TL_PS_S, 0);
	ev(1020, 0, TL_EV_WAKING, 100, 0, 0, 120, 0, 0, NULL);
	sw(1025, 0, 0, 0, 100);
	sw(1030, 0, 100, TL_PS_S, 0);
	CHECK(close_trace(1030, 1050, 2) == 0);

	CHECK_EQ_INT(tl_report_analyze(&o, &m), 0);
	a = thread(&m, 100);
	CHECK(a != NULL);
	if (a) {
		CHECK_EQ_INT(a->nwakers, 1);
		CHECK_EQ_INT(a->wakers[0].tid, 0);
		CHECK_EQ_STR(a->wakers[0].name, "[unknown]");
		CHECK_EQ_INT(a->wakers[0].count, 1);
		CHECK_EQ_INT(a->wakers[0].wait_ns, 10 * US);
	}
	release(&m, &o);
	unlink(upath);
}

int main(void)
{
	write_trace();
	write_filtered();
	atexit(remove_trace);
	RUN_TESTS(whole_trace, window_and_filters, filtered_totals, unknown_waker, affinity_union);
}
