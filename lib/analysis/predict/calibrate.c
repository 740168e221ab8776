/*
 * calibrate.c - `threadlens calibrate`: this machine's runtime costs for
 * predict's model (predict.h, enum tl_cost) and the costs the thread-state
 * analysis derives sub-states from, measured by microbenchmarks in the
 * style of EPCC's syncbench and schedbench (seed 001, section 4.7.3) with
 * the installed libgomp.
 *
 * Each OpenMP figure is a difference, as EPCC computes them: the time of
 * R repetitions of the construct around a delay of D ns, less R delays,
 * over R.  Each is taken `reps` times: the median, minimum and maximum
 * are kept.  libgomp does not show its inner steps, so the model's finer
 * costs are split from what can be measured (docs/PREDICT.md says how):
 *   region(n) = the overhead of `parallel num_threads(n)`; a line through
 *   n = 1 and the most threads gives the per-region part (par_open and
 *   par_close, half each) and the per-extra-thread part (thr_launch and
 *   thr_free, half each); thr_create, launch_master, the thread prologue
 *   and epilogue are in those and kept at 0;
 *   barrier: `barrier` in a region of all threads;
 *   for: `for schedule(static)` with one iteration a thread, less the
 *   barrier that ends it: for_prologue and for_epilogue, half each;
 *   next_chunk: (`dynamic,1` - `static,1`) over the chunks a thread takes;
 *   critical: an uncontended `critical`.
 * Built without OpenMP (the fuzzing build), calibration says it cannot.
 */
#include "analysis/predict/predict.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/errors.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* v[0..n) into a figure: median, min, max. */
static struct tl_figure figure(double *v, int n)
{
	struct tl_figure f = { 0 };

	if (n <= 0)
		return f;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	f.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	f.min = v[0];
	f.max = v[n - 1];
	f.reps = n;
	return f;
}

#ifdef _OPENMP
/* Spin about ns: EPCC's delay, a loop the compiler cannot remove. */
static void delay(uint64_t ns)
{
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		__asm__ volatile("" ::: "memory");
}

#define INNER 200  /* repetitions of a construct in one timing */
#define DELAY 2000 /* ns of work inside each */

enum bench { B_REF, B_REGION, B_BARRIER, B_FOR, B_STATIC1, B_DYNAMIC1, B_CRITICAL };

/* One timing of INNER repetitions of bench with nthr threads, per repetition, in ns. */
static double time_once(enum bench b, int nthr)
{
	uint64_t t0 = now_ns();

	switch (b) {
	case B_REF:
		for (int r = 0; r < INNER; r++)
			delay(DELAY);
		break;
	case B_REGION:
		for (int r = 0; r < INNER; r++) {
#pragma omp parallel num_threads(nthr)
			delay(DELAY);
		}
		break;
	case B_BARRIER:
#pragma omp parallel num_threads(nthr)
		for (int r = 0; r < INNER; r++) {
			delay(DELAY);
#pragma omp barrier
		}
		break;
	case B_FOR:
#pragma omp parallel num_threads(nthr)
		for (int r = 0; r < INNER; r++) {
#pragma omp for schedule(static)
			for (int i = 0; i < nthr; i++)
				delay(DELAY);
		}
		break;
	case B_STATIC1:
	case B_DYNAMIC1:
#pragma omp parallel num_threads(nthr)
		for (int r = 0; r < INNER / 8; r++) {
			if (b == B_STATIC1) {
#pragma omp for schedule(static, 1)
				for (int i = 0; i < 8 * nthr; i++)
					delay(DELAY);
			} else {
#pragma omp for schedule(dynamic, 1)
				for (int i = 0; i < 8 * nthr; i++)
					delay(DELAY);
			}
		}
		break;
	case B_CRITICAL:
		for (int r = 0; r < INNER; r++) {
#pragma omp critical
			delay(DELAY);
		}
		break;
	}
	return (double)(now_ns() - t0) / INNER;
}

/*
 * `reps` timings of bench less the reference (the delays alone), per
 * repetition: a figure.  The chunked loops run INNER / 8 loops of 8 chunks
 * a thread, as many delays a thread as the reference: their difference is
 * per chunk.
 */
static struct tl_figure overhead(enum bench b, int nthr, int reps)
{
	double v[TL_CALIBRATE_MAX_REPS];

	if (reps > TL_CALIBRATE_MAX_REPS)
		reps = TL_CALIBRATE_MAX_REPS;
	time_once(b, nthr); /* warm: threads created, pages touched */
	for (int i = 0; i < reps; i++) {
		double ref = time_once(B_REF, 1);
		v[i] = time_once(b, nthr) - ref;
		if (v[i] < 0)
			v[i] = 0;
	}
	return figure(v, reps);
}

/*
 * (a - b) * k: a cost split from two measurements.  The median is from
 * theirs (what predict uses); min and max are the widest the parts'
 * extremes allow, so min <= median <= max holds; none is below 0.  b with
 * reps 0 is no measurement (a cost that is a share of a alone).
 */
static struct tl_figure derive(struct tl_figure a, struct tl_figure b, double k)
{
	struct tl_figure f;

	f.median = (a.median - b.median) * k;
	f.min = (a.min - b.max) * k;
	f.max = (a.max - b.min) * k;
	f.median = f.median > 0 ? f.median : 0;
	f.min = f.min > 0 ? f.min : 0;
	f.max = f.max > 0 ? f.max : 0;
	f.reps = b.reps && b.reps < a.reps ? b.reps : a.reps;
	return f;
}

static int omp_costs(struct tl_calibration *c, int reps)
{
	int n = c->ncpus < TL_CALIBRATE_MAX_THREADS ? c->ncpus : TL_CALIBRATE_MAX_THREADS;
	struct tl_figure none = { 0 }, r1, rn, bar, fr, s1, d1;

	for (int k = 1; k <= n; k++)
		c->region[k - 1] = overhead(B_REGION, k, reps);
	c->nregion = n;
	r1 = c->region[0];
	rn = c->region[c->nregion - 1];
	bar = overhead(B_BARRIER, n, reps);
	fr = overhead(B_FOR, n, reps);
	s1 = overhead(B_STATIC1, n, reps);
	d1 = overhead(B_DYNAMIC1, n, reps);
	c->figures[TL_COST_PAR_OPEN] = c->figures[TL_COST_PAR_CLOSE] = derive(r1, none, 0.5);
	/* one CPU: no extra thread to measure, so 0 and not measured (reps 0) */
	c->figures[TL_COST_THR_LAUNCH] = c->figures[TL_COST_THR_FREE] =
	        c->nregion > 1 ? derive(rn, r1, 0.5 / (c->nregion - 1)) : none;
	c->figures[TL_COST_BARRIER] = bar;
	c->figures[TL_COST_FOR_PROLOGUE] = c->figures[TL_COST_FOR_EPILOGUE] = derive(fr, bar, 0.5);
	c->figures[TL_COST_NEXT_CHUNK] = derive(d1, s1, 1);
	c->figures[TL_COST_CRITICAL] = overhead(B_CRITICAL, 1, reps);
	c->omp_version = _OPENMP;
	return 0;
}
#else
static int omp_costs(struct tl_calibration *c, int reps)
{
	(void)c;
	(void)reps;
	return tl_error("this threadlens was built without OpenMP: it cannot measure the runtime's costs");
}
#endif

/* A context switch: two processes on one CPU pass a byte back and forth through pipes, less the pipe costs alone. */
static struct tl_figure context_switch(int reps)
{
	double v[TL_CALIBRATE_MAX_REPS];
	int n = 0;
	const int rounds = 2000;

	for (int k = 0; k < reps && k < TL_CALIBRATE_MAX_REPS; k++) {
		int ab[2], ba[2];
		char ch = 0;
		pid_t pid;
		cpu_set_t one;
		uint64_t t0, t1, t2;

		if (pipe(ab) || pipe(ba))
			break;
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		/* the pipe costs alone: a write and a read in one process */
		t0 = now_ns();
		for (int i = 0; i < rounds; i++)
			if (write(ab[1], &ch, 1) != 1 || read(ab[0], &ch, 1) != 1)
				break;
		t1 = now_ns();
		if ((pid = fork()) == 0) {
			sched_setaffinity(0, sizeof(one), &one);
			for (int i = 0; i < rounds; i++)
				if (read(ab[0], &ch, 1) != 1 || write(ba[1], &ch, 1) != 1)
					break;
			_exit(0);
		}
		if (pid < 0)
			break;
		{
			cpu_set_t old;
			sched_getaffinity(0, sizeof(old), &old);
			sched_setaffinity(0, sizeof(one), &one);
			t1 = t1 - t0; /* the alone time */
			t2 = now_ns();
			for (int i = 0; i < rounds; i++)
				if (write(ab[1], &ch, 1) != 1 || read(ba[0], &ch, 1) != 1)
					break;
			t2 = now_ns() - t2;
			sched_setaffinity(0, sizeof(old), &old);
		}
		waitpid(pid, NULL, 0);
		close(ab[0]);
		close(ab[1]);
		close(ba[0]);
		close(ba[1]);
		/* a round: two switches and two write+read pairs */
		v[n] = ((double)t2 - 2.0 * (double)t1) / (2.0 * rounds);
		if (v[n] < 0)
			v[n] = 0;
		n++;
	}
	return figure(v, n);
}

/* A minor page fault: the first touch of a fresh anonymous page, less a touch of one already there. */
static struct tl_figure page_fault(int reps)
{
	double v[TL_CALIBRATE_MAX_REPS];
	const size_t pages = 2048, psz = (size_t)sysconf(_SC_PAGESIZE);
	int n = 0;

	for (int k = 0; k < reps && k < TL_CALIBRATE_MAX_REPS; k++) {
		volatile char *m = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint64_t t0, t1, t2;

		if (m == MAP_FAILED)
			break;
		t0 = now_ns();
		for (size_t i = 0; i < pages; i++)
			m[i * psz] = 1;
		t1 = now_ns();
		for (size_t i = 0; i < pages; i++)
			m[i * psz] = 2;
		t2 = now_ns();
		munmap((void *)m, pages * psz);
		v[n++] = ((double)(t1 - t0) - (double)(t2 - t1)) / (double)pages;
	}
	return figure(v, n);
}

static volatile size_t sink; /* the chase's last index: the loads are not dead */

/* Latency of a dependent load in a buffer of `bytes`: a random cycle of cache lines, chased. */
static struct tl_figure chase(size_t bytes, int reps)
{
	double v[TL_CALIBRATE_MAX_REPS];
	const size_t line = 64, n = bytes / line, steps = 500000;
	size_t *order, *buf;
	int got = 0;

	buf = aligned_alloc(line, n * line);
	order = malloc(n * sizeof(*order));
	if (!buf || !order || n < 2) {
		free(buf);
		free(order);
		return figure(v, 0);
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	srand(12345);
	for (size_t i = n - 1; i > 0; i--) { /* a random permutation: one cycle through every line */
		size_t j = (size_t)rand() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		buf[order[i] * (line / sizeof(size_t))] = order[(i + 1) % n] * (line / sizeof(size_t));
	for (size_t i = 0, p = 0; i < n; i++) /* warm: once round the cycle */
		sink = p = buf[p];
	for (int k = 0; k < reps && k < TL_CALIBRATE_MAX_REPS; k++) {
		size_t p = 0;
		uint64_t t0 = now_ns();

		for (size_t i = 0; i < steps; i++)
			p = buf[p];
		v[got++] = (double)(now_ns() - t0) / (double)steps;
		sink = p;
	}
	free(buf);
	free(order);
	return figure(v, got);
}

/* The data caches from sysfs: level and size, smallest first. */
static int caches(struct tl_calibration *c)
{
	int n = 0;

	for (int i = 0; i < 8 && n < TL_CALIBRATE_MAX_LEVELS - 1; i++) {
		char path[96], type[32] = "", size[32] = "";
		FILE *f;
		int level = 0;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (!(f = fopen(path, "r")))
			break;
		if (!fgets(type, sizeof(type), f))
			type[0] = 0;
		fclose(f);
		if (!strncmp(type, "Instruction", 11))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%d", &level) != 1)
				level = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if ((f = fopen(path, "r"))) {
			if (!fgets(size, sizeof(size), f))
				size[0] = 0;
			fclose(f);
		}
		c->mem[n].level = level;
		c->mem[n].cache_bytes = strtoull(size, NULL, 10) * (strchr(size, 'M') ? 1048576ull : 1024ull);
		n++;
	}
	return n;
}

int tl_calibrate(struct tl_calibration *c, int reps)
{
	int nl;

	memset(c, 0, sizeof(*c));
	c->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (c->ncpus < 1)
		c->ncpus = 1;
	if (reps < 3)
		reps = 3;
	c->reps = reps;
	if (omp_costs(c, reps) < 0)
		return -1;
	c->context_switch = context_switch(reps);
	c->page_fault = page_fault(reps);
	/* memory: half of each data cache, then memory at 4 times the last (at most 128 MB) */
	nl = caches(c);
	for (int i = 0; i < nl; i++) {
		c->mem[i].bytes = c->mem[i].cache_bytes / 2;
		c->mem[i].latency = chase(c->mem[i].bytes, reps);
	}
	if (nl) {
		c->mem[nl].level = 0; /* memory */
		c->mem[nl].bytes = c->mem[nl - 1].cache_bytes * 4;
		if (c->mem[nl].bytes > (128u << 20))
			c->mem[nl].bytes = 128u << 20;
		c->mem[nl].latency = chase(c->mem[nl].bytes, reps);
		c->nmem = nl + 1;
	}
	return 0;
}
