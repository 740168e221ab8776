/*
 * test_report.c - the report writers on a hand-built model: exact JSON, CSV
 * and text fragments, JSON that parses, hostile names that stay inert, row
 * order and --top.
 *
 * The model is built here field by field (no trace, no analysis), so every
 * expected number below follows from the fixture alone.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "harness.h"
#include "output/json.h"
#include "analysis/report/report.h"
#include "analysis/report/report_int.h"

#define MS 1000000ull
#define T0 1000000000000ull /* trace start, absolute */
#define EVIL "\"<img src=x onerror=alert(1)>\n\x01"

struct fixture {
	struct tl_run run;
	struct tl_model m;
	struct tl_thread_stats th[3];
	struct tl_waker_stat wk[2];
	struct tl_cpu_stats cpu[2];
	struct tl_cpu_proc cproc[2];
	struct tl_process_stats proc[2];
	uint64_t lost[2];
};

/*
 * Window = the whole trace, 1000 ms, 2 CPUs.
 *   tid 101 "main" (pid 100): 1000 ms: EXECUTING 250, SYNC_WAIT 500, SLEEPING 200, RUNNABLE 50
 *   tid 102 "worker" (pid 100): 500 ms from 500: EXECUTING 400, READY_PREEMPT 100
 *   tid 201 EVIL (pid 200): 1000 ms: EXECUTING 100, SLEEPING 900
 */
static void fixture_init(struct fixture *fx)
{
	struct tl_model *m = &fx->m;
	struct tl_thread_stats *t;

	memset(fx, 0, sizeof(*fx));
	strcpy(fx->run.info.source, "record");
	strcpy(fx->run.info.kernel, "6.18.0-test");
	strcpy(fx->run.info.hostname, "box");
	strcpy(fx->run.info.command, "./app --frames 100");
	fx->run.info.ncpus = 2;
	fx->run.info.target_mode = TL_TARGET_COMMAND;
	fx->run.info.ntargets = 1;
	fx->run.info.targets[0] = 100;
	fx->run.read.events = 4242;
	fx->run.read.complete = 1;
	fx->run.trace_start = fx->run.win_start = T0;
	fx->run.trace_end = fx->run.win_end = T0 + 1000 * MS;
	m->ncpus = fx->run.ncpus = 2;
	m->run = &fx->run;

	t = &fx->th[0];
	t->tid = 101, t->pid = 100, t->is_target = 1, t->snapshot = 1;
	strcpy(t->name, "main");
	strcpy(t->process, "app");
	t->start = T0, t->end = T0 + 1000 * MS;
	t->state_ns[TL_ST_EXECUTING] = 250 * MS;
	t->state_ns[TL_ST_SYNC_WAIT] = 500 * MS;
	t->state_ns[TL_ST_SLEEPING] = 200 * MS;
	t->state_ns[TL_ST_RUNNABLE] = 50 * MS;
	t->entries[TL_ST_EXECUTING] = 10;
	t->entries[TL_ST_SYNC_WAIT] = 6;
	t->trans[TL_ST_EXECUTING][TL_ST_SYNC_WAIT] = 6;
	t->trans[TL_ST_RUNNABLE][TL_ST_EXECUTING] = 10;
	t->vol_switches = 10, t->invol_switches = 2, t->migrations = 3;
	tl_dist_add(&t->sched_latency, 2 * MS);
	tl_dist_add(&t->sched_latency, 4 * MS);
	tl_dist_add(&t->bursts, 25 * MS);
	t->latency_max_at = T0 + 400 * MS; /* when the 4 ms wait began */
	t->burst_max_at = T0 + 12500 * MS;
	t->wakers = fx->wk, t->nwakers = 2;
	fx->wk[0] = (struct tl_waker_stat){ .tid = 102, .name = "worker", .count = 6, .wait_ns = 300 * MS };
	fx->wk[1] = (struct tl_waker_stat){ .tid = -1, .name = "", .count = 4, .wait_ns = 100 * MS };
	t->intr[0] = (struct tl_intr_stat){ .soft = 1, .irq = 3, .count = 40, .ns = 2 * MS };
	t->intr[1] = (struct tl_intr_stat){ .soft = 0, .irq = 11, .count = 2, .ns = MS };
	t->intr[2] = (struct tl_intr_stat){
		.soft = 0, .irq = TL_IRQ_VECTOR | TL_VEC_LOCAL_TIMER, .count = 250, .ns = MS * 3 / 4
	};
	t->intr[3] = (struct tl_intr_stat){ .soft = 0, .irq = -1, .count = 5, .ns = MS / 2 };

	t = &fx->th[1];
	t->tid = 102, t->pid = 100, t->is_target = 1;
	strcpy(t->name, "worker");
	strcpy(t->process, "app");
	t->start = T0 + 500 * MS, t->end = T0 + 1000 * MS;
	t->state_ns[TL_ST_EXECUTING] = 400 * MS;
	t->state_ns[TL_ST_READY_PREEMPT] = 100 * MS;

	t = &fx->th[2];
	t->tid = 201, t->pid = 200, t->is_target = 1;
	strcpy(t->name, EVIL);
	strcpy(t->process, "=cmd|' /C calc'!A0");
	t->start = T0, t->end = T0 + 1000 * MS;
	t->state_ns[TL_ST_EXECUTING] = 100 * MS;
	t->state_ns[TL_ST_SLEEPING] = 900 * MS;

	m->threads = fx->th, m->nthreads = 3;

	fx->cproc[0] = (struct tl_cpu_proc){ .pid = 100, .name = "app", .ns = 500 * MS };
	fx->cproc[1] = (struct tl_cpu_proc){ .pid = 200, .name = EVIL, .ns = 100 * MS };
	fx->cpu[0] = (struct tl_cpu_stats){ .cpu = 0,
		                            .busy_ns = 600 * MS,
		                            .idle_ns = 380 * MS,
		                            .irq_ns = 15 * MS,
		                            .softirq_ns = 5 * MS,
		                            .switches = 77,
		                            .procs = fx->cproc,
		                            .nprocs = 2 };
	fx->cpu[1] = (struct tl_cpu_stats){
		.cpu = 1, .busy_ns = 150 * MS, .idle_ns = 850 * MS, .switches = 12, .procs = fx->cproc, .nprocs = 1
	};
	m->cpus = fx->cpu;

	fx->proc[0] = (struct tl_process_stats){ .pid = 100,
		                                 .name = "app",
		                                 .is_target = 1,
		                                 .nthreads = 2,
		                                 .start = T0,
		                                 .end = T0 + 1000 * MS,
		                                 .cpu_ns = 650 * MS,
		                                 .available_cpus = 2,
		                                 .cpus_used = 2,
		                                 .cpu_pct_machine = 32.5,
		                                 .cpu_pct_available = 32.5 };
	for (unsigned s = 0; s < TL_ST__COUNT; s++)
		fx->proc[0].state_ns[s] = fx->th[0].state_ns[s] + fx->th[1].state_ns[s];
	fx->proc[1] = (struct tl_process_stats){ .pid = 200,
		                                 .name = EVIL,
		                                 .is_target = 1,
		                                 .nthreads = 1,
		                                 .start = T0,
		                                 .end = T0 + 1000 * MS,
		                                 .cpu_ns = 100 * MS,
		                                 .available_cpus = 1,
		                                 .cpus_used = 1,
		                                 .cpu_pct_machine = 5.0,
		                                 .cpu_pct_available = 10.0 };
	memcpy(fx->proc[1].state_ns, fx->th[2].state_ns, sizeof(fx->proc[1].state_ns));
	m->procs = fx->proc, m->nprocs = 2;
	fx->run.lost_per_cpu = fx->lost;
}

static void fixture_release(struct fixture *fx)
{
	for (int i = 0; i < 3; i++) {
		tl_dist_release(&fx->th[i].sched_latency);
		tl_dist_release(&fx->th[i].bursts);
	}
}

enum { OUT_TEXT, OUT_JSON, OUT_CSV };

/* Run a writer into memory; returns a malloc'd NUL-terminated string. */
static char *render(const struct tl_model *m, int kind, int table, const struct tl_report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return NULL;
	if (kind == OUT_TEXT)
		rc = tl_report_write_text(f, m, o);
	else if (kind == OUT_JSON)
		rc = tl_report_write_json(f, m, o);
	else
		rc = tl_report_write_csv(f, m, table, o);
	fclose(f);
	if (rc) {
		fprintf(stderr, "  writer failed: %s\n", tl_error_msg());
		free(buf);
		return NULL;
	}
	return buf;
}

#define CHECK_PREFIX(str, prefix) CHECK((str) && !strncmp((str), (prefix), strlen(prefix)))

TEST(test_json_document)
{
	struct fixture fx;
	struct tl_report_opts o = { .sort = TL_REPORT_SORT_DEFAULT };
	char *s;

	fixture_init(&fx);
	fx.run.path = "app.tl";
	s = render(&fx.m, OUT_JSON, 0, &o);
	CHECK(s != NULL);
	CHECK_EQ_INT(tl_json_check(s, s ? strlen(s) : 0), 0);
	CHECK_HAS(s, "{\n  \"schema\": \"threadlens-report\",\n  \"version\": 1,\n  \"trace\": {\n"
	             "    \"path\": \"app.tl\",\n    \"source\": \"record\",\n");
	CHECK_HAS(s, "\"ncpus\": 2,");
	CHECK_HAS(s, "\"target_mode\": \"command\",\n    \"targets\": [100],");
	CHECK_HAS(s, "\"start_ns\": 1000000000000,\n    \"duration_ns\": 1000000000,");
	CHECK_HAS(s, "\"complete\": true,\n    \"damaged_blocks\": 0,\n    \"skipped_bytes\": 0,\n    \"warnings\": "
	             "[],\n    \"lost_events\": 0\n  },");
	CHECK_HAS(s, "\"window\": {\"from_ns\": 0, \"to_ns\": 1000000000},");
	CHECK_HAS(s, "\"lost_events\": {\"total\": 0, \"per_cpu\": [0, 0]},\n  \"anomalies\": 0,");
	CHECK_HAS(s, "\"states\": [\"NEW\", \"RUNNABLE\", \"READY_PREEMPT\", \"READY_QUANTUM\", "
	             "\"READY_YIELD\", \"EXECUTING\", \"INTERRUPTED\", \"SYNC_WAIT\", \"SLEEPING\", "
	             "\"IO_WAIT\", \"BLOCKED\", \"STOPPED\", \"ZOMBIE\", \"UNKNOWN\"],");
	/* threads in model order; the first one in full detail */
	CHECK_HAS(s, "\"threads\": [\n    {\n      \"tid\": 101,\n      \"pid\": 100,\n"
	             "      \"name\": \"main\",\n      \"process\": \"app\",\n      \"target\": true,\n"
	             "      \"snapshot\": true,\n      \"creator\": 0,\n      \"exited\": false,\n"
	             "      \"pre_exec_ns\": null,\n      \"start_ns\": 0,\n      \"end_ns\": 1000000000,\n"
	             "      \"lifetime_ns\": 1000000000,\n");
	CHECK_HAS(s, "\"state_ns\": {\"NEW\": 0, \"RUNNABLE\": 50000000, \"READY_PREEMPT\": 0, "
	             "\"READY_QUANTUM\": 0, \"READY_YIELD\": 0, \"EXECUTING\": 250000000, \"INTERRUPTED\": 0, "
	             "\"SYNC_WAIT\": 500000000, \"SLEEPING\": 200000000, \"IO_WAIT\": 0, \"BLOCKED\": 0, "
	             "\"STOPPED\": 0, \"ZOMBIE\": 0, \"UNKNOWN\": 0},");
	CHECK_HAS(s, "\"state_pct\": {\"NEW\": 0.000, \"RUNNABLE\": 5.000, ");
	CHECK_HAS(s, "\"EXECUTING\": 25.000, \"INTERRUPTED\": 0.000, \"SYNC_WAIT\": 50.000, ");
	CHECK_HAS(s, "\"entries\": {\"NEW\": 0, \"RUNNABLE\": 0, ");
	CHECK_HAS(s, "\"transitions\": [\n        {\"from\": \"RUNNABLE\", \"to\": \"EXECUTING\", \"count\": 10},\n"
	             "        {\"from\": \"EXECUTING\", \"to\": \"SYNC_WAIT\", \"count\": 6}\n      ],");
	CHECK_HAS(s, "\"switches\": {\"voluntary\": 10, \"involuntary\": 2, \"yields\": 0},\n"
	             "      \"migrations\": 3,\n");
	CHECK_HAS(s, "\"sched_latency\": {\"count\": 2, \"mean_ns\": 3000000, \"p50_ns\": 2000000, "
	             "\"p99_ns\": 4000000, \"max_ns\": 4000000, \"max_at_ns\": 400000000},");
	CHECK_HAS(s, "\"max_ns\": 25000000, \"max_at_ns\": 12500000000},");
	CHECK_HAS(s, "\"ready_wait\": {\"count\": 0, \"mean_ns\": 0, \"p50_ns\": 0, \"p99_ns\": 0, \"max_ns\": 0},");
	CHECK_HAS(s,
	          "\"wakers\": [\n        {\"tid\": 102, \"name\": \"worker\", \"count\": 6, "
	          "\"wait_ns\": 300000000},\n        {\"tid\": -1, \"name\": \"\", \"count\": 4, "
	          "\"wait_ns\": 100000000}\n      ],\n      \"preemptors\": [],\n"
	          "      \"interrupts\": [\n        {\"source\": \"NET_RX softirq\", \"count\": 40, \"ns\": 2000000},\n"
	          "        {\"source\": \"IRQ 11\", \"count\": 2, \"ns\": 1000000},\n"
	          "        {\"source\": \"local_timer\", \"count\": 250, \"ns\": 750000},\n"
	          "        {\"source\": \"other interrupts\", \"count\": 5, \"ns\": 500000}\n      ]\n    },");
	CHECK_HAS(s, "\"transitions\": [],");
	CHECK_HAS(s, "\"wakers\": []");
	/* hostile names are escaped, never raw */
	CHECK_HAS(s, "\"name\": \"\\\"\\u003cimg src=x onerror=alert(1)\\u003e\\n\\u0001\",");
	CHECK_LACKS(s, "<img");
	/* cpus */
	CHECK_HAS(s, "\"cpus\": [\n    {\n      \"cpu\": 0,\n      \"busy_ns\": 600000000,\n"
	             "      \"idle_ns\": 380000000,\n      \"irq_ns\": 15000000,\n      \"softirq_ns\": 5000000,\n"
	             "      \"unknown_ns\": 0,\n      \"filtered_ns\": 0,\n      \"util_pct\": 62.000,\n      "
	             "\"switches\": 77,\n"
	             "      \"processes\": [\n        {\"pid\": 100, \"name\": \"app\", \"ns\": 500000000, "
	             "\"pct\": 50.000},\n");
	/* processes */
	CHECK_HAS(s, "\"processes\": [\n    {\n      \"pid\": 100,\n      \"name\": \"app\",\n"
	             "      \"target\": true,\n      \"threads\": 2,\n      \"start_ns\": 0,\n"
	             "      \"end_ns\": 1000000000,\n      \"cpu_ns\": 650000000,\n"
	             "      \"cpu_pct_machine\": 32.500,\n      \"cpu_pct_available\": 32.500,\n"
	             "      \"available_cpus\": 2,\n      \"cpus_used\": 2,\n"
	             "      \"state_ns\": {\"NEW\": 0, \"RUNNABLE\": 50000000, \"READY_PREEMPT\": 100000000, ");
	CHECK(s && s[strlen(s) - 1] == '\n');
	free(s);
	fixture_release(&fx);
}

/* The pretty document less its whitespace outside strings (the fixture's names hold spaces and a tab). */
static void strip_layout(char *s)
{
	char *w = s;
	int in_str = 0;

	for (char *r = s; *r; r++) {
		if (in_str && *r == '\\' && r[1]) {
			*w++ = *r++;
			*w++ = *r;
			continue;
		}
		if (*r == '"')
			in_str = !in_str;
		if (in_str || (*r != ' ' && *r != '\n'))
			*w++ = *r;
	}
	*w = 0;
}

/* --json's document in compact form (the HTML page's): the same members and values, no layout. */
TEST(test_json_compact)
{
	struct fixture fx;
	struct tl_report_opts o = { .sort = TL_REPORT_SORT_DEFAULT }, oc = o;
	char *pretty, *compact;

	fixture_init(&fx);
	oc.compact = 1;
	pretty = render(&fx.m, OUT_JSON, 0, &o);
	compact = render(&fx.m, OUT_JSON, 0, &oc);
	CHECK(pretty && compact);
	if (pretty && compact) {
		CHECK_EQ_INT(tl_json_check(compact, strlen(compact)), 0);
		CHECK(!strchr(compact, '\n') || strchr(compact, '\n') == compact + strlen(compact) - 1);
		CHECK(strlen(compact) < strlen(pretty));
		strip_layout(pretty);
		strip_layout(compact);
		CHECK_EQ_STR(compact, pretty);
	}
	free(pretty);
	free(compact);
}

TEST(test_json_window_sort_top)
{
	struct fixture fx;
	struct tl_report_opts o = { .sort = TL_ST_EXECUTING, .top = 2 };
	char *s, *a, *b;

	fixture_init(&fx);
	fx.run.win_start = T0 + 250 * MS;
	fx.run.win_end = T0 + 750 * MS;
	fx.run.lost_total = 7;
	fx.lost[1] = 7;
	fx.run.read.complete = 0;
	fx.run.read.nwarnings = 1;
	strcpy(fx.run.read.warnings[0], "trace truncated at byte 4096");
	s = render(&fx.m, OUT_JSON, 0, &o);
	CHECK(s != NULL);
	CHECK_EQ_INT(tl_json_check(s, s ? strlen(s) : 0), 0);
	CHECK_HAS(s, "\"path\": \"\",");
	CHECK_HAS(s, "\"window\": {\"from_ns\": 250000000, \"to_ns\": 750000000},");
	CHECK_HAS(s, "\"lost_events\": {\"total\": 7, \"per_cpu\": [0, 7]},");
	CHECK_HAS(s, "\"complete\": false,\n    \"damaged_blocks\": 0,\n    \"skipped_bytes\": 0,\n    \"warnings\": "
	             "[\n      \"trace truncated at byte 4096\"\n    ]");
	/* sorted by EXECUTING time: worker (400) then main (250); the third is cut */
	a = s ? strstr(s, "\"tid\": 102") : NULL;
	b = s ? strstr(s, "\"tid\": 101") : NULL;
	CHECK(a && b && a < b);
	CHECK_LACKS(s, "\"tid\": 201");
	/* --top also cuts processes, at 2 here: both stay */
	CHECK_HAS(s, "\"pid\": 200,\n");
	free(s);
	fixture_release(&fx);
}

TEST(test_csv_tables)
{
	struct fixture fx;
	struct tl_report_opts o = { .sort = TL_REPORT_SORT_DEFAULT };
	char *s;

	fixture_init(&fx);
	s = render(&fx.m, OUT_CSV, TL_CSV_STATES, &o);
	CHECK_PREFIX(s, "tid,pid,name,state,ns,pct,entries\n101,100,main,NEW,0,0.000,0\n");
	CHECK_HAS(s, "\n101,100,main,EXECUTING,250000000,25.000,10\n");
	CHECK_HAS(s, "\n102,100,worker,READY_PREEMPT,100000000,20.000,0\n");
	/* quotes doubled, controls flattened so that a row stays one line */
	CHECK_HAS(s, "\n201,200,\"\"\"<img src=x onerror=alert(1)>??\",SLEEPING,900000000,90.000,0\n");
	free(s);

	s = render(&fx.m, OUT_CSV, TL_CSV_THREADS, &o);
	CHECK_PREFIX(s, "tid,pid,name,process,target,start_ns,end_ns,lifetime_ns,new_ns,runnable_ns,");
	CHECK_HAS(s, ",top_waker_tid,top_waker_name\n");
	CHECK_HAS(s, "\n101,100,main,app,1,0,1000000000,1000000000,0,50000000,0,0,0,250000000,0,500000000,"
	             "200000000,0,0,0,0,0,10,2,0,3,2,3000000,2000000,4000000,4000000,0,0,0,0,0,"
	             "1,25000000,25000000,25000000,25000000,102,worker\n");
	/* a process name that a spreadsheet would run as a formula is defused */
	CHECK_HAS(s, ",\"'=cmd|' /C calc'!A0\",");
	free(s);

	s = render(&fx.m, OUT_CSV, TL_CSV_TRANSITIONS, &o);
	CHECK_EQ_STR(s, "tid,pid,name,from,to,count\n101,100,main,RUNNABLE,EXECUTING,10\n"
	                "101,100,main,EXECUTING,SYNC_WAIT,6\n");
	free(s);

	s = render(&fx.m, OUT_CSV, TL_CSV_WAKERS, &o);
	CHECK_EQ_STR(s, "tid,pid,name,waker_tid,waker_name,count,wait_ns\n"
	                "101,100,main,102,worker,6,300000000\n101,100,main,-1,,4,100000000\n");
	free(s);

	s = render(&fx.m, OUT_CSV, TL_CSV_CPUS, &o);
	CHECK_EQ_STR(s, "cpu,busy_ns,irq_ns,softirq_ns,idle_ns,unknown_ns,util_pct,switches\n"
	                "0,600000000,15000000,5000000,380000000,0,62.000,77\n"
	                "1,150000000,0,0,850000000,0,15.000,12\n");
	free(s);

	s = render(&fx.m, OUT_CSV, TL_CSV_PROCESSES, &o);
	CHECK_HAS(s, "pid,name,target,threads,start_ns,end_ns,cpu_ns,cpu_pct_machine,cpu_pct_available,"
	             "available_cpus,cpus_used,new_ns,");
	CHECK_HAS(s, "\n100,app,1,2,0,1000000000,650000000,32.500,32.500,2,2,0,50000000,100000000,0,0,"
	             "650000000,0,500000000,200000000,0,0,0,0,0\n");
	free(s);
	fixture_release(&fx);
}

TEST(test_text_report)
{
	struct fixture fx;
	struct tl_report_opts o = { .sort = TL_REPORT_SORT_DEFAULT };
	char *s, *a, *b;

	fixture_init(&fx);
	fx.run.path = "app.tl";
	s = render(&fx.m, OUT_TEXT, 0, &o);
	CHECK(s != NULL);
	CHECK_HAS(s, "threadlens report: app.tl\n  command  ./app --frames 100  [pid 100]\n");
	CHECK_HAS(s, "  trace    1.00s, 4242 events, source: record\n");
	CHECK_LACKS(s, "  window  ");
	CHECK_LACKS(s, "LOST");
	/* only the states some thread was in are columns */
	CHECK_HAS(s, "name                tid     pid RUNBL PREEM  EXEC  SYNC SLEEP lifetime\n");
	CHECK_HAS(s, "worker              102     100     -  20.0  80.0     -     -    500ms\n");
	CHECK_HAS(s, "main                101     100   5.0     -  25.0  50.0  20.0    1.00s\n");
	/* default order: time in EXECUTING */
	a = s ? strstr(s, "\nworker  ") : NULL;
	b = s ? strstr(s, "\nmain  ") : NULL;
	CHECK(a && b && a < b);
	/* the hostile name reaches the terminal without its control characters */
	CHECK_HAS(s, "\n\"<img src=x on~     201     200 ");
	CHECK_LACKS(s, "\x01");
	CHECK_HAS(s, "main                101 |rrrEEEEEEEEEEEEWWWWWWWWWWWWWWWWWWWWWWWWWSSSSSSSSSS|\n");
	CHECK_HAS(s, "legend:  r RUNNABLE  p READY_PREEMPT  E EXECUTING  W SYNC_WAIT  S SLEEPING\n");
	CHECK_HAS(s,
	          "\nname                tid   vol invol  migr    p50    p99    max     at    max     at  top waker\n"
	          "worker              102     0     0     0      -      -      -      -      -      -  -\n"
	          "main                101    10     2     3 2.00ms 4.00ms 4.00ms 0.400s 25.0ms 12.50s  worker 75%\n");
	CHECK_HAS(s, "\n cpu    busy     irq softirq    idle   util switches  top processes (share)\n"
	             "   0   600ms  15.0ms  5.00ms   380ms  62.0%       77  app 50.0%, \"<img src=x onerror=alert(1)~ "
	             "10.0%\n"
	             "   1   150ms       -       -   850ms  15.0%       12  app 50.0%\n");
	CHECK_HAS(s,
	          "\n    pid  name            threads  cpu time  %machine  %avail  cpus  main states\n"
	          "    100  app                   2     650ms     32.5%   32.5%   2/2  EXEC 43%, SYNC 33%, SLEEP 13%\n"
	          "    200  \"<img src=x on~       1     100ms      5.0%   10.0%   1/1  SLEEP 90%, EXEC 10%\n");
	/* no line is wider than the default 100 columns */
	for (const char *p = s, *nl; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		CHECK(nl - p <= 100);
	}
	free(s);
	/* the legend wraps at the width (it counted a column short an entry: 62 columns at 60) */
	o.width = 60;
	s = render(&fx.m, OUT_TEXT, 0, &o);
	CHECK_HAS(s, "legend:  r RUNNABLE  p READY_PREEMPT  E EXECUTING\n         W SYNC_WAIT  S SLEEPING\n");
	free(s);
	fixture_release(&fx);
}

TEST(test_text_warnings_and_top)
{
	struct fixture fx;
	struct tl_report_opts o = { .sort = TL_REPORT_SORT_NAME, .top = 1 };
	char *s;

	fixture_init(&fx);
	fx.run.path = "x.tl";
	fx.run.win_start = T0 + 250 * MS;
	fx.run.win_end = T0 + 750 * MS;
	fx.run.lost_total = 7;
	fx.lost[1] = 7;
	fx.run.sched.anomalies = 3;
	fx.run.read.complete = 0;
	fx.run.read.nwarnings = 2;
	strcpy(fx.run.read.warnings[0], "cannot read 'x.tl': chunk 3 is damaged\x1b[2J");
	strcpy(fx.run.read.warnings[1], "trace 'x.tl' is truncated at offset 1577: recording was interrupted; "
	                                "the last 1075 bytes are incomplete and were not read at all");
	s = render(&fx.m, OUT_TEXT, 0, &o);
	CHECK(s != NULL);
	CHECK_HAS(s, "  window   250ms to 750ms (500ms of 1.00s)\n");
	CHECK_HAS(s, "!! LOST EVENTS: 7 events dropped by the kernel (cpu1 7)\n");
	CHECK_HAS(s, "!! cannot read 'x.tl': chunk 3 is damaged?[2J\n");
	/* long warnings are wrapped at spaces, never cut */
	CHECK_HAS(s, "!! trace 'x.tl' is truncated at offset 1577: recording was interrupted; the last 1075 bytes are\n"
	             "   incomplete and were not read at all\n");
	CHECK_HAS(s, "note: 3 events contradicted the state model");
	/* sorted by name: the hostile name starts with '"', before "main" */
	CHECK_HAS(s, "(2 more threads not shown; --top all shows them)\n");
	CHECK_HAS(s, "(1 more processes not shown; --top all shows them)\n");
	CHECK_LACKS(s, "\nmain ");
	free(s);
	fixture_release(&fx);
}

/* A warning with a word longer than the line is cut, not lost, at any width. */
/*
 * The self-check's table keeps to --top's rows, but a thread in
 * disagreement is always shown, first: 201 (the third by tid) with --top 1.
 */
TEST(test_text_kcheck_flagged_first)
{
	struct fixture fx;
	struct tl_report_opts o = { .top = 1 };
	struct tl_kcheck_thread k[3];
	char *s, *sec;

	fixture_init(&fx);
	memset(k, 0, sizeof(k));
	for (int i = 0; i < 3; i++) {
		k[i].tid = fx.th[i].tid;
		k[i].from = T0;
		k[i].to = T0 + 1000 * MS;
		k[i].trace.run_ns = k[i].kernel.run_ns = fx.th[i].state_ns[TL_ST_EXECUTING];
		k[i].ok = 1;
	}
	k[2].kernel.run_ns += 30 * MS;
	k[2].run_diff = -30 * (int64_t)MS;
	k[2].ok = 0;
	fx.m.kcheck.threads = k;
	fx.m.kcheck.nthreads = 3;
	fx.m.kcheck.bad = 1;
	fx.m.kcheck.max_run_pct = fx.m.kcheck.max_run_dated_pct = 3.0;
	s = render(&fx.m, OUT_TEXT, 0, &o);
	CHECK(s != NULL);
	sec = s ? strstr(s, "Self-check against the kernel") : NULL;
	CHECK(sec != NULL);
	if (sec) {
		CHECK_HAS(sec, "!! ");
		CHECK_HAS(sec, "     201    100ms    130ms   -3.00%");
		CHECK_LACKS(sec, "main ");
		CHECK_HAS(sec, "(2 more threads not shown; --top all shows them)\n");
	}
	free(s);
	fixture_release(&fx);
}

TEST(test_text_wrap_long_word)
{
	struct fixture fx;
	struct tl_report_opts o = { .sort = TL_REPORT_SORT_DEFAULT, .width = 60 };
	char *s, want[128];

	fixture_init(&fx);
	fx.run.read.nwarnings = 1;
	memset(fx.run.read.warnings[0], 'x', 70);
	strcpy(fx.run.read.warnings[0] + 70, " end");
	s = render(&fx.m, OUT_TEXT, 0, &o);
	snprintf(want, sizeof(want), "\n!! %.57s\n   %.13s end\n", fx.run.read.warnings[0], fx.run.read.warnings[0]);
	CHECK_HAS(s, want);
	free(s);
	fixture_release(&fx);
}

/* tl_fmt_wrap() and tl_fmt_wrap_items() into a string. */
static char *wrapped(const char *prefix, const char *text, const char *const *items, size_t n, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (items)
		tl_fmt_wrap_items(f, prefix, items, n, width);
	else
		tl_fmt_wrap(f, prefix, text, width);
	fclose(f);
	return buf;
}

TEST(test_wrap)
{
	const char *items[] = { "io-bound (3 threads)", "wake-storm (3 threads)", "x (1 process)" };
	char *s;

	/* 30 columns: a prefix of 4, lines of up to 26 characters after it */
	s = wrapped("ab: ", "one two three four five six seven eight nine", NULL, 0, 30);
	CHECK_EQ_STR(s, "ab: one two three four five\n    six seven eight nine\n");
	free(s);
	/* a word longer than a line is cut at its end; a control character is cleaned */
	s = wrapped("> ", "abcdefghijklmnopqrstuvwxyz0123 end\x1b", NULL, 0, 22);
	CHECK_EQ_STR(s, "> abcdefghijklmnopqrst\n  uvwxyz0123 end?\n");
	free(s);
	/* UTF-8 characters count one column each */
	s = wrapped("",
	            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 "
	            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 xx",
	            NULL, 0, 20);
	CHECK_EQ_STR(s, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 "
	                "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\nxx\n");
	free(s);
	/* items stay whole: the second does not fit after the first */
	s = wrapped("examined: ", NULL, items, 3, 50);
	CHECK_EQ_STR(s, "examined: io-bound (3 threads)\n          wake-storm (3 threads) x (1 process)\n");
	free(s);
	s = wrapped("e: ", NULL, items, 0, 40);
	CHECK_EQ_STR(s, "e: \n");
	free(s);
}

TEST(test_helpers)
{
	char b[16];

	CHECK_EQ_STR(tl_fmt_dur(0, b, sizeof(b)), "0ns");
	CHECK_EQ_STR(tl_fmt_dur(999, b, sizeof(b)), "999ns");
	CHECK_EQ_STR(tl_fmt_dur(1000, b, sizeof(b)), "1.00us");
	CHECK_EQ_STR(tl_fmt_dur(12345, b, sizeof(b)), "12.3us");
	CHECK_EQ_STR(tl_fmt_dur(999600, b, sizeof(b)), "1.00ms");
	CHECK_EQ_STR(tl_fmt_dur(9996000, b, sizeof(b)), "10.0ms");
	CHECK_EQ_STR(tl_fmt_dur(12300000, b, sizeof(b)), "12.3ms");
	CHECK_EQ_STR(tl_fmt_dur(1200000000, b, sizeof(b)), "1.20s");
	CHECK_EQ_STR(tl_fmt_dur(1234000000000ull, b, sizeof(b)), "1234s");
	/* the same style at other precisions: util's 4 digits, hist's 6, signs */
	CHECK_EQ_STR(tl_fmt_dur_sig(850, 4, b, sizeof(b)), "850ns");
	CHECK_EQ_STR(tl_fmt_dur_sig(12340, 4, b, sizeof(b)), "12.34us");
	CHECK_EQ_STR(tl_fmt_dur_sig(999960, 4, b, sizeof(b)), "1.000ms");
	CHECK_EQ_STR(tl_fmt_dur_sig(999940, 4, b, sizeof(b)), "999.9us");
	CHECK_EQ_STR(tl_fmt_dur_sig(3012000, 4, b, sizeof(b)), "3.012ms");
	CHECK_EQ_STR(tl_fmt_dur_sig(-1500000000.0, 4, b, sizeof(b)), "-1.500s");
	CHECK_EQ_STR(tl_fmt_dur_sig(12345, 6, b, sizeof(b)), "12.3450us");
	CHECK_EQ_STR(tl_fmt_dur_sig(1234567, 6, b, sizeof(b)), "1.23457ms");
	CHECK_EQ_STR(tl_fmt_dur_sig(999999000, 6, b, sizeof(b)), "999.999ms");
	CHECK_EQ_STR(tl_fmt_dur_sig(999999600, 6, b, sizeof(b)), "1.00000s");
	CHECK_EQ_STR(tl_fmt_dur_sig(5, 1, b, sizeof(b)), "5ns"); /* digits below 2 count as 2 */
	CHECK_EQ_INT(tl_report_sort_parse("executing"), TL_ST_EXECUTING);
	CHECK_EQ_INT(tl_report_sort_parse("SYNC_WAIT"), TL_ST_SYNC_WAIT);
	CHECK_EQ_INT(tl_report_sort_parse("Name"), TL_REPORT_SORT_NAME);
	CHECK_EQ_INT(tl_report_sort_parse("lifetime"), TL_REPORT_SORT_LIFETIME);
	CHECK_EQ_INT(tl_report_sort_parse("bogus"), -2);
	CHECK_EQ_INT(tl_report_csv_table_parse("wakers"), TL_CSV_WAKERS);
	CHECK_EQ_INT(tl_report_csv_table_parse("nope"), -1);
	CHECK_EQ_STR(tl_report_csv_table_name(TL_CSV_STATES), "states");
	/* cleaning keeps valid UTF-8, flattens controls and broken bytes */
	{
		char out[32];
		CHECK_EQ_INT(tl_fmt_clean_name("a\xc3\xa9\x1b[\xff", out, sizeof(out)), 5);
		CHECK_EQ_STR(out, "a\xc3\xa9?[?");
		CHECK_EQ_INT(tl_fmt_clean_name("abcdef", out, 4), 3);
		CHECK_EQ_STR(out, "abc");
		/* never cut inside a character */
		CHECK_EQ_INT(tl_fmt_clean_name("a\xc3\xa9", out, 3), 1);
		CHECK_EQ_STR(out, "a");
	}
}

TEST(test_empty_model)
{
	struct tl_run run = { 0 };
	struct tl_model m;
	struct tl_report_opts o = { .sort = TL_REPORT_SORT_DEFAULT };
	char *s;

	memset(&m, 0, sizeof(m));
	m.run = &run;
	s = render(&m, OUT_JSON, 0, &o);
	CHECK(s != NULL);
	CHECK_EQ_INT(tl_json_check(s, s ? strlen(s) : 0), 0);
	CHECK_HAS(s, "\"threads\": [],");
	free(s);
	s = render(&m, OUT_TEXT, 0, &o);
	CHECK_HAS(s, "(no threads in the window)\n");
	free(s);
	for (int t = 0; t < TL_CSV__COUNT; t++) {
		s = render(&m, OUT_CSV, t, &o);
		CHECK(s && strchr(s, '\n') == s + strlen(s) - 1);
		free(s);
	}
}

int main(void)
{
	RUN_TESTS(test_wrap, test_json_document, test_json_compact, test_json_window_sort_top, test_csv_tables,
	          test_text_report, test_text_kcheck_flagged_first, test_text_warnings_and_top,
	          test_text_wrap_long_word, test_helpers, test_empty_model);
}
