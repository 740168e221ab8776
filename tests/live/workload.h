/*
 * workload.h - helpers shared by the live-test workloads (tests/live/wl_*.c).
 *
 * A workload produces a scheduling situation on purpose and measures, from
 * inside, how long each of its threads spent in it: the ground truth that the
 * live tests compare threadlens' analysis against.  The measurements use
 * only the thread's own clocks: CLOCK_MONOTONIC (the clock the trace uses)
 * and CLOCK_THREAD_CPUTIME_ID (the CPU time the kernel charged to the
 * thread).  For a call that may block, wall time minus CPU time inside the
 * call is exactly the time the thread was off its CPU during the call, which
 * is what a trace sees as the waiting state.
 *
 * Invariants: these helpers never use global state, so a workload may call
 * them from any thread.  The truth document (struct wl_truth) is filled by
 * one thread (main, after joining the others) and written once.
 *
 * Header only; every function is static inline so that a workload that does
 * not use one gets no unused-function warning.
 */
#ifndef WL_WORKLOAD_H
#define WL_WORKLOAD_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Exit status of a workload that cannot run here (missing privilege...). */
#define WL_EXIT_SKIP 77

#define WL_MAX_THREADS 16
#define WL_MAX_KEYS 16
#define WL_NAME_MAX 16 /* the kernel's comm limit, including the NUL */

static inline uint64_t wl_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall time on the clock the trace uses. */
static inline uint64_t wl_now_ns(void)
{
	return wl_clock_ns(CLOCK_MONOTONIC);
}

/* CPU time the kernel has charged to the calling thread. */
static inline uint64_t wl_cpu_ns(void)
{
	return wl_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static inline int wl_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

/*
 * Busy-loop until the calling thread has received `ns` of CPU time.  Time
 * spent preempted does not count, so the CPU time consumed is known however
 * busy the machine is.  Returns the CPU time actually consumed (>= ns).
 */
static inline uint64_t wl_spin_cpu(uint64_t ns)
{
	uint64_t start = wl_cpu_ns(), now = start;
	volatile uint64_t sink = 0;

	while (now - start < ns) {
		/* Some work between clock reads keeps the syscall share small. */
		for (int i = 0; i < 2000; i++)
			sink += (uint64_t)i * 2654435761u;
		now = wl_cpu_ns();
	}
	(void)sink;
	return now - start;
}

/* Busy-loop until CLOCK_MONOTONIC reaches `deadline_ns`. */
static inline void wl_spin_until(uint64_t deadline_ns)
{
	volatile uint64_t sink = 0;

	while (wl_now_ns() < deadline_ns)
		for (int i = 0; i < 200; i++)
			sink += (uint64_t)i * 2654435761u;
	(void)sink;
}

/* Pin the calling thread to one CPU.  Returns 0 or an errno value. */
static inline int wl_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The CPU to put contending threads on: 1 if it is online (CPU 0 takes the
 * recorder and the rest of the system), else 0.  Online, not in our own
 * affinity: the live tests start us pinned to CPU 0 with the recorder. */
static inline int wl_contention_cpu(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
}

/* Name the calling thread (the trace shows it as the thread's comm). */
static inline int wl_set_name(const char *name)
{
	return pthread_setname_np(pthread_self(), name);
}

/*
 * Accumulates the off-CPU time of the calls bracketed by wl_acct_begin()
 * and wl_acct_end(): wall minus CPU time inside them, split into the time
 * spent waiting on a run queue after the wakeup (the kernel's schedstat
 * wait, which a trace shows as RUNNABLE) and the rest: the sleep itself.
 * On a busy machine the run-queue part is large, so it must not be
 * counted as sleep.
 *
 * Reading the CPU clock is a system call, so even a call that never leaves
 * the CPU shows a few hundred ns of wall time that the CPU clock missed.
 * Summed over the 10^5 calls of a sched_yield loop that bias would reach
 * tens of ms, so a call counts as off-CPU only above WL_OFFCPU_MIN_NS.
 * That loses nothing real: leaving the CPU and coming back (two context
 * switches and whatever ran in between) takes longer than that.
 *
 * The wall clock is read inside the CPU clock (c0, t0, call, t1, c1): the
 * CPU clock is a system call, and a preemption on its way back to user
 * space (the tick ended the slice) falls outside the wall bracket, so it
 * is not counted as the call's.  Read the other way round, a sched_yield
 * loop counted now and then a whole slice of its neighbour (~3 ms) as
 * yield time that the thread spent preempted in clock_gettime().  The
 * cost: the CPU clock's own system call time (well under 1 us) is inside
 * cpu and not wall, so off-CPU calls read that much short.
 *
 * Use from one thread only: wl_acct_init() opens that thread's schedstat.
 */
#define WL_OFFCPU_MIN_NS 3000

struct wl_acct {
	uint64_t wall_ns, cpu_ns; /* totals inside the calls */
	uint64_t off_ns;          /* off-CPU time of the calls that left the CPU, less runq_ns */
	uint64_t runq_ns;         /* of which waiting on a run queue */
	uint64_t calls, off_calls;
	uint64_t t0, c0, w0; /* start of the open bracket */
	int ss_fd;           /* /proc/thread-self/schedstat, -1 if unavailable */
};

/* Run-queue wait of the calling thread so far (ns), 0 if unknown. */
static inline uint64_t wl_acct_runq(const struct wl_acct *a)
{
	char buf[128];
	unsigned long long run, wait;
	ssize_t n;

	if (a->ss_fd < 0)
		return 0;
	n = pread(a->ss_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (uint64_t)wait : 0;
}

/* Call from the thread that will use `a`; release with wl_acct_release(). */
static inline void wl_acct_init(struct wl_acct *a)
{
	memset(a, 0, sizeof(*a));
	a->ss_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}

static inline void wl_acct_release(struct wl_acct *a)
{
	if (a->ss_fd >= 0)
		close(a->ss_fd);
	a->ss_fd = -1;
}

static inline void wl_acct_begin(struct wl_acct *a)
{
	/* schedstat outside the clocks: its cost is not the call's */
	a->w0 = wl_acct_runq(a);
	a->c0 = wl_cpu_ns();
	a->t0 = wl_now_ns();
}

static inline void wl_acct_end(struct wl_acct *a)
{
	uint64_t t1 = wl_now_ns();
	uint64_t c1 = wl_cpu_ns();
	uint64_t w1 = wl_acct_runq(a);
	uint64_t wall = t1 - a->t0, cpu = c1 - a->c0;

	a->wall_ns += wall;
	a->cpu_ns += cpu;
	a->calls++;
	if (wall > cpu && wall - cpu >= WL_OFFCPU_MIN_NS) {
		uint64_t off = wall - cpu, runq = w1 > a->w0 ? w1 - a->w0 : 0;

		if (runq > off)
			runq = off;
		a->off_ns += off - runq;
		a->runq_ns += runq;
		a->off_calls++;
	}
}

/*
 * Time the hypervisor took from all vCPUs so far ("steal" in /proc/stat),
 * in ns, or 0 if unknown.  A thread whose vCPU is stolen looks on-CPU to a
 * trace but gets no CPU time, so a checker must allow for it.  The kernel
 * exports it in USER_HZ ticks: resolution 10 ms at USER_HZ = 100.
 */
static inline uint64_t wl_steal_ns(void)
{
	FILE *f = fopen("/proc/stat", "r");
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
	           &v[7]);
	fclose(f);
	if (n < 8 || hz <= 0)
		return 0;
	return (uint64_t)(v[7] * (1000000000ull / (unsigned long long)hz));
}

/*
 * CPU cpu's idle time so far by the kernel's own count: the residency of
 * its cpuidle states (/sys/devices/system/cpu/cpuN/cpuidle/stateK/time, in
 * us; a VM's halt is one of them).  UINT64_MAX if the kernel has none.
 */
static inline uint64_t wl_cpu_idle_ns(int cpu)
{
	uint64_t sum = 0;
	int found = 0;

	for (int s = 0; s < 16; s++) {
		char path[96];
		unsigned long long us;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time", cpu, s);
		if (!(f = fopen(path, "r")))
			break;
		if (fscanf(f, "%llu", &us) == 1) {
			sum += (uint64_t)us * 1000;
			found = 1;
		}
		fclose(f);
	}
	return found ? sum : UINT64_MAX;
}

/*
 * The kernel's own accounting of the calling thread (/proc/thread-self/
 * schedstat): time on a CPU, time waiting on a run queue, and the number
 * of times it got a CPU.  Returns 0, or -1 if the file is missing.
 */
static inline int wl_schedstat(uint64_t *run_ns, uint64_t *wait_ns, uint64_t *slices)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long r = 0, w = 0, n = 0;
	int got;

	if (!f)
		return -1;
	got = fscanf(f, "%llu %llu %llu", &r, &w, &n);
	fclose(f);
	*run_ns = r;
	*wait_ns = w;
	*slices = n;
	return got == 3 ? 0 : -1;
}

/* ---- the ground-truth document ---- */

struct wl_truth_thread {
	char name[WL_NAME_MAX];
	int tid;
	int nkeys;
	struct {
		char key[48];
		int64_t val;
	} keys[WL_MAX_KEYS];
};

/*
 * {"scenario": S, "scale": X, "pid": P, "ncpus": N, "steal_ns": T, "notes": "...",
 *  "threads": {NAME: {"tid": T, KEY: VALUE, ...}, ...}}
 *
 * Keys named "<STATE>_ns" (or "<STATE>+<STATE>..._ns" for a sum of states)
 * are expectations the checker compares with the report; other keys
 * ("wall_ns", "cpu_ns", ...) are information for humans reading a failure.
 */
struct wl_truth {
	char scenario[32];
	double scale;
	uint64_t steal_ns; /* machine-wide steal time during the scenario */
	char notes[256];
	int nthreads;
	struct wl_truth_thread threads[WL_MAX_THREADS];
};

/* Add a thread entry; returns NULL if the document is full. */
static inline struct wl_truth_thread *wl_truth_add(struct wl_truth *t, const char *name, int tid)
{
	struct wl_truth_thread *th;

	if (t->nthreads >= WL_MAX_THREADS)
		return NULL;
	th = &t->threads[t->nthreads++];
	memset(th, 0, sizeof(*th));
	snprintf(th->name, sizeof(th->name), "%s", name);
	th->tid = tid;
	return th;
}

/* Set a key of a thread entry (ignored if the entry is NULL or full). */
static inline void wl_truth_set(struct wl_truth_thread *th, const char *key, int64_t val)
{
	if (!th || th->nkeys >= WL_MAX_KEYS)
		return;
	snprintf(th->keys[th->nkeys].key, sizeof(th->keys[0].key), "%s", key);
	th->keys[th->nkeys].val = val;
	th->nkeys++;
}

/* Write the document to `path` ("-" or NULL: stdout).  Returns 0 or -1 (errno set). */
static inline int wl_truth_write(const struct wl_truth *t, const char *path)
{
	FILE *f = (!path || !strcmp(path, "-")) ? stdout : fopen(path, "w");
	int err;

	if (!f)
		return -1;
	/* Names are ours (plain ASCII, no quotes), so no JSON escaping is needed. */
	fprintf(f, "{\"scenario\": \"%s\", \"scale\": %g, \"pid\": %d, \"ncpus\": %ld, \"steal_ns\": %llu,\n",
	        t->scenario, t->scale, (int)getpid(), sysconf(_SC_NPROCESSORS_ONLN), (unsigned long long)t->steal_ns);
	fprintf(f, " \"notes\": \"%s\",\n \"threads\": {", t->notes);
	for (int i = 0; i < t->nthreads; i++) {
		const struct wl_truth_thread *th = &t->threads[i];

		fprintf(f, "%s\n  \"%s\": {\"tid\": %d", i ? "," : "", th->name, th->tid);
		for (int k = 0; k < th->nkeys; k++)
			fprintf(f, ", \"%s\": %lld", th->keys[k].key, (long long)th->keys[k].val);
		fputc('}', f);
	}
	fprintf(f, "\n }\n}\n");
	err = ferror(f);
	if (f == stdout)
		err |= fflush(f);
	else
		err |= fclose(f);
	if (err && !errno)
		errno = EIO;
	return err ? -1 : 0;
}

#endif
