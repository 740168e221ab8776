/*
 * test_import.c - unit tests of the perf importer: the committed fixture
 * tests/data/perf-sched.txt (perf script output of a real `perf sched
 * record`, see tests/data/README.md) imported end to end with exact counts
 * and fields, and the line parser on hand-written edge cases.
 *
 * Run from the repository root (make check does), so that the fixture's
 * relative path resolves.
 */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

#include "base/errors.h"
#include "import/import.h"
#include "base/strtab.h"
#include "trace/trace.h"

#define FIXTURE "tests/data/perf-sched.txt"
#define FIRST_TS 1365979202194ull /* the fixture's first sample */

static char tmpdir[] = "/tmp/tl-test-import-XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int n;
	char *p = buf[n++ % 4];
	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

/* "1365.982556718" exactly, as perf prints it. */
static uint64_t ns(const char *secs)
{
	const char *dot = strchr(secs, '.');
	uint64_t s = strtoull(secs, NULL, 10), f = strtoull(dot + 1, NULL, 10);
	return s * 1000000000ull + f;
}

/* ---- the fixture, end to end ---- */

static struct tl_event *fixture_events;
static int fixture_n;

static const struct tl_event *find(uint64_t ts, int type)
{
	for (int i = 0; i < fixture_n; i++)
		if (fixture_events[i].ts == ts && fixture_events[i].type == type)
			return &fixture_events[i];
	return NULL;
}

TEST(fixture_import)
{
	struct tl_import_opts o = { .input = FIXTURE, .output = tmp_path("fx.tl") };
	struct tl_import_result r;
	int counts[TL_EV__COUNT] = { 0 };
	struct tl_event ev;

	CHECK_EQ_INT(tl_import_perf(&o, &r), 0);
	CHECK_EQ_INT(r.from_perf_data, 0);
	CHECK_EQ_INT(r.lines, 691);
	CHECK_EQ_INT(r.samples, 646);
	CHECK_EQ_INT(r.malformed, 0);
	CHECK_EQ_INT(r.skipped, 0); /* every kind in it is known */
	CHECK_EQ_INT(r.nkinds, 0);
	CHECK_EQ_INT(r.events, 524);
	CHECK_EQ_INT(r.threads, 20);
	CHECK_EQ_INT(r.ncpus, 2);
	CHECK_EQ_STR(r.clock, "perf");
	CHECK_EQ_INT(r.first_ts, FIRST_TS);

	struct tl_trace *t = tl_trace_open(o.output);
	CHECK(t != NULL);
	if (!t)
		return;
	const struct tl_trace_info *in = tl_trace_info(t);
	CHECK_EQ_STR(in->source, "import perf-script");
	CHECK_EQ_STR(in->clock, "perf");
	CHECK_EQ_STR(in->hostname, "vm");
	CHECK_EQ_STR(in->kernel, "6.18.44-fc-v669");
	CHECK_EQ_STR(in->cpu_model, "Intel(R) Xeon(R) Processor @ 2.10GHz");
	CHECK_EQ_STR(in->command, "./perf-fixture");
	CHECK_EQ_INT(in->ncpus, 2);
	CHECK_EQ_INT(in->target_mode, TL_TARGET_COMMAND);
	CHECK_EQ_INT(in->ntargets, 1);
	CHECK_EQ_INT(in->targets[0], 20082); /* perf-exec's pid */
	CHECK_EQ_INT(in->start_ns, FIRST_TS);

	fixture_events = calloc(1024, sizeof(*fixture_events));
	while (tl_trace_next(t, &ev) == 1 && fixture_n < 1024) {
		fixture_events[fixture_n++] = ev;
		counts[ev.type]++;
	}
	CHECK_EQ_INT(fixture_n, 524);
	CHECK_EQ_INT(counts[TL_EV_SWITCH], 104);
	CHECK_EQ_INT(counts[TL_EV_WAKING], 55);
	CHECK_EQ_INT(counts[TL_EV_WAKEUP], 55);
	CHECK_EQ_INT(counts[TL_EV_WAKEUP_NEW], 5);
	CHECK_EQ_INT(counts[TL_EV_FORK], 5);
	CHECK_EQ_INT(counts[TL_EV_EXEC], 3);
	CHECK_EQ_INT(counts[TL_EV_EXIT], 6);
	CHECK_EQ_INT(counts[TL_EV_FREE], 7);
	CHECK_EQ_INT(counts[TL_EV_MIGRATE], 8);
	CHECK_EQ_INT(counts[TL_EV_RENAME], 6);
	CHECK_EQ_INT(counts[TL_EV_IRQ_ENTRY], 5);
	CHECK_EQ_INT(counts[TL_EV_IRQ_EXIT], 5);
	CHECK_EQ_INT(counts[TL_EV_SOFTIRQ_ENTRY], 94);
	CHECK_EQ_INT(counts[TL_EV_SOFTIRQ_EXIT], 94);
	CHECK_EQ_INT(counts[TL_EV_FUTEX_ENTER], 22);
	CHECK_EQ_INT(counts[TL_EV_FUTEX_EXIT], 22);
	CHECK_EQ_INT(counts[TL_EV_THREAD], 26);
	/* 150 sched_stat_runtime lines; like the recorder, only those that show a
	 * task no switch put on its CPU are kept: here the first on each CPU. */
	CHECK_EQ_INT(counts[TL_EV_RUNTIME], 2);
	const struct tl_trace_stats *st = tl_trace_stats(t);
	CHECK_EQ_INT(st->complete, 1);
	CHECK_EQ_INT(st->nwarnings, 0);
	CHECK_EQ_INT(st->late_events, 0);
	CHECK_EQ_INT(st->end.end_ns, ns("1366.033125968"));
	CHECK_EQ_INT(st->end.events, 524);

	const struct tl_event *e;
	/* line 98: "perf-exec 20082/20082 [001] 1365.982556718: sched_switch: ... prev_state=R+ ==> ... next_pid=21 next_prio=0" */
	e = find(ns("1365.982556718"), TL_EV_SWITCH);
	CHECK(e && e->cpu == 1 && e->tid == 20082 && e->arg == 21 && e->a == TL_PS_PREEMPT && e->b == 120 && e->c == 0);
	/* line 269: prev_state=D, next kworker/0:0H at prio 100 */
	e = find(ns("1365.990336782"), TL_EV_SWITCH);
	CHECK(e && e->cpu == 0 && e->tid == 20082 && e->arg == 10 && e->a == TL_PS_D && e->c == 100);
	/* line 103: task_rename perf-exec -> perf-fixture */
	e = find(ns("1365.982858103"), TL_EV_RENAME);
	CHECK(e && e->tid == 20082 && !strcmp(tl_trace_string(t, e->name), "perf-fixture"));
	/* line 104: exec */
	e = find(ns("1365.982920458"), TL_EV_EXEC);
	CHECK(e && e->tid == 20082 && e->arg == 20082 && !strcmp(tl_trace_string(t, e->name), "./perf-fixture"));
	/* line 105: fork of 20085 by 20082 */
	e = find(ns("1365.983630727"), TL_EV_FORK);
	CHECK(e && e->tid == 20085 && e->arg == 20082 && !strcmp(tl_trace_string(t, e->name), "perf-fixture"));
	/* line 107: wakeup_new, the waker is the line's thread */
	e = find(ns("1365.983637728"), TL_EV_WAKEUP_NEW);
	CHECK(e && e->tid == 20085 && e->arg == 20082 && e->a == 0 && e->b == 120);
	/* line 59: migrate */
	e = find(ns("1365.979296882"), TL_EV_MIGRATE);
	CHECK(e && e->tid == 20080 && e->a == 0 && e->b == 1 && e->cpu == 0);
	/* line 142: futex wait, private */
	e = find(ns("1365.986533175"), TL_EV_FUTEX_ENTER);
	CHECK(e && e->tid == 20086 && e->a == 0x80 && e->b == 0x55a99247e0e0 && tl_futex_op_waits(e->a));
	/* line 548: futex returned -ETIMEDOUT */
	e = find(ns("1366.006661182"), TL_EV_FUTEX_EXIT);
	CHECK(e && e->tid == 2510 && e->a == -110);
	/* line 189/190: irq 36 */
	e = find(ns("1365.988962475"), TL_EV_IRQ_ENTRY);
	CHECK(e && e->tid == 20086 && e->a == 36 && !strcmp(tl_trace_string(t, e->name), "virtio1-req.0"));
	e = find(ns("1365.988967187"), TL_EV_IRQ_EXIT);
	CHECK(e && e->a == 36 && e->b == 1);
	/* line 83: softirq RCU while perf's thread ran */
	e = find(ns("1365.982483383"), TL_EV_SOFTIRQ_ENTRY);
	CHECK(e && e->tid == 20055 && e->a == 9);
	/* line 165/285: exit and free */
	e = find(ns("1365.987947241"), TL_EV_EXIT);
	CHECK(e && e->tid == 20088);
	e = find(ns("1365.990473091"), TL_EV_FREE);
	CHECK(e && e->tid == 20059);
	/* line 46: "perf 20080/20080 [000] 1365.979202194: sched_stat_runtime: comm=perf pid=20080 runtime=31601 [ns]" */
	e = find(FIRST_TS, TL_EV_RUNTIME);
	CHECK(e && e->cpu == 0 && e->tid == 20080 && e->a == 31601);
	/* THREAD events: identities as the lines show them, before the line's event */
	e = find(ns("1365.983768704"), TL_EV_THREAD);
	CHECK(e && e->cpu == -1 && e->tid == 20085 && e->arg == 20082 &&
	      !strcmp(tl_trace_string(t, e->name), "perf-fixture"));
	CHECK(e && e + 1 < fixture_events + fixture_n && e[1].type == TL_EV_RENAME);
	/* a line of a thread perf lost track of (":-1 20082/-1") still imports */
	e = find(ns("1365.995479535"), TL_EV_SWITCH);
	CHECK(e && e->tid == 20086 && e->a == TL_PS_X);
	tl_trace_close(t);
	free(fixture_events);
}

/* ---- the parser on its own ---- */

struct collect {
	struct tl_event ev[64];
	int n;
	struct tl_strtab s;
};

static int col_event(void *ctx, const struct tl_event *ev)
{
	struct collect *c = ctx;
	if (c->n < 64)
		c->ev[c->n++] = *ev;
	return 0;
}

static uint32_t col_intern(void *ctx, const char *s)
{
	struct collect *c = ctx;
	return tl_strtab_intern(&c->s, s, strlen(s));
}

static void feed(struct tl_perf_parser *p, const char *line)
{
	CHECK_EQ_INT(tl_perf_parser_line(p, line, strlen(line)), 0);
}

TEST(parser_edge_cases)
{
	struct collect c = { .n = 0 };
	struct tl_perf_sink sink = { col_event, col_intern, &c };
	struct tl_perf_parser *p;
	const struct tl_import_result *r;

	tl_strtab_init(&c.s);
	p = tl_perf_parser_new(&sink);
	/* A comm with spaces and brackets; state letters of older kernels. */
	feed(p, "  Web Content [x]  100/101   [003]    12.000000100:       sched:sched_switch: "
	        "prev_comm=Web Content prev_pid=101 prev_prio=120 prev_state=D|K ==> next_comm=a b next_pid=7 "
	        "next_prio=98");
	CHECK_EQ_INT(c.n, 2);
	CHECK(c.ev[0].type == TL_EV_THREAD && c.ev[0].tid == 101 && c.ev[0].arg == 100);
	CHECK_EQ_STR(tl_strtab_get(&c.s, c.ev[0].name), "Web Content [x]");
	CHECK(c.ev[1].type == TL_EV_SWITCH && c.ev[1].cpu == 3 && c.ev[1].ts == 12000000100ull);
	CHECK(c.ev[1].tid == 101 && c.ev[1].arg == 7 && c.ev[1].a == TL_PS_D && c.ev[1].c == 98);
	/* Same identity: no new THREAD; a new comm: a new THREAD. */
	feed(p, "  Web Content [x]  100/101   [003]    12.000000200: sched:sched_process_exit: comm=Web Content "
	        "pid=101 prio=120 group_dead=false");
	CHECK_EQ_INT(c.n, 3);
	feed(p, "  renamed  100/101   [003]    12.000000300: sched:sched_process_free: comm=renamed pid=101 prio=120");
	CHECK_EQ_INT(c.n, 5);
	CHECK(c.ev[3].type == TL_EV_THREAD && c.ev[4].type == TL_EV_FREE);
	/* Microsecond timestamps (no --ns), a line without pid, "R+" and "R". */
	feed(p, "swapper 0 [000] 13.000001: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
	        "prev_state=R+ ==> next_comm=x next_pid=5 next_prio=120");
	CHECK(c.ev[5].type == TL_EV_SWITCH && c.ev[5].ts == 13000001000ull && c.ev[5].a == TL_PS_PREEMPT);
	feed(p, "swapper 0 [000] 13.000002: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
	        "prev_state=R ==> next_comm=x next_pid=5 next_prio=120");
	CHECK(c.ev[6].a == 0);
	/* Wakeups of older kernels carry "success=1". */
	feed(p, "x 5/5 [001] 13.000003000: sched:sched_wakeup: comm=y pid=9 prio=110 success=1 target_cpu=002");
	CHECK(c.ev[8].type == TL_EV_WAKEUP && c.ev[8].tid == 9 && c.ev[8].arg == 5 && c.ev[8].a == 2 &&
	      c.ev[8].b == 110);
	/* futex_waitv, block I/O */
	feed(p, "x 5/5 [001] 13.000004000: syscalls:sys_enter_futex_waitv: waiters: 0x7ffd1000, nr_futexes: "
	        "0x00000002, flags: 0x00000000, timeout: 0x00000000, clockid: 0x00000001");
	CHECK(c.ev[9].type == TL_EV_FUTEX_ENTER && c.ev[9].a == TL_FUTEX_WAITV && c.ev[9].b == 0x7ffd1000);
	feed(p, "x 5/5 [001] 13.000005000: block:block_rq_issue: 259,0 WS 4096 () 2048 + 8 none,0,0 [x]");
	CHECK(c.ev[10].type == TL_EV_BLOCK_ISSUE && c.ev[10].a == (259 << 20) && c.ev[10].b == 2048 &&
	      c.ev[10].c == 4096);
	feed(p, "x 5/5 [001] 13.000006000: block:block_rq_complete: 259,0 WS () 2048 + 8 none,0,0 [0]");
	CHECK(c.ev[11].type == TL_EV_BLOCK_COMPLETE && c.ev[11].c == 4096);
	feed(p, "x 5/5 [001] 13.000006100: syscalls:sys_enter_sched_yield: ");
	feed(p, "x 5/5 [001] 13.000006200: syscalls:sys_exit_sched_yield: 0x0");
	CHECK(c.ev[12].type == TL_EV_YIELD_ENTER && c.ev[12].tid == 5 && c.ev[13].type == TL_EV_YIELD_EXIT);
	/* RUNTIME only for a task no switch put on the CPU (5 is not on CPU 1 yet), once */
	feed(p, "x 5/5 [001] 13.000006300: sched:sched_stat_runtime: comm=x pid=5 runtime=1000 [ns]");
	feed(p, "x 5/5 [001] 13.000006400: sched:sched_stat_runtime: comm=x pid=5 runtime=1000 [ns]");
	CHECK(c.ev[14].type == TL_EV_RUNTIME && c.ev[14].tid == 5 && c.ev[14].a == 1000);
	/* ...and CPU 3 runs 7 since the switch above: only its identity (THREAD) */
	feed(p, "y 7/7 [003] 13.000006500: sched:sched_stat_runtime: comm=y pid=7 runtime=10 [ns]");
	CHECK_EQ_INT(c.n, 16);
	CHECK(c.ev[15].type == TL_EV_THREAD && c.ev[15].tid == 7);
	/* x86's irq_vectors: flagged, the kind from the event's name, the entry named after it */
	feed(p, "y 7/7 [003] 13.000006600: irq_vectors:local_timer_entry: vector=236");
	feed(p, "y 7/7 [003] 13.000006700: irq_vectors:call_function_single_exit: vector=251");
	CHECK_EQ_INT(c.n, 18);
	CHECK(c.ev[16].type == TL_EV_IRQ_ENTRY && c.ev[16].tid == 7 && c.ev[16].flags == TL_EVF_VECTOR &&
	      c.ev[16].a == 236 && c.ev[16].c == TL_VEC_LOCAL_TIMER);
	CHECK_EQ_STR(tl_strtab_get(&c.s, c.ev[16].name), "local_timer");
	CHECK(c.ev[17].type == TL_EV_IRQ_EXIT && c.ev[17].flags == TL_EVF_VECTOR && c.ev[17].a == 251 &&
	      c.ev[17].c == TL_VEC_CALL_FUNCTION_SINGLE && c.ev[17].name == 0);

	/* Malformed lines are counted, with the first one's number. */
	feed(p, "");
	feed(p, "# a comment");
	feed(p, "x 5/5 [001] 13.000007000: sched:sched_switch: prev_comm=x prev_pid=oops");
	feed(p, "complete garbage");
	feed(p, "x 5/5 [001] 13.000008000 sched:sched_switch: no colon after the time");
	char nul[] = "x 5/5 [001] 13.000009000: sched:sched_waking: comm=a\0pid=1";
	CHECK_EQ_INT(tl_perf_parser_line(p, nul, sizeof(nul) - 1), 0);
	char *huge = malloc(70000);
	memset(huge, 'a', 70000);
	CHECK_EQ_INT(tl_perf_parser_line(p, huge, 70000), 0);
	free(huge);
	/* Unknown kinds are skipped and listed; the 16th and later share "other". */
	char line[256];
	for (int i = 0; i < 20; i++) {
		snprintf(line, sizeof(line), "x 5/5 [001] 14.%09d: foo:kind_%d: a=1", i, i);
		feed(p, line);
	}
	feed(p, "x 5/5 [001] 15.000000000: foo:kind_1: a=1");
	r = tl_perf_parser_result(p);
	CHECK_EQ_INT(c.n, 18);
	CHECK_EQ_INT(r->malformed, 5);
	CHECK_EQ_INT(r->first_malformed, 19); /* after 16 samples, a blank and a comment */
	CHECK_EQ_INT(r->skipped, 21);
	CHECK_EQ_INT(r->nkinds, TL_IMPORT_MAX_KINDS);
	CHECK_EQ_STR(r->kinds[1].name, "foo:kind_1");
	CHECK_EQ_INT(r->kinds[1].count, 2);
	CHECK_EQ_STR(r->kinds[TL_IMPORT_MAX_KINDS - 1].name, "other");
	CHECK_EQ_INT(r->kinds[TL_IMPORT_MAX_KINDS - 1].count, 5);
	CHECK_EQ_INT(r->ncpus, 4);
	tl_perf_parser_free(p);
	tl_strtab_release(&c.s);
}

TEST(parser_header)
{
	struct collect c = { .n = 0 };
	struct tl_perf_sink sink = { col_event, col_intern, &c };
	struct tl_perf_parser *p;

	tl_strtab_init(&c.s);
	p = tl_perf_parser_new(&sink);
	feed(p, "# hostname : board");
	feed(p, "# nrcpus online : 8");
	feed(p, "# cmdline : /usr/bin/perf sched record -k mono -p 12,13 ");
	feed(p, "# event : name = sched:sched_switch, , id = { 37, 38 }, type = 2, use_clockid = 1, clockid = 1");
	const struct tl_trace_info *in = tl_perf_parser_info(p);
	CHECK_EQ_STR(in->hostname, "board");
	CHECK_EQ_STR(in->clock, "monotonic");
	CHECK_EQ_INT(in->ncpus, 8);
	CHECK_EQ_INT(in->target_mode, TL_TARGET_PIDS);
	CHECK_EQ_INT(in->ntargets, 2);
	CHECK_EQ_INT(in->targets[1], 13);
	CHECK_EQ_STR(tl_perf_parser_result(p)->clock, "monotonic");
	CHECK_EQ_STR(in->irq_vectors, "");
	feed(p, "# event : name = irq_vectors:local_timer_entry, , id = { 39, 40 }, type = 2, size = 128");
	CHECK_EQ_STR(in->irq_vectors, "recorded");
	/* perf-exec does not make a target when -p was given */
	feed(p, "perf-exec 77/77 [000] 1.000000000: sched:sched_process_exit: comm=a pid=77 prio=120 group_dead=true");
	CHECK_EQ_INT(in->targets[0], 12);
	tl_perf_parser_free(p);
	tl_strtab_release(&c.s);
}

/* ---- input detection and errors ---- */

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
}

TEST(not_perf_input)
{
	struct tl_import_result r;
	struct tl_import_opts o = { .input = tmp_path("junk.txt"), .output = tmp_path("junk.tl") };
	char want[512];

	write_file(o.input, "hello\nworld\n", 12);
	CHECK_EQ_INT(tl_import_perf(&o, &r), -1);
	snprintf(want, sizeof(want), "cannot import '%s': neither a perf.data file nor 'perf script' output", o.input);
	CHECK_EQ_STR(tl_error_msg(), want);
	CHECK(access(o.output, F_OK) != 0); /* nothing written */
	write_file(o.input,
	           "\x7f"
	           "ELF\0\0\0",
	           7);
	CHECK_EQ_INT(tl_import_perf(&o, &r), -1);
	CHECK_EQ_STR(tl_error_msg(), want);
	write_file(o.input, "", 0);
	CHECK_EQ_INT(tl_import_perf(&o, &r), -1);
	snprintf(want, sizeof(want), "cannot import '%s': the file is empty", o.input);
	CHECK_EQ_STR(tl_error_msg(), want);
	o.input = tmp_path("does-not-exist");
	CHECK_EQ_INT(tl_import_perf(&o, &r), -1);
	CHECK(strstr(tl_error_msg(), "No such file or directory") != NULL);
}

TEST(perf_missing)
{
	struct tl_import_result r;
	struct tl_import_opts o = { .input = tmp_path("perf.data"), .output = tmp_path("p.tl") };
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char want[512];

	write_file(o.input, "PERFILE2 and then whatever", 26);
	setenv("PATH", "/nonexistent", 1);
	CHECK_EQ_INT(tl_import_perf(&o, &r), -1);
	if (path)
		setenv("PATH", path, 1);
	free(path);
	snprintf(want, sizeof(want),
	         "cannot import '%s': perf is not installed (it reads perf.data; install linux-perf, or import 'perf "
	         "script' text)",
	         o.input);
	CHECK_EQ_STR(tl_error_msg(), want);
	o.perf = "/nonexistent/perf";
	CHECK_EQ_INT(tl_import_perf(&o, &r), -1);
	CHECK(strstr(tl_error_msg(), "cannot run '/nonexistent/perf': No such file or directory") != NULL);
	CHECK(access(o.output, F_OK) != 0);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	RUN_TESTS(fixture_import, parser_edge_cases, parser_header, not_perf_input, perf_missing);
}
