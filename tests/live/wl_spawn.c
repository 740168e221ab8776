/*
 * wl_spawn.c - work split among threads created for it and joined: each
 * round the main thread creates its workers, gives each a fixed share of
 * CPU work, and joins them (pthread-style data parallelism, a thread per
 * part, as image kernels often split rows).
 *
 *   wl_spawn [--rounds R] [--work T,T,...] [--procs] [--exec FILE]
 *
 * Each round (default 5) 'spawn' creates one worker per T ('part0',
 * 'part1', ...; default 60,20: a 3:1 imbalance), each computes T of its
 * own CPU time (ms, or us with the suffix "us": many rounds of tiny parts
 * make a thread per task) and exits, and 'spawn' joins them all (with
 * --procs each part is a child process, waited for in order).  Then it
 * prints one JSON line of truth: {"rounds": R, "workers": W, "cpu_ns": C,
 * "span_ns": S, "loss_ns": L, "start_ns": D, "start_runq_ns": Q}: C the
 * workers' CPU time in
 * all (each its
 * own CLOCK_THREAD_CPUTIME_ID), S the sum over rounds of the wall time
 * from the first worker's start to the last one's end (each worker's own
 * clock), L the sum over rounds of the CPU time left idle after each end
 * that left fewer workers than CPUs (k, the fewer of the workers and the
 * CPUs), over k: what the split lost (diagnose's worker-imbalance), D the
 * sum over workers of the time from spawn's clock just before it created
 * the worker to the worker's clock as it began (the clone, the wait for a
 * CPU: diagnose's thread-churn), Q the sum of the kernel's count of each
 * worker's run-queue wait as it began (schedstat: its wait for its first
 * CPU), "slow": N the workers that took SLOW_NS or more from spawn's clock
 * before creating them to their own end (thread-churn counts a thread
 * under 1 ms short: these may fall either side); with --exec, SLOW_EXEC_NS
 * or more to their reaping (their clocks end before the exec).  With --exec FILE (implies --procs) each child, instead of its
 * work, reads its CPU clock and execs FILE (a shell loop's process per
 * command: /bin/true), and the line adds "exec_cpu_ns": E, the sum of
 * those clocks (the children's time on a CPU from the fork to just
 * before execve).  Exit status: 0, or 2 for bad usage.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "workload.h"

#define MS 1000000ull
#define MAX_WORKERS 16

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The round's loss: after the i-th end, n - 1 - i workers are left; k - that CPUs idle until the next end. */
static uint64_t loss(uint64_t *ends, int n, int k)
{
	uint64_t idle = 0;

	qsort(ends, (size_t)n, sizeof(*ends), cmp_u64);
	for (int i = 0; i + 1 < n; i++)
		if (n - 1 - i < k)
			idle += (ends[i + 1] - ends[i]) * (uint64_t)(k - (n - 1 - i));
	return idle / (uint64_t)k;
}

struct part {
	pthread_t t;
	int idx;
	uint64_t work_ns;
	uint64_t asked;           /* spawn's clock before creating it */
	uint64_t runq;            /* the kernel's count of its wait on a run queue when it began (schedstat) */
	uint64_t start, end, cpu; /* its own clocks */
};

static void *part_body(void *arg);
static const char *exec_file; /* --exec */

#define SLOW_NS 500000ull      /* a worker this long from its creation to its end may not be short to thread-churn */
#define SLOW_EXEC_NS 900000ull /* --exec: from its creation to its reaping, after its exit */

/*
 * --procs: part p in a child process of its own (a fork per part, as
 * Python's multiprocessing.Process); its clocks come back through the pipe
 * fd.  Returns the child's pid, or -1.
 */
static pid_t part_fork(struct part *p, int fd)
{
	pid_t pid = fork();

	if (pid == 0 && exec_file) {
		p->start = p->end = wl_now_ns();
		p->runq = 0;
		p->cpu = wl_cpu_ns(); /* since the fork: a new task's clock starts at 0 */
		if (write(fd, p, sizeof(*p)) != (ssize_t)sizeof(*p))
			_exit(1);
		execl(exec_file, exec_file, (char *)NULL);
		_exit(127);
	}
	if (pid == 0) {
		part_body(p);
		_exit(write(fd, p, sizeof(*p)) == (ssize_t)sizeof(*p) ? 0 : 1);
	}
	return pid;
}

static void *part_body(void *arg)
{
	struct part *p = arg;
	char name[16];
	uint64_t run, slices;

	p->start = wl_now_ns();
	if (wl_schedstat(&run, &p->runq, &slices))
		p->runq = 0;
	snprintf(name, sizeof(name), "part%d", p->idx);
	wl_set_name(name);
	p->cpu = wl_spin_cpu(p->work_ns);
	p->end = wl_now_ns();
	return NULL;
}

int main(int argc, char **argv)
{
	struct part parts[MAX_WORKERS];
	int rounds = 5, n = 0, procs = 0, fds[2];
	pid_t pids[MAX_WORKERS];
	uint64_t cpu = 0, span = 0, lost = 0, starting = 0, runq = 0, slow = 0, ends[MAX_WORKERS], reaped[MAX_WORKERS];
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	const char *work = "60,20";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--work") && i + 1 < argc) {
			work = argv[++i];
		} else if (!strcmp(argv[i], "--procs")) {
			procs = 1;
		} else if (!strcmp(argv[i], "--exec") && i + 1 < argc) {
			exec_file = argv[++i];
			procs = 1;
		} else {
			fprintf(stderr, "usage: wl_spawn [--rounds R] [--work T,T,...] [--procs] [--exec FILE] (T in "
			                "ms, or 10us)\n");
			return 2;
		}
	}
	for (const char *s = work; *s && n < MAX_WORKERS; n++) {
		char *end;

		parts[n].work_ns = strtoull(s, &end, 10) * MS;
		parts[n].idx = n;
		if (!strncmp(end, "us", 2)) {
			parts[n].work_ns /= 1000;
			end += 2;
		}
		if (end == s || !parts[n].work_ns || (*end && *end != ','))
			n = MAX_WORKERS + 1;
		s = *end ? end + 1 : end;
	}
	if (rounds < 1 || n < 1 || n > MAX_WORKERS) {
		fprintf(stderr, "wl_spawn: want rounds >= 1 and 1..%d works of a whole number of ms (or us)\n",
		        MAX_WORKERS);
		return 2;
	}
	wl_set_name("spawn");
	if (procs && pipe(fds))
		return 1;
	for (int r = 0; r < rounds; r++) {
		uint64_t first = UINT64_MAX, last = 0;

		for (int i = 0; i < n; i++) {
			parts[i].asked = wl_now_ns();
			if (procs ? (pids[i] = part_fork(&parts[i], fds[1])) < 0
			          : pthread_create(&parts[i].t, NULL, part_body, &parts[i]) != 0)
				return 1;
		}
		for (int i = 0; i < n; i++) {
			int status;

			if (!procs) {
				pthread_join(parts[i].t, NULL);
			} else if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
			           WEXITSTATUS(status)) {
				return 1;
			}
			reaped[i] = wl_now_ns();
		}
		/* the children's clocks, in the order they finished */
		for (int i = 0; procs && i < n; i++) {
			struct part got;

			if (read(fds[0], &got, sizeof(got)) != (ssize_t)sizeof(got) || got.idx < 0 || got.idx >= n)
				return 1;
			parts[got.idx] = got;
		}
		for (int i = 0; i < n; i++) {
			cpu += parts[i].cpu;
			first = parts[i].start < first ? parts[i].start : first;
			last = parts[i].end > last ? parts[i].end : last;
			ends[i] = parts[i].end;
			starting += parts[i].start - parts[i].asked;
			/* near or past thread-churn's 1 ms; an exec'd child's life ends past its clocks: by its reaping */
			slow += exec_file ? reaped[i] - parts[i].asked >= SLOW_EXEC_NS
			                  : parts[i].end - parts[i].asked >= SLOW_NS;
			runq += parts[i].runq;
		}
		span += last - first;
		lost += loss(ends, n, n < ncpus ? n : ncpus);
	}
	printf("{\"rounds\": %d, \"workers\": %d, \"cpu_ns\": %llu, \"span_ns\": %llu, \"loss_ns\": %llu, "
	       "\"start_ns\": %llu, \"start_runq_ns\": %llu, \"slow\": %llu",
	       rounds, n, (unsigned long long)cpu, (unsigned long long)span, (unsigned long long)lost,
	       (unsigned long long)starting, (unsigned long long)runq, (unsigned long long)slow);
	if (exec_file)
		printf(", \"exec_cpu_ns\": %llu", (unsigned long long)cpu);
	printf("}\n");
	return 0;
}
