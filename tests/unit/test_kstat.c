/*
 * test_kstat.c - the kernel's per-thread counters (capture/kstat.h) read
 * for this very thread, against its own clock and its own sleeps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "capture/kstat.h"
#include "harness.h"

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

TEST(test_run_time_against_own_clock)
{
	struct tl_kstat k;
	uint64_t c0, c1, t;

	t = thread_cpu_ns();
	while (thread_cpu_ns() - t < 30000000ull) /* 30 ms on a CPU */
		sink++;
	c0 = thread_cpu_ns();
	CHECK_EQ_INT(tl_kstat_read(getpid(), gettid(), &k), 0);
	c1 = thread_cpu_ns();
	CHECK(k.have & TL_KSTAT_SCHED);
	CHECK_EQ_INT(k.tid, gettid());
	/*
	 * schedstat is sum_exec_runtime as of the last tick or switch, the same
	 * sum CLOCK_THREAD_CPUTIME_ID adds the running slice to: never above the
	 * clock read after it, and behind the clock read before it by at most
	 * one tick (10 ms at HZ >= 100).
	 */
	CHECK(k.run_ns <= c1);
	CHECK(k.run_ns + 10000000ull >= c0);
}

TEST(test_voluntary_switches)
{
	struct tl_kstat a, b;

	CHECK_EQ_INT(tl_kstat_read(getpid(), gettid(), &a), 0);
	for (int i = 0; i < 5; i++)
		usleep(2000); /* each sleep leaves the CPU once, voluntarily */
	CHECK_EQ_INT(tl_kstat_read(getpid(), gettid(), &b), 0);
	CHECK(a.have & TL_KSTAT_SWITCHES);
	CHECK(b.vol >= a.vol + 5);
	CHECK(b.invol >= a.invol);
}

TEST(test_hostile_name)
{
	struct tl_kstat k;
	char old[16] = "";

	char path[64], line[1024];
	uint64_t ticks = UINT64_MAX;
	FILE *f;
	size_t n = 0;

	/* stat's fields after the name are found from the last ')' */
	prctl(PR_GET_NAME, old);
	prctl(PR_SET_NAME, "a) 1 2 (b) x");
	CHECK_EQ_INT(tl_kstat_read(getpid(), gettid(), &k), 0);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)gettid());
	if ((f = fopen(path, "r"))) {
		n = fread(line, 1, sizeof(line) - 1, f);
		fclose(f);
	}
	line[n] = 0;
	CHECK(strstr(line, "(a) 1 2 (b) x)") != NULL);
	CHECK_EQ_INT(tl_kstat_parse_stat(line, &ticks), 0);
	/*
	 * Field 42 counted here independently: fields 3.. follow the last ')'.
	 * Its value is compared, not bounded: the kernel's block-I/O ticks can be
	 * absurd (over an hour, seen once under ASan) when kernel.task_delayacct
	 * is switched while a task waits, as recordings beside the suite do.
	 */
	{
		char *p = strrchr(line, ')'), *save = NULL, *tok;
		unsigned long long want = 0;
		int field = 2;

		for (tok = p ? strtok_r(p + 1, " \n", &save) : NULL; tok; tok = strtok_r(NULL, " \n", &save))
			if (++field == 42)
				want = strtoull(tok, NULL, 10);
		CHECK(field >= 42);
		CHECK_EQ_INT(ticks, want);
	}
	prctl(PR_SET_NAME, old);
}

TEST(test_parse_stat)
{
	/* a real line's shape: pid (comm) then fields 3..52; field 42 is 77 */
	static const char good[] = "1234 (a) 1 (b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 "
	                           "100 10000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 77 0 0 "
	                           "0 0 0 0 0 0 0 0\n";
	static const char shortline[] = "1234 (x) S 1 2 3\n";
	uint64_t t = 0;

	CHECK_EQ_INT(tl_kstat_parse_stat(good, &t), 0);
	CHECK_EQ_INT(t, 77);
	CHECK_EQ_INT(tl_kstat_parse_stat(shortline, &t), -1);
	CHECK_EQ_INT(tl_kstat_parse_stat("no parenthesis", &t), -1);
}

TEST(test_gone_and_delayacct)
{
	struct tl_kstat k;
	int d;

	CHECK_EQ_INT(tl_kstat_read(getpid(), 2147483000, &k), -1);
	CHECK(strstr(tl_error_msg(), "schedstat") != NULL);
	d = tl_delayacct_get();
	CHECK(d == 0 || d == 1);
	if (geteuid() == 0 && d >= 0) /* as root: setting it to what it is changes nothing */
		CHECK_EQ_INT(tl_delayacct_set(d), 0);
	if (geteuid() != 0)
		CHECK_EQ_INT(tl_delayacct_set(1), -1);
}

TEST(test_parse_steal)
{
	static const char text[] = "cpu  567645 0 144572 1801422 5840 0 1593 4587 0 0\n"
	                           "cpu0 283000 0 72000 900000 2900 0 800 12 0 0\n"
	                           "cpu1 284645 0 72572 901422 2940 0 793 4575 0 0\n"
	                           "intr 123 4 5 6\n"
	                           "cpu3 1 2 3\n" /* damaged: too short, skipped */
	                           "ctxt 999\n";
	uint64_t steal[4] = { 7, 7, 7, 7 };

	CHECK_EQ_INT(tl_kstat_parse_steal(text, 10000000, steal, 4), 2);
	CHECK_EQ_INT(steal[0], 120000000);   /* 12 ticks of 10 ms */
	CHECK_EQ_INT(steal[1], 45750000000); /* the "cpu " total line is not a CPU */
	CHECK_EQ_INT(steal[3], 7);
	CHECK_EQ_INT(tl_kstat_parse_steal("cpu  1 2 3 4 5 6 7 8\nintr 1\n", 10000000, steal, 4), -1);
	/* a CPU beyond max is counted, not stored */
	CHECK_EQ_INT(tl_kstat_parse_steal("cpu9 1 2 3 4 5 6 7 8\n", 1, steal, 4), 10);
}

int main(void)
{
	RUN_TESTS(test_run_time_against_own_clock, test_voluntary_switches, test_hostile_name, test_parse_stat,
	          test_gone_and_delayacct, test_parse_steal);
}
