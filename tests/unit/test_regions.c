/*
 * test_regions.c - the parallel regions (analysis/regions) on a
 * hand-written trace, exact: rounds, lost and idle time, the laggard, the
 * state split after finishing; a serial and a dynamic region; and what
 * diagnose makes of it (barrier imbalance, and the barrier waits left out
 * of lock contention and of the bottleneck); OpenMP tasks inside their
 * region's instances, counted once in the workers' split; the OpenMP
 * runtime's barriers inside a region's instances, which split them into
 * parts that line up in rounds.
 *
 * The trace is written with the real writer and read back through the
 * report's walk, as the commands do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_build.h"
#include "harness.h"
#include "analysis/diagnose/diagnose.h"
#include "analysis/report/report.h"

#define US 1000ull

static struct tl_trace_writer *W;
static char path[] = "/tmp/tl-test-regions-XXXXXX";

static void ev(uint64_t ts_us, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, uint16_t flags,
               const char *name)
{
	struct tl_event e = event_us(ts_us, cpu, type, tid, arg, a, 120, 120, flags);
	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

static void sw(uint64_t t, int cpu, int32_t prev, int64_t state, int32_t next, uint16_t flags)
{
	ev(t, cpu, TL_EV_SWITCH, prev, next, state, flags, NULL);
}

static void rb(uint64_t t, int cpu, int32_t tid, const char *name)
{
	ev(t, cpu, TL_EV_REGION_BEGIN, tid, 0, -1, 0, name);
}

static void re(uint64_t t, int cpu, int32_t tid, const char *name)
{
	ev(t, cpu, TL_EV_REGION_END, tid, 0, 0, 0, name);
}

/*
 * app (100): w0 (101) on cpu0 and w1 (102) on cpu1 run three rounds of
 * "blocks" (times in us):
 *   round 1: both begin at 1000; w0 ends 1010 and sleeps on the barrier's
 *            futex 1011-1031 (w1 wakes it at 1030); w1 ends 1030;
 *   round 2: both begin at 1040; w0 ends 1060, sleeps 1061-1071; w1 ends 1070;
 *   round 3: both begin at 1080; w0 ends 1085 and keeps running; w1 ends 1095.
 * Between rounds 2 and 3, "pool" is begun by w1, then twice by w0 while w1's
 * is open (dynamic); after round 3 w1 runs "solo" alone (serial).
 */
static void write_trace(void)
{
	const uint16_t lockf = TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK;

	W = program_trace_open(path, 100, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, 0, "app");
	ev(1000, -1, TL_EV_THREAD, 101, 100, 0, 0, "w0");
	ev(1000, -1, TL_EV_THREAD, 102, 100, 0, 0, "w1");
	sw(1000, 0, 0, 0, 101, 0);
	sw(1000, 1, 0, 0, 102, 0);
	rb(1000, 0, 101, "blocks");
	rb(1000, 1, 102, "blocks");
	re(1010, 0, 101, "blocks");
	sw(1011, 0, 101, TL_PS_S, 0, lockf);
	re(1030, 1, 102, "blocks");
	ev(1030, 1, TL_EV_WAKING, 101, 102, 0, 0, NULL);
	ev(1030, 1, TL_EV_WAKEUP, 101, 102, 0, 0, NULL);
	sw(1031, 0, 0, 0, 101, 0);
	rb(1040, 0, 101, "blocks");
	rb(1040, 1, 102, "blocks");
	re(1060, 0, 101, "blocks");
	sw(1061, 0, 101, TL_PS_S, 0, lockf);
	re(1070, 1, 102, "blocks");
	ev(1070, 1, TL_EV_WAKING, 101, 102, 0, 0, NULL);
	ev(1070, 1, TL_EV_WAKEUP, 101, 102, 0, 0, NULL);
	sw(1071, 0, 0, 0, 101, 0);
	rb(1072, 1, 102, "pool");
	rb(1073, 0, 101, "pool");
	re(1074, 0, 101, "pool");
	rb(1075, 0, 101, "pool");
	re(1076, 0, 101, "pool");
	re(1078, 1, 102, "pool");
	rb(1080, 0, 101, "blocks");
	rb(1080, 1, 102, "blocks");
	re(1085, 0, 101, "blocks");
	re(1095, 1, 102, "blocks");
	rb(1096, 1, 102, "solo");
	re(1097, 1, 102, "solo");
	CHECK(program_trace_close(W, 1100) == 0);
}

static const struct tl_region_stats *region(const struct tl_model *m, const char *name)
{
	for (size_t i = 0; i < m->regions.n; i++)
		if (!strcmp(m->regions.regions[i].name, name))
			return &m->regions.regions[i];
	return NULL;
}

static const struct tl_region_thread *rthread(const struct tl_region_stats *g, int32_t tid)
{
	for (size_t i = 0; g && i < g->nthreads; i++)
		if (g->threads[i].tid == tid)
			return &g->threads[i];
	return NULL;
}

TEST(rounds)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_model m;
	const struct tl_region_stats *g;
	const struct tl_region_thread *w0, *w1;

	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	CHECK_EQ_INT(m.regions.n, 3);
	g = region(&m, "blocks");
	CHECK(g != NULL);
	if (g) {
		CHECK_EQ_INT(g->pid, 100);
		CHECK_EQ_INT(g->instances, 6);
		CHECK_EQ_INT(g->rounds_parallel, 3);
		CHECK_EQ_INT(g->rounds_compared, 3);
		CHECK_EQ_INT(g->rounds_serial, 0);
		CHECK_EQ_INT(g->wall_ns, (30 + 30 + 15) * US);
		CHECK_EQ_INT(g->lost_ns, (10 + 5 + 5) * US);      /* 1030 - 1020, 1070 - 1065, 1095 - 1090 */
		CHECK_EQ_INT(g->work_lost_ns, (10 + 5 + 5) * US); /* 30 vs 20, 30 vs 25, 15 vs 10 us of CPU */
		CHECK_EQ_INT(g->idle_ns, (20 + 10 + 10) * US);
		CHECK_EQ_INT(g->worst_lost_ns, 10 * US);
		CHECK_EQ_INT(g->worst[0], 1000 * US);
		CHECK_EQ_INT(g->worst[1], 1030 * US);
		CHECK_EQ_INT(g->after[TL_ST_SYNC_WAIT], (19 + 9) * US); /* asleep 1011-1030, 1061-1070 */
		w0 = rthread(g, 101);
		w1 = rthread(g, 102);
		CHECK(w0 && w1);
		if (w0 && w1) {
			CHECK_EQ_STR(w1->name, "w1");
			CHECK_EQ_INT(w1->last, 3);
			CHECK_EQ_INT(w0->last, 0);
			CHECK_EQ_INT(w1->late_ns, 20 * US);
			CHECK_EQ_INT(w0->instances, 3);
			CHECK_EQ_INT(w0->inside[TL_ST_EXECUTING], (10 + 20 + 5) * US);
			/* after finishing: 1010-1030 (1 running, 19 asleep), 1060-1070 (1 + 9), 1085-1095 (10 running) */
			CHECK_EQ_INT(w0->after[TL_ST_EXECUTING], (1 + 1 + 10) * US);
			CHECK_EQ_INT(w0->after[TL_ST_SYNC_WAIT], (19 + 9) * US);
			CHECK_EQ_INT(w0->par_sync_ns,
			             (19 + 9) * US); /* END -> next BEGIN: asleep 1011-1030, 1061-1070 */
			CHECK_EQ_INT(w1->par_sync_ns, 0);
		}
	}
	{
		/* the report's text shows the parallel ones */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		CHECK(f != NULL);
		if (f) {
			CHECK_EQ_INT(tl_report_write_text(f, &m, NULL), 0);
			fclose(f);
			CHECK(strstr(text, "\nPARALLEL REGIONS  (") != NULL);
			CHECK(strstr(text, "\nblocks ") != NULL);
			/* 2 threads, 3 of 3 rounds parallel, 75 us / 3, 20 of 75 us, 20 of 75 us of CPU */
			CHECK(strstr(text, "      2    3/3       25.0us    26.7%    26.7%") != NULL);
			CHECK(strstr(text, "\npool ") == NULL); /* dynamic only: not parallel */
			free(text);
		}
	}
	g = region(&m, "pool");
	CHECK(g && g->rounds_dynamic == 1 && g->rounds_parallel == 0 && g->instances == 3);
	g = region(&m, "solo");
	CHECK(g && g->rounds_serial == 1 && g->rounds_parallel == 0 && g->wall_ns == 0);
	CHECK_EQ_INT(m.regions.unmatched, 0);
	CHECK_EQ_INT(m.regions.incomplete, 0);
	tl_report_release(&m);
	tl_run_release(&run);
}

TEST(diagnosis)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_diagnose_opts o;
	struct tl_findings f;

	tl_diagnose_defaults(&o);
	o.min_cost_ns = 5 * US;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	/* w0's 28 us on the barrier's futex are the region's, not a lock's; w1 is no bottleneck */
	CHECK_EQ_INT(f.n, 1);
	if (f.n == 1) {
		CHECK_EQ_STR(tl_finding_kind_name(f.items[0].kind), "barrier-imbalance");
		CHECK_EQ_STR(f.items[0].region, "blocks");
		CHECK_EQ_INT(f.items[0].cost_ns, 20 * US);
		CHECK_EQ_INT(f.items[0].threads[0].tid, 102);
		CHECK_EQ_STR(f.items[0].threads[0].role, "laggard");
		CHECK_EQ_INT(f.items[0].threads[1].tid, 101);
	}
	CHECK_EQ_INT(f.checked[TL_FIND_BARRIER_IMBALANCE], 3);
	tl_findings_release(&f);
	tl_run_release(&run);

	/* 20 of 75 us is 26.7%: under a 30% threshold, nothing */
	run = (struct tl_run){ .to_ns = -1, .path = path };
	o.imbalance_pct = 30;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	CHECK_EQ_INT(f.n, 0);
	tl_findings_release(&f);
	tl_run_release(&run);
}

/*
 * omp (200): main (200) on cpu0 and a worker (201) on cpu1 run two rounds
 * of the OpenMP region "main._omp_fn.0" (times in us, all on a CPU):
 *   round 1, 2000-2100: the worker runs two tasks ("main._omp_fn.1")
 *            inside its instance, 2010-2030 and 2040-2080, both inside
 *            the runtime's barrier it calls at 2005 and leaves at 2095;
 *   round 2, 2200-2300: the main thread runs one task, 2210-2290, inside
 *            its barrier (2205-2295); the worker spins in its own,
 *            2201-2299;
 *   2100-2200 and 2300-2400: the worker spins between the rounds.
 * The tasks are inside the region's instances: the worker's split counts
 * its 200 us inside once, not 260; of them, 30 + 98 us in the barriers
 * outside a task are waiting.
 */
static void write_tasks(char *p)
{
	const char *B = "libgomp.so.1:GOMP_barrier";

	W = program_trace_open(p, 200, 1990);
	CHECK(W != NULL);
	ev(2000, -1, TL_EV_THREAD, 200, 200, 0, 0, "omp");
	ev(2000, -1, TL_EV_THREAD, 201, 200, 0, 0, "omp");
	sw(2000, 0, 0, 0, 200, 0);
	sw(2000, 1, 0, 0, 201, 0);
	rb(2000, 0, 200, "main._omp_fn.0");
	rb(2000, 1, 201, "main._omp_fn.0");
	ev(2005, 1, TL_EV_FUNC_ENTRY, 201, 0, 0, 0, B);
	rb(2010, 1, 201, "main._omp_fn.1");
	re(2030, 1, 201, "main._omp_fn.1");
	rb(2040, 1, 201, "main._omp_fn.1");
	re(2080, 1, 201, "main._omp_fn.1");
	ev(2095, 1, TL_EV_FUNC_EXIT, 201, 0, 0, 0, B);
	re(2100, 0, 200, "main._omp_fn.0");
	re(2100, 1, 201, "main._omp_fn.0");
	rb(2200, 0, 200, "main._omp_fn.0");
	rb(2200, 1, 201, "main._omp_fn.0");
	ev(2201, 1, TL_EV_FUNC_ENTRY, 201, 0, 0, 0, B);
	ev(2205, 0, TL_EV_FUNC_ENTRY, 200, 0, 0, 0, B);
	rb(2210, 0, 200, "main._omp_fn.1");
	re(2290, 0, 200, "main._omp_fn.1");
	ev(2295, 0, TL_EV_FUNC_EXIT, 200, 0, 0, 0, B);
	ev(2299, 1, TL_EV_FUNC_EXIT, 201, 0, 0, 0, B);
	re(2300, 0, 200, "main._omp_fn.0");
	re(2300, 1, 201, "main._omp_fn.0");
	sw(2400, 1, 201, TL_PS_S, 0, TL_EVF_WAIT_FUTEX);
	sw(2400, 0, 200, TL_PS_S, 0, TL_EVF_WAIT_FUTEX);
	CHECK(program_trace_close(W, 2410) == 0);
}

TEST(omp_tasks_counted_once)
{
	char p[] = "/tmp/tl-test-omptasks-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	struct tl_model m;
	struct tl_omp_workers w;
	const struct tl_region_thread *t;
	const struct tl_region_stats *g;
	struct tl_diagnose_opts o;
	struct tl_findings f;
	uint64_t in, around;
	int found = 0;

	write_tasks(p);
	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	t = rthread(region(&m, "main._omp_fn.1"), 201);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->nested, 2);
		CHECK_EQ_INT(t->inside[TL_ST_EXECUTING], 60 * US); /* the region's own sums keep them */
		CHECK_EQ_INT(t->top_inside_exec, 0);
	}
	CHECK(region(&m, "main._omp_fn.1") && tl_region_is_tasks(region(&m, "main._omp_fn.1")));
	CHECK(region(&m, "main._omp_fn.0") && !tl_region_is_tasks(region(&m, "main._omp_fn.0")));
	t = rthread(region(&m, "main._omp_fn.0"), 201);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->nested, 0);
		CHECK_EQ_INT(t->top_inside_exec, 200 * US);
		CHECK_EQ_INT(t->top_barrier_exec, (30 + 98) * US); /* its barriers less the tasks run there */
	}
	CHECK(region(&m, "main._omp_fn.0") && region(&m, "main._omp_fn.0")->barriers == 0); /* tasks: no parts */
	for (size_t i = 0; i < m.nthreads; i++)
		if (m.threads[i].tid == 201) {
			CHECK_EQ_INT(tl_model_omp_worker(&m, &m.threads[i], &in, &around), 1);
			CHECK_EQ_INT(in, (200 - 128) * US);
			CHECK_EQ_INT(around, 128 * US);
		}
	tl_model_omp_workers(&m, 200, &w);
	CHECK_EQ_INT(w.threads, 1);
	CHECK_EQ_INT(w.exec_ns, 400 * US);
	CHECK_EQ_INT(w.inside_ns, 72 * US);
	CHECK_EQ_INT(w.around_ns, 128 * US);
	CHECK_EQ_INT(w.between_ns, 200 * US); /* before: 140 us, as 260 us were counted inside */
	g = region(&m, "main._omp_fn.0");
	CHECK(g && g->tasks_in_barrier && rthread(g, 200) && rthread(g, 201));
	if (g && rthread(g, 200) && rthread(g, 201)) {
		CHECK_EQ_INT(rthread(g, 201)->top_barrier_ns, (30 + 98) * US);
		CHECK_EQ_INT(rthread(g, 200)->top_barrier_ns, 10 * US); /* 90 in its barrier, 80 of them its task */
	}
	tl_report_release(&m);
	tl_run_release(&run);

	/* 138 us of the team's 2 x 200 waiting with no task: task-starvation, 69 us a thread */
	run = (struct tl_run){ .to_ns = -1, .path = p };
	tl_diagnose_defaults(&o);
	o.min_cost_ns = 5 * US;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	for (size_t i = 0; i < f.n; i++)
		if (f.items[i].kind == TL_FIND_TASK_STARVATION) {
			found++;
			CHECK_EQ_STR(f.items[i].region, "main._omp_fn.0");
			CHECK_EQ_INT(f.items[i].cost_ns, 69 * US);
		}
	CHECK_EQ_INT(found, 1);
	CHECK_EQ_INT(f.checked[TL_FIND_TASK_STARVATION], 2);
	tl_findings_release(&f);
	tl_run_release(&run);
	unlink(p);
}

/*
 * bar (300): main (300) on cpu0 and a worker (301) on cpu1 run three rounds
 * of "main._omp_fn.0" (t = 3000, 3200, 3400 us), each with the runtime's
 * barrier inside (an `omp for` of uneven halves, then more work): the
 * worker's part ends at t+10 and it spins in GOMP_barrier until the main
 * thread arrives at t+80; both then work to t+100.  Between the rounds and
 * after the last, to 3500, the worker spins (EXECUTING).  From the second
 * round on (the first shows whether tasks run inside the barriers) the
 * parts line up in rounds: the first part of each is uneven (80 us against
 * 10), the second even.
 */
static void write_barriers(char *p)
{
	const char *F = "main._omp_fn.0", *B = "libgomp.so.1:GOMP_barrier";

	W = program_trace_open(p, 300, 2990);
	CHECK(W != NULL);
	ev(3000, -1, TL_EV_THREAD, 300, 300, 0, 0, "bar");
	ev(3000, -1, TL_EV_THREAD, 301, 300, 0, 0, "bar");
	sw(3000, 0, 0, 0, 300, 0);
	sw(3000, 1, 0, 0, 301, 0);
	for (uint64_t t = 3000; t <= 3400; t += 200) {
		rb(t, 0, 300, F);
		rb(t, 1, 301, F);
		ev(t + 10, 1, TL_EV_FUNC_ENTRY, 301, 0, 0, 0, B);
		ev(t + 80, 0, TL_EV_FUNC_ENTRY, 300, 0, 0, 0, B);
		ev(t + 80, 0, TL_EV_FUNC_EXIT, 300, 0, 0, 0, B);
		ev(t + 80, 1, TL_EV_FUNC_EXIT, 301, 0, 0, 0, B);
		re(t + 100, 0, 300, F);
		re(t + 100, 1, 301, F);
	}
	sw(3500, 1, 301, TL_PS_S, 0, TL_EVF_WAIT_FUTEX);
	sw(3500, 0, 300, TL_PS_S, 0, TL_EVF_WAIT_FUTEX);
	CHECK(program_trace_close(W, 3510) == 0);
}

TEST(omp_barriers_split_rounds)
{
	char p[] = "/tmp/tl-test-ompbar-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = p };
	struct tl_model m;
	struct tl_omp_workers w;
	struct tl_diagnose_opts o;
	struct tl_findings f;
	const struct tl_region_stats *g;
	const struct tl_region_thread *t;
	int found = 0;

	write_barriers(p);
	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	g = region(&m, "main._omp_fn.0");
	CHECK(g != NULL);
	if (g) {
		CHECK_EQ_INT(g->instances, 6);       /* the function's calls */
		CHECK_EQ_INT(g->barriers, 4);        /* not in the first round */
		CHECK_EQ_INT(g->rounds_parallel, 5); /* the first round whole, then two parts a call */
		CHECK_EQ_INT(g->rounds_compared, 5);
		CHECK_EQ_INT(g->wall_ns, 3 * 100 * US);
		CHECK_EQ_INT(g->lost_ns, 2 * 35 * US);      /* t+80 - the mean of t+10 and t+80; whole: none */
		CHECK_EQ_INT(g->work_lost_ns, 2 * 35 * US); /* 80 - the mean of 80 and 10 */
		CHECK_EQ_INT(g->work_max_ns, (100 + 2 * (80 + 20)) * US);
		CHECK_EQ_INT(g->after[TL_ST_EXECUTING], 2 * 70 * US);
		CHECK_EQ_INT(g->inside[TL_ST_EXECUTING], (300 + 160) * US); /* both threads, all parts */
	}
	t = rthread(g, 301);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->instances, 3);
		CHECK_EQ_INT(t->top_inside_exec, (100 + 2 * 30) * US); /* the first round whole */
		CHECK_EQ_INT(t->top_around_exec, 2 * 70 * US);         /* spinning in the barrier */
		CHECK_EQ_INT(t->top_barrier_exec, 70 * US);            /* ... and in the first round's */
	}
	t = rthread(g, 300);
	CHECK(t != NULL && t->last >= 2); /* the uneven parts' laggard (ties go to it too) */
	tl_model_omp_workers(&m, 300, &w);
	CHECK_EQ_INT(w.exec_ns, 500 * US);
	CHECK_EQ_INT(w.inside_ns, 90 * US);
	CHECK_EQ_INT(w.around_ns, 210 * US);
	CHECK_EQ_INT(w.between_ns, 200 * US);
	tl_report_release(&m);
	tl_run_release(&run);

	/* the imbalance inside the region is found: its instances themselves end together */
	run = (struct tl_run){ .to_ns = -1, .path = p };
	tl_diagnose_defaults(&o);
	o.min_cost_ns = 5 * US;
	CHECK_EQ_INT(tl_diagnose_analyze(&run, &o, &f), 0);
	for (size_t i = 0; i < f.n; i++)
		if (f.items[i].kind == TL_FIND_BARRIER_IMBALANCE) {
			found++;
			CHECK_EQ_STR(f.items[i].region, "main._omp_fn.0");
			CHECK_EQ_INT(f.items[i].cost_ns, 70 * US);
			CHECK_EQ_INT(f.items[i].threads[0].tid, 300);
		}
	CHECK_EQ_INT(found, 1);
	tl_findings_release(&f);
	tl_run_release(&run);
	unlink(p);
}

static void remove_trace(void)
{
	unlink(path);
}

int main(void)
{
	write_trace();
	atexit(remove_trace);
	RUN_TESTS(rounds, diagnosis, omp_tasks_counted_once, omp_barriers_split_rounds);
}
