/*
 * test_report_width.c - the text report fits its width: every line of a
 * report with every section, all fourteen states, seven-digit ids and
 * names as long as they come is at most --width columns for any width
 * from 80 up, and the tables that give up columns to fit do so exactly as
 * docs/REPORT.md says (report_text.c, report_text_sys.c, locks_write.c).
 *
 * The model is built here field by field, so every expected line follows
 * from the fixture alone.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "harness.h"
#include "analysis/report/report.h"

#define MS 1000000ull
#define T0 1000000000000ull /* trace start, absolute */

/* A name of 63 characters, the longest a name field holds. */
#define LONG63 "a-name-of-sixty-three-characters-that-fits-no-column-whatsoever"

struct fixture {
	struct tl_run run;
	struct tl_model m;
	struct tl_thread_stats th[3];
	struct tl_waker_stat wk[1];
	struct tl_cpu_stats cpu[2];
	struct tl_cpu_proc cproc[3];
	struct tl_process_stats proc[1];
	struct tl_lock lock[1];
	struct tl_lock_thread waiters[3];
	struct tl_region_stats region[1];
	struct tl_region_thread rthreads[2];
	struct tl_kcheck_thread k[3];
	uint64_t lost[2];
};

/*
 * Window = the trace, 1050 ms, 2 CPUs, one process (pid 1234567).
 *   tid 1234567 "decoder": 1050 ms, state s for (14 - s) * 10 ms: NEW 13.3%
 *     of its lifetime, RUNBL 12.4, PREEM 11.4, ... UNKN 0.95
 *   tid 1234568 LONG63: 100 ms EXECUTING
 *   tid 1234569 "waiter": 1000 ms: EXECUTING 500, SYNC_WAIT 500
 * By their largest share in a row the states rank EXEC 100%, SYNC 50%, NEW,
 * RUNBL, PREEM, QUANT, YIELD, then INTR 7.6% (80 of 1050), SLEEP ... UNKN.
 */
static void fixture_init(struct fixture *fx)
{
	struct tl_model *m = &fx->m;
	struct tl_thread_stats *t;

	memset(fx, 0, sizeof(*fx));
	strcpy(fx->run.info.source, "record");
	strcpy(fx->run.info.backend, "bpf");
	strcpy(fx->run.info.kernel, "6.18.44-a-kernel-release-string-as-long-as-distributions-make-them");
	strcpy(fx->run.info.hostname, "build-host-with-a-long-fully-qualified-name.example.org");
	strcpy(fx->run.info.cpu_model, "AMD EPYC 9654 96-Core Processor with a long model string");
	strcpy(fx->run.info.command, "./" LONG63 " --frames 100 --input /data/a/long/path/to/a/file.mp4");
	strcpy(fx->run.info.filter, "pid");
	fx->run.info.ncpus = 2;
	fx->run.info.target_mode = TL_TARGET_COMMAND;
	fx->run.info.ntargets = 1;
	fx->run.info.targets[0] = 1234567;
	fx->run.path = "/a/directory/with/a/rather/long/path/name/to/the/recording.tl";
	fx->run.read.events = 123456789;
	fx->run.read.complete = 1;
	fx->run.read.nwarnings = 1;
	strcpy(fx->run.read.warnings[0], "chunk 3 of '/a/directory/with/a/rather/long/path/name/to/the/recording.tl' "
	                                 "is damaged: its 4242 events were skipped");
	fx->run.trace_start = fx->run.win_start = T0;
	fx->run.trace_end = fx->run.win_end = T0 + 1050 * MS;
	fx->run.lost_total = 3000000;
	fx->lost[0] = 1000000, fx->lost[1] = 2000000;
	fx->run.lost_per_cpu = fx->lost;
	fx->run.sched.anomalies = 12345;
	fx->run.sched.inferred_switches = 1234567;
	fx->run.sched.inferred_wakeups = 7654321;
	m->ncpus = fx->run.ncpus = 2;
	m->run = &fx->run;

	t = &fx->th[0];
	t->tid = t->pid = 1234567, t->is_target = 1;
	strcpy(t->name, "decoder");
	strcpy(t->process, LONG63);
	t->start = T0, t->end = T0 + 1050 * MS;
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		t->state_ns[s] = (14 - s) * 10 * MS;
	t->vol_switches = 1234567, t->invol_switches = 98765, t->migrations = 4321;
	tl_dist_add(&t->sched_latency, 2 * MS);
	tl_dist_add(&t->bursts, 25 * MS);
	t->latency_max_at = T0 + 400 * MS;
	t->burst_max_at = T0 + 800 * MS;
	t->wakers = fx->wk, t->nwakers = 1;
	fx->wk[0] = (struct tl_waker_stat){ .tid = 1234569, .name = "waiter", .count = 6, .wait_ns = 300 * MS };

	t = &fx->th[1];
	t->tid = 1234568, t->pid = 1234567, t->is_target = 1;
	strcpy(t->name, LONG63);
	strcpy(t->process, LONG63);
	t->start = T0, t->end = T0 + 100 * MS;
	t->state_ns[TL_ST_EXECUTING] = 100 * MS;

	t = &fx->th[2];
	t->tid = 1234569, t->pid = 1234567, t->is_target = 1;
	strcpy(t->name, "waiter");
	strcpy(t->process, LONG63);
	t->start = T0, t->end = T0 + 1000 * MS;
	t->state_ns[TL_ST_EXECUTING] = 500 * MS;
	t->state_ns[TL_ST_SYNC_WAIT] = 500 * MS;
	t->wakers = fx->wk, t->nwakers = 1;
	m->threads = fx->th, m->nthreads = 3;

	fx->cproc[0] = (struct tl_cpu_proc){ .pid = 1234567, .name = LONG63, .ns = 500 * MS };
	fx->cproc[1] = (struct tl_cpu_proc){ .pid = 7, .name = "kworker/u8:3-events_unbound", .ns = 100 * MS };
	fx->cproc[2] = (struct tl_cpu_proc){ .pid = 8, .name = "systemd-journald", .ns = 10 * MS };
	for (int c = 0; c < 2; c++)
		fx->cpu[c] = (struct tl_cpu_stats){ .cpu = c,
			                            .busy_ns = 600 * MS,
			                            .idle_ns = 380 * MS,
			                            .irq_ns = 15 * MS,
			                            .softirq_ns = 5 * MS,
			                            .unknown_ns = 50 * MS,
			                            .switches = 123456789,
			                            .procs = fx->cproc,
			                            .nprocs = 3 };
	m->cpus = fx->cpu;

	fx->proc[0] = (struct tl_process_stats){ .pid = 1234567,
		                                 .name = LONG63,
		                                 .is_target = 1,
		                                 .nthreads = 3,
		                                 .start = T0,
		                                 .end = T0 + 1050 * MS,
		                                 .cpu_ns = 1200 * MS,
		                                 .available_cpus = 2,
		                                 .cpus_used = 2,
		                                 .cpu_pct_machine = 57.1,
		                                 .cpu_pct_available = 57.1 };
	for (int i = 0; i < 3; i++)
		for (unsigned s = 0; s < TL_ST__COUNT; s++)
			fx->proc[0].state_ns[s] += fx->th[i].state_ns[s];
	m->procs = fx->proc, m->nprocs = 1;

	fx->waiters[0] = (struct tl_lock_thread){ .tid = 1234568, .name = LONG63, .waits = 5, .ns = 60 * MS };
	fx->waiters[1] = (struct tl_lock_thread){ .tid = 1234569, .name = "waiter", .waits = 3, .ns = 30 * MS };
	fx->waiters[2] = (struct tl_lock_thread){ .tid = 1234567, .name = "decoder", .waits = 1, .ns = 10 * MS };
	fx->lock[0] = (struct tl_lock){ .pid = 1234567,
		                        .addr = 0x7f0000001000,
		                        .name = "frame_queue_lock+0x8 (" LONG63 ")",
		                        .waits = 9,
		                        .wait_ns = 100 * MS,
		                        .max_ns = 40 * MS,
		                        .waiters = fx->waiters,
		                        .nwaiters = 3 };
	fx->lock[0].holder_ns[TL_LH_RUNNING] = 100 * MS;
	m->locks.items = fx->lock, m->locks.n = 1;

	fx->rthreads[0] = (struct tl_region_thread){ .tid = 1234567, .name = "decoder", .instances = 10 };
	fx->rthreads[1] = (struct tl_region_thread){ .tid = 1234569, .name = "waiter", .instances = 10 };
	fx->region[0] = (struct tl_region_stats){ .pid = 1234567,
		                                  .name = "main._omp_fn.0_with_a_long_outlined_region_name",
		                                  .instances = 20,
		                                  .barriers = 1234567,
		                                  .rounds_parallel = 10,
		                                  .rounds_compared = 10,
		                                  .wall_ns = 500 * MS,
		                                  .lost_ns = 50 * MS,
		                                  .work_lost_ns = 20 * MS,
		                                  .work_max_ns = 400 * MS,
		                                  .threads = fx->rthreads,
		                                  .nthreads = 2 };
	fx->region[0].inside[TL_ST_EXECUTING] = 800 * MS;
	fx->region[0].inside[TL_ST_SYNC_WAIT] = 100 * MS;
	m->regions.regions = fx->region, m->regions.n = 1;

	for (int i = 0; i < 3; i++) {
		struct tl_kcheck_thread *k = &fx->k[i];

		k->tid = fx->th[i].tid;
		k->from = T0, k->to = T0 + 1000 * MS;
		k->trace.run_ns = fx->th[i].state_ns[TL_ST_EXECUTING];
		k->kernel.run_ns = k->trace.run_ns + MS;
		k->run_diff = -(int64_t)MS;
		k->trace.wait_ns = k->kernel.wait_ns = 20 * MS;
		k->have = TL_KCHECK_WAIT | TL_KCHECK_SWITCHES;
		k->ok = 1;
	}
	m->kcheck.threads = fx->k, m->kcheck.nthreads = 3;
	m->kcheck.lags = 1;
	m->kcheck.unchecked = 1234;
}

static void fixture_release(struct fixture *fx)
{
	for (int i = 0; i < 3; i++) {
		tl_dist_release(&fx->th[i].sched_latency);
		tl_dist_release(&fx->th[i].bursts);
	}
}

/* The text report at `width` into memory; a malloc'd string, NULL on failure. */
static char *render(const struct tl_model *m, int width)
{
	struct tl_report_opts o = { .sort = TL_REPORT_SORT_DEFAULT, .width = width };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return NULL;
	rc = tl_report_write_text(f, m, &o);
	fclose(f);
	if (rc) {
		fprintf(stderr, "  writer failed: %s\n", tl_error_msg());
		free(buf);
		return NULL;
	}
	return buf;
}

/* Every width from 80 to 130, and 300: no line is wider. */
TEST(test_every_line_fits)
{
	struct fixture fx;

	fixture_init(&fx);
	for (int w = 80; w <= 300; w = w < 130 ? w + 1 : 300) {
		char *s = render(&fx.m, w);
		int most = s ? harness_widest(s) : -1;

		if (most < 0 || most > w) {
			fprintf(stderr, "  width %d: a line of %d columns\n", w, most);
			harness_failed = 1;
		}
		free(s);
		if (w == 300)
			break;
	}
	fixture_release(&fx);
}

/* At 80 columns: what each table gave up, exactly. */
TEST(test_narrow_tables)
{
	struct fixture fx;
	char *s;

	fixture_init(&fx);
	s = render(&fx.m, 80);
	CHECK(s != NULL);
	/* no pid; seven states and "other"; decoder's other = INTR, SLEEP..UNKN = (8+6+5+4+3+2+1)*10 of 1050 */
	CHECK_HAS(s, "\nname                tid   NEW RUNBL PREEM QUANT YIELD  EXEC  SYNC other lifetime\n");
	CHECK_HAS(s, "\ndecoder         1234567  13.3  12.4  11.4  10.5   9.5   8.6   6.7  27.6    1.05s\n");
	CHECK_HAS(s, "\na-name-of-sixt~ 1234568     -     -     -     -     - 100.0     -     -    100ms\n");
	CHECK_HAS(s, "\nother: INTR, SLEEP, IO, BLOCK, STOP, ZOMB, UNKN (each at most 7.6% of a thread's\n"
	             "       lifetime; --width 116 shows every state)\n");
	/* scheduling without the "at" columns; the waker's share does not fit in 9 columns with its name */
	CHECK_HAS(s, "\nname                tid   vol invol  migr    p50    p99    max    max  top waker\n");
	CHECK_HAS(s, "\ndecoder         1234567  1.2M 98765  4321 2.00ms 2.00ms 2.00ms 25.0ms  waiter\n");
	/* counts of five characters at most: 123456789 switches */
	CHECK_HAS(s, "  50.0ms  59.0%     123M  a-name-of-s~ 47.6%\n");
	/* the waiters under their lock (62 columns), the first name cut to leave room for the rest's "..." */
	CHECK_HAS(s, "    pid  lock                      waits     time      max  on CPU  convoy\n"
	             "1234567  frame_queue_lock+0x8 (a~      9    100ms   40.0ms  100.0%    0.0%\n"
	             "         waiters  a-name-of-sixty-three-characters-that-fits-no-column~ 60%, ...\n");
	/* the self-check's deviations without the kernel's figures */
	CHECK_HAS(s, "\n   THREAD              TID   ON-CPU     DATED     RUNQ     DATED   VOL+- INVOL+-\n"
	             "   decoder         1234567   90.0ms   -0.10%   20.0ms   +0.00%      +0      +0\n");
	CHECK_HAS(s, "(the kernel's own figures: --width 98 or --json; ON-CPU and RUNQ are the\n trace's)\n");
	free(s);

	/* every state and the pid at 124; every state at 116; at 115 two states short */
	s = render(&fx.m, 124);
	CHECK_HAS(s, "\nname                tid     pid   NEW RUNBL PREEM QUANT YIELD  EXEC  INTR  SYNC SLEEP    IO "
	             "BLOCK  STOP  ZOMB  UNKN lifetime\n");
	free(s);
	s = render(&fx.m, 116);
	CHECK_HAS(s,
	          "\nname                tid   NEW RUNBL PREEM QUANT YIELD  EXEC  INTR  SYNC SLEEP    IO BLOCK  STOP "
	          " ZOMB  UNKN lifetime\n");
	free(s);
	s = render(&fx.m, 115);
	CHECK_HAS(s,
	          "\nname                tid   NEW RUNBL PREEM QUANT YIELD  EXEC  INTR  SYNC SLEEP    IO BLOCK  STOP "
	          "other lifetime\n");
	CHECK_HAS(s, "\nother: ZOMB, UNKN (each at most 1.9% of a thread's lifetime; --width 116 shows every state)\n");
	/* every column of the other tables from 98 */
	CHECK_HAS(
	        s,
	        "   THREAD              TID   ON-CPU   KERNEL     DATED     RUNQ   KERNEL     DATED   VOL+- INVOL+-\n");
	CHECK_HAS(s, "    p50    p99    max     at    max     at  top waker\n");
	CHECK_HAS(s, "  convoy  waiters (share of time)\n");
	free(s);
	fixture_release(&fx);
}

int main(void)
{
	RUN_TESTS(test_every_line_fits, test_narrow_tables);
}
