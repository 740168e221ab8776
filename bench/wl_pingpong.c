/*
 * wl_pingpong.c - the benchmark workload: two threads hand a token back and
 * forth (through a futex or through a pair of pipes) while a third thread
 * burns CPU.  It does a fixed amount of work and reports how long that took,
 * so that running it plain and under a recorder gives the recorder's
 * overhead.
 *
 *   wl_pingpong [--mode futex|pipe] [--handoffs N] [--spin ITERS]
 *               [--hog ITERS] [--no-pin]
 *   wl_pingpong --calibrate
 *
 * The ping-pong threads "ping" and "pong" each do --spin iterations of a
 * small arithmetic loop, then pass the token and wait for it to come back;
 * --handoffs passes in all.  --spin sets the context-switch rate (bench/run.sh
 * calibrates it to about 100 000 switches/s).  The "hog" thread runs --hog
 * iterations of the same loop, with no system calls.  By default ping and
 * pong are pinned to CPU 0 (so every hand-off is a context switch on that
 * CPU) and the hog to the last CPU; --no-pin leaves placement to the
 * scheduler.
 *
 * Output: one line of key=value pairs on stdout, read by bench/stats.py:
 * elapsed_s (all work, first start to last finish), pp_s and hog_s (each
 * part), switches (voluntary + involuntary context switches of ping and
 * pong, from getrusage(RUSAGE_THREAD)), switch_rate (switches / pp_s), and
 * user_s, sys_s (the process's CPU time, getrusage(RUSAGE_SELF), so that a
 * wrapper can subtract it from a recorder's).  --calibrate prints ns_per_iter
 * of the loop instead (best of several runs).
 *
 * Exit status 0, 2 for bad usage, 1 if a system call fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum mode { MODE_FUTEX, MODE_PIPE };

struct opts {
	enum mode mode;
	uint64_t handoffs;
	uint64_t spin;
	uint64_t hog;
	int pin;
};

/* Shared by the threads; written before they start or only through atomics. */
static struct opts o = { MODE_FUTEX, 200000, 0, 0, 1 };
static _Atomic int turn;   /* futex mode: 0 = ping's turn, 1 = pong's */
static int p2q[2], q2p[2]; /* pipe mode: ping -> pong, pong -> ping */
static pthread_barrier_t start_barrier;
static _Atomic uint64_t sink;

struct part {
	uint64_t t0, t1; /* CLOCK_MONOTONIC ns */
	long csw;        /* context switches of this thread */
};
static struct part parts[3];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The unit of work: an LCG step the compiler cannot fold away. */
static uint64_t spin(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static void die(const char *what)
{
	fprintf(stderr, "wl_pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	if (!o.pin || cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static long futex(_Atomic int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void futex_pass(int to)
{
	atomic_store(&turn, to);
	futex(&turn, FUTEX_WAKE_PRIVATE, 1);
}

static void futex_wait_for(int me)
{
	int v;

	while ((v = atomic_load(&turn)) != me)
		if (futex(&turn, FUTEX_WAIT_PRIVATE, v) < 0 && errno != EAGAIN && errno != EINTR)
			die("futex wait");
}

static void pipe_pass(int fd)
{
	char c = 1;

	while (write(fd, &c, 1) != 1)
		if (errno != EINTR)
			die("pipe write");
}

static void pipe_wait(int fd)
{
	char c;

	while (read(fd, &c, 1) != 1)
		if (errno != EINTR)
			die("pipe read");
}

static long thread_csw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void *ping(void *arg)
{
	uint64_t x = 1, rounds = o.handoffs / 2;

	pin_to(0);
	pthread_setname_np(pthread_self(), "ping");
	pthread_barrier_wait(&start_barrier);
	parts[0].t0 = now_ns();
	long c0 = thread_csw();
	for (uint64_t r = 0; r < rounds; r++) {
		x = spin(o.spin, x);
		if (o.mode == MODE_FUTEX) {
			futex_pass(1);
			futex_wait_for(0);
		} else {
			pipe_pass(p2q[1]);
			pipe_wait(q2p[0]);
		}
	}
	parts[0].t1 = now_ns();
	parts[0].csw = thread_csw() - c0;
	sink += x;
	return arg;
}

static void *pong(void *arg)
{
	uint64_t x = 2, rounds = o.handoffs / 2;

	pin_to(0);
	pthread_setname_np(pthread_self(), "pong");
	pthread_barrier_wait(&start_barrier);
	parts[1].t0 = now_ns();
	long c0 = thread_csw();
	for (uint64_t r = 0; r < rounds; r++) {
		if (o.mode == MODE_FUTEX) {
			futex_wait_for(1);
			x = spin(o.spin, x);
			futex_pass(0);
		} else {
			pipe_wait(p2q[0]);
			x = spin(o.spin, x);
			pipe_pass(q2p[1]);
		}
	}
	parts[1].t1 = now_ns();
	parts[1].csw = thread_csw() - c0;
	sink += x;
	return arg;
}

static void *hog(void *arg)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	pin_to(n > 1 ? (int)n - 1 : -1);
	pthread_setname_np(pthread_self(), "hog");
	pthread_barrier_wait(&start_barrier);
	parts[2].t0 = now_ns();
	long c0 = thread_csw();
	sink += spin(o.hog, 3);
	parts[2].t1 = now_ns();
	parts[2].csw = thread_csw() - c0;
	return arg;
}

static double calibrate(void)
{
	double best = 1e9;

	for (int i = 0; i < 7; i++) {
		uint64_t n = 20000000, t0 = now_ns();

		sink += spin(n, (uint64_t)i);
		double ns = (double)(now_ns() - t0) / (double)n;
		if (ns < best)
			best = ns;
	}
	return best;
}

static uint64_t parse_u64(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);

	if (errno || end == s || *end) {
		fprintf(stderr, "wl_pingpong: bad number for %s: '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: wl_pingpong [--mode futex|pipe] [--handoffs N] [--spin ITERS]\n"
	                "                   [--hog ITERS] [--no-pin]\n"
	                "   or: wl_pingpong --calibrate\n");
	exit(2);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--calibrate")) {
			printf("ns_per_iter=%.4f\n", calibrate());
			return 0;
		} else if (!strcmp(a, "--no-pin")) {
			o.pin = 0;
		} else if (!v) {
			usage();
		} else if (!strcmp(a, "--mode")) {
			if (!strcmp(v, "futex"))
				o.mode = MODE_FUTEX;
			else if (!strcmp(v, "pipe"))
				o.mode = MODE_PIPE;
			else
				usage();
			i++;
		} else if (!strcmp(a, "--handoffs")) {
			o.handoffs = parse_u64(a, v), i++;
		} else if (!strcmp(a, "--spin")) {
			o.spin = parse_u64(a, v), i++;
		} else if (!strcmp(a, "--hog")) {
			o.hog = parse_u64(a, v), i++;
		} else {
			usage();
		}
	}
	if (o.mode == MODE_PIPE && (pipe(p2q) < 0 || pipe(q2p) < 0))
		die("pipe");

	pthread_t t[3];
	void *(*fn[3])(void *) = { ping, pong, hog };

	pthread_barrier_init(&start_barrier, NULL, 3);
	for (int i = 0; i < 3; i++)
		if ((errno = pthread_create(&t[i], NULL, fn[i], NULL)))
			die("pthread_create");
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);

	uint64_t t0 = parts[0].t0, t1 = parts[0].t1;
	for (int i = 1; i < 3; i++) {
		if (parts[i].t0 < t0)
			t0 = parts[i].t0;
		if (parts[i].t1 > t1)
			t1 = parts[i].t1;
	}
	uint64_t pp0 = parts[0].t0 < parts[1].t0 ? parts[0].t0 : parts[1].t0;
	uint64_t pp1 = parts[0].t1 > parts[1].t1 ? parts[0].t1 : parts[1].t1;
	double pp_s = (double)(pp1 - pp0) / 1e9;
	long sw = parts[0].csw + parts[1].csw;
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("mode=%s handoffs=%llu spin=%llu hog=%llu elapsed_s=%.6f pp_s=%.6f hog_s=%.6f "
	       "switches=%ld switch_rate=%.0f hog_csw=%ld user_s=%.6f sys_s=%.6f\n",
	       o.mode == MODE_FUTEX ? "futex" : "pipe", (unsigned long long)o.handoffs, (unsigned long long)o.spin,
	       (unsigned long long)o.hog, (double)(t1 - t0) / 1e9, pp_s, (double)(parts[2].t1 - parts[2].t0) / 1e9, sw,
	       pp_s > 0 ? (double)sw / pp_s : 0.0, parts[2].csw,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	return 0;
}
