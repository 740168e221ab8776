/*
 * wl_states.c - workloads that put named threads into known thread states
 * for a known time, and write that ground truth as JSON.
 *
 *   wl_states SCENARIO [--truth FILE] [--scale X] [--cpu N]
 *
 * Each scenario starts its threads, lets them meet at a barrier (released by
 * the main thread, so that no scenario thread wakes another at the start),
 * produces one situation on purpose and measures it from inside with
 * CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID (see workload.h): the time a
 * thread spent off its CPU inside a blocking call, or during a window in
 * which it only wanted to run.  The live tests record the workload with
 * threadlens and compare the report's per-thread state times with this
 * truth.  The expectations, per scenario, are in docs/TESTING.md.
 *
 * With WL_CG_STAT set to a cgroup's cpu.stat (the test of diagnose's
 * cpu-throttled runs the workload in a cgroup of half a CPU), each thread
 * reads it when its body ends, and the main thread once every scenario
 * thread is joined: a thread's truth has the throttles counted by its
 * body's end and by the joins, cg_throttled_end and cg_throttled
 * (nr_throttled), with their time in ns (throttled_time, or
 * throttled_usec), cg_throttled_end_ns and cg_throttled_ns.  The thread
 * was held back at least as often as the first says, at most as the
 * second: one that ends first misses the throttles of the others' last
 * moments, and what runs after the joins (ASan's leak check: 5 ms) holds
 * back only the main thread.
 *
 * Invariants: thread names are unique within a scenario; every scenario
 * thread is joined before the truth is written; a scenario runs in well
 * under 2 s at --scale 1.  Exit status: 0 ok, 1 failure, 2 usage,
 * 77 (WL_EXIT_SKIP) the scenario cannot run here (e.g. no SCHED_FIFO).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "workload.h"

#define MS 1000000ull
#define MAX_THREADS 4

struct run;

struct wthread {
	const char *name;
	int pin;                              /* pin to the contention CPU */
	int fifo_prio;                        /* 0: SCHED_OTHER, else SCHED_FIFO at this priority */
	void (*before)(struct wthread *self); /* before the barrier; may be NULL */
	void (*body)(struct wthread *self);
	struct run *run;
	pthread_t pt;
	int tid;
	int err;              /* errno value of a failure, 0 if none */
	const char *err_what; /* what failed */
	/* measurements */
	uint64_t cpu_total;                  /* thread CPU time at the end of its life */
	uint64_t ss_run, ss_wait, ss_slices; /* the kernel's schedstat then */
	struct wl_acct sync;                 /* futex waits: the start barrier, mutex_lock */
	struct wl_acct sleep;                /* clock_nanosleep */
	struct wl_acct io;                   /* pread */
	struct wl_acct yield;                /* sched_yield */
	uint64_t win_wall, win_cpu;          /* a window in which it only wanted to run */
	uint64_t cg_n, cg_ns;                /* WL_CG_STAT's throttles when its body ended */
	uint64_t count;                      /* scenario specific: bursts, yields, ... */
};

struct io_file {
	char path[512];
	int fd;
	int direct; /* 1: O_DIRECT, 0: buffered + POSIX_FADV_DONTNEED */
	size_t size, block;
	uint64_t passes, bytes;
};

struct run {
	double scale;
	int cpu;     /* the contention CPU */
	int pin_all; /* --cpu: every thread goes on `cpu` */
	int nthreads;
	struct wthread th[MAX_THREADS];
	pthread_barrier_t start;
	pthread_mutex_t mutex;
	atomic_int done;
	struct io_file io;
	char skip[256]; /* why the scenario cannot run here, if it cannot */
	/* from start to joins: wall time, the most idle time of a CPU other than `cpu` (-1 unknown) */
	uint64_t wall_ns;
	int64_t other_idle_ns;
	uint64_t cg_n, cg_ns; /* WL_CG_STAT's throttles at the joins (each thread's at its body's end: wthread) */
};

struct scenario {
	const char *name;
	const char *help;
	int (*setup)(struct run *r);     /* may be NULL; returns 0 or an exit status */
	void (*teardown)(struct run *r); /* may be NULL */
	void (*truth)(struct run *r, struct wl_truth *t);
	struct wthread threads[MAX_THREADS]; /* templates; name NULL ends */
};

static uint64_t scaled(const struct run *r, uint64_t ns)
{
	return (uint64_t)((double)ns * r->scale);
}

static void fail(struct wthread *self, const char *what, int err)
{
	if (!self->err) {
		self->err = err ? err : EINVAL;
		self->err_what = what;
	}
}

static void sleep_ns(struct wthread *self, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	wl_acct_begin(&self->sleep);
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	wl_acct_end(&self->sleep);
}

/* Spin for a wall-clock window and remember its wall and CPU time. */
static void spin_window(struct wthread *self, uint64_t ns)
{
	uint64_t t0 = wl_now_ns(), c0 = wl_cpu_ns();

	wl_spin_until(t0 + ns);
	self->win_cpu = wl_cpu_ns() - c0;
	self->win_wall = wl_now_ns() - t0;
}

static uint64_t win_off(const struct wthread *th)
{
	return th->win_wall > th->win_cpu ? th->win_wall - th->win_cpu : 0;
}

static struct wthread *thread_named(struct run *r, const char *name)
{
	for (int i = 0; i < r->nthreads; i++)
		if (!strcmp(r->th[i].name, name))
			return &r->th[i];
	return NULL;
}

/* A truth entry with what every thread has: tid, CPU time, and for a
 * human reading a failure, the kernel's schedstat (its run-queue wait is
 * what a trace shows as the ready states). */
/*
 * Its CPU time is what the kernel charged it: EXECUTING and INTERRUPTED, for
 * a kernel without IRQ_TIME_ACCOUNTING (this one: a thread's clock runs on
 * while its CPU serves an interrupt; live/yield's busy thread read
 * EXECUTING 6.7 ms short, with 6.8 ms INTERRUPTED), and a kernel with it
 * takes the interrupts out of the task clock, which the trace knows
 * (CLOCK_TAKEN, the report's dated run).  As wl_kernel's truth.
 */
static void truth_cpu(struct wl_truth_thread *tt, uint64_t cpu_total)
{
	wl_truth_set(tt, "EXECUTING+INTERRUPTED_ns", (int64_t)cpu_total);
}

static struct wl_truth_thread *truth_thread(struct wl_truth *t, const struct wthread *th)
{
	struct wl_truth_thread *tt = wl_truth_add(t, th->name, th->tid);

	wl_truth_set(tt, "cpu_ns", (int64_t)th->cpu_total);
	wl_truth_set(tt, "schedstat_wait_ns", (int64_t)th->ss_wait);
	wl_truth_set(tt, "schedstat_slices", (int64_t)th->ss_slices);
	if (getenv("WL_CG_STAT")) {
		wl_truth_set(tt, "cg_throttled_end", (int64_t)th->cg_n);
		wl_truth_set(tt, "cg_throttled_end_ns", (int64_t)th->cg_ns);
		wl_truth_set(tt, "cg_throttled", (int64_t)th->run->cg_n);
		wl_truth_set(tt, "cg_throttled_ns", (int64_t)th->run->cg_ns);
	}
	return tt;
}

/* The throttles WL_CG_STAT's cgroup has counted, and their time in ns (cgroup v1 or v2); zeros when unreadable. */
static void cg_throttles(uint64_t *n, uint64_t *ns)
{
	const char *path = getenv("WL_CG_STAT");
	FILE *f = path ? fopen(path, "r") : NULL;
	char key[64];
	unsigned long long v;

	*n = *ns = 0;
	if (!f)
		return;
	while (fscanf(f, "%63s %llu", key, &v) == 2)
		if (!strcmp(key, "nr_throttled"))
			*n = v;
		else if (!strcmp(key, "throttled_time"))
			*ns = v;
		else if (!strcmp(key, "throttled_usec"))
			*ns = v * 1000;
	fclose(f);
}

/* ---- spin: EXECUTING ---- */

static void spin_body(struct wthread *self)
{
	wl_spin_cpu(scaled(self->run, 300 * MS));
}

static void spin_truth(struct run *r, struct wl_truth *t)
{
	struct wthread *s = thread_named(r, "spinner");
	struct wl_truth_thread *tt = truth_thread(t, s);

	truth_cpu(tt, s->cpu_total);
}

/* ---- sleep: SLEEPING ---- */

static void sleep_body(struct wthread *self)
{
	for (int i = 0; i < 10; i++)
		sleep_ns(self, scaled(self->run, 30 * MS));
}

static void sleep_truth(struct run *r, struct wl_truth *t)
{
	struct wthread *s = thread_named(r, "sleeper");
	struct wl_truth_thread *tt = truth_thread(t, s);

	wl_truth_set(tt, "SLEEPING_ns", (int64_t)s->sleep.off_ns);
	truth_cpu(tt, s->cpu_total);
	wl_truth_set(tt, "sleeps", (int64_t)s->sleep.calls);
	wl_truth_set(tt, "runq_after_sleeps_ns", (int64_t)s->sleep.runq_ns);
}

/* ---- mutex: SYNC_WAIT ---- */

/* The holder takes the lock before the barrier, so the waiter, released
 * at the same instant, always finds it taken. */
static void holder_before(struct wthread *self)
{
	int e = pthread_mutex_lock(&self->run->mutex);

	if (e)
		fail(self, "pthread_mutex_lock", e);
}

static void holder_body(struct wthread *self)
{
	sleep_ns(self, scaled(self->run, 200 * MS));
	pthread_mutex_unlock(&self->run->mutex);
}

static void waiter_body(struct wthread *self)
{
	int e;

	wl_acct_begin(&self->sync);
	e = pthread_mutex_lock(&self->run->mutex);
	wl_acct_end(&self->sync);
	if (e)
		fail(self, "pthread_mutex_lock", e);
	else
		pthread_mutex_unlock(&self->run->mutex);
}

static void mutex_truth(struct run *r, struct wl_truth *t)
{
	struct wthread *h = thread_named(r, "holder"), *w = thread_named(r, "waiter");
	struct wl_truth_thread *th = truth_thread(t, h), *tw = truth_thread(t, w);

	/* sync covers the start barrier too: it is a futex wait as well. */
	wl_truth_set(th, "SLEEPING_ns", (int64_t)h->sleep.off_ns);
	wl_truth_set(th, "SYNC_WAIT_ns", (int64_t)h->sync.off_ns);
	truth_cpu(th, h->cpu_total);
	wl_truth_set(tw, "SYNC_WAIT_ns", (int64_t)w->sync.off_ns);
	wl_truth_set(tw, "runq_after_waits_ns", (int64_t)w->sync.runq_ns);
	truth_cpu(tw, w->cpu_total);
	wl_truth_set(tw, "SLEEPING_ns", 0);
}

/* ---- io: IO_WAIT ---- */

/* A directory on a real block device: page-cache-only file systems would
 * never wait for I/O. */
static int disk_dir_ok(const char *dir)
{
	struct statfs fs;

	if (!dir || !*dir || statfs(dir, &fs) < 0 || access(dir, W_OK) < 0)
		return 0;
	return fs.f_type != TMPFS_MAGIC && fs.f_type != RAMFS_MAGIC;
}

static int io_setup(struct run *r)
{
	const char *dirs[] = { getenv("TL_IO_DIR"), getenv("TMPDIR"), "/var/tmp", "." };
	struct io_file *io = &r->io;
	const char *dir = NULL;
	char *buf;
	int fd;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !dir; i++)
		if (disk_dir_ok(dirs[i]))
			dir = dirs[i];
	if (!dir) {
		snprintf(r->skip, sizeof(r->skip),
		         "no writable directory on a block device (tried $TL_IO_DIR, $TMPDIR, /var/tmp, .)");
		return WL_EXIT_SKIP;
	}
	snprintf(io->path, sizeof(io->path), "%s/wl_states-io.%d", dir, (int)getpid());
	io->size = 32u << 20;
	io->block = 1u << 20;
	fd = open(io->path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0) {
		fprintf(stderr, "wl_states: cannot create '%s': %s\n", io->path, strerror(errno));
		return 1;
	}
	buf = malloc(io->block);
	if (!buf) {
		close(fd);
		return 1;
	}
	for (size_t i = 0; i < io->block; i++)
		buf[i] = (char)(i * 131u + 7u);
	for (size_t off = 0; off < io->size; off += io->block)
		if (write(fd, buf, io->block) != (ssize_t)io->block) {
			fprintf(stderr, "wl_states: cannot write '%s': %s\n", io->path, strerror(errno));
			free(buf);
			close(fd);
			unlink(io->path);
			return 1;
		}
	free(buf);
	/* On disk, so that dropping the cache leaves nothing dirty to write back. */
	fsync(fd);
	close(fd);

	io->fd = open(io->path, O_RDONLY | O_DIRECT);
	io->direct = io->fd >= 0;
	if (!io->direct) {
		io->fd = open(io->path, O_RDONLY);
		if (io->fd < 0) {
			fprintf(stderr, "wl_states: cannot open '%s': %s\n", io->path, strerror(errno));
			unlink(io->path);
			return 1;
		}
	}
	return 0;
}

static void io_teardown(struct run *r)
{
	if (r->io.fd >= 0)
		close(r->io.fd);
	unlink(r->io.path);
}

static void reader_body(struct wthread *self)
{
	struct io_file *io = &self->run->io;
	uint64_t target = scaled(self->run, 150 * MS), t0 = wl_now_ns();
	void *buf;
	int e;

	e = posix_memalign(&buf, 4096, io->block);
	if (e) {
		fail(self, "posix_memalign", e);
		return;
	}
	/*
	 * This VM's disk reads at ~1.7 GB/s (the host caches it), so one pass
	 * waits only ~20 ms: read passes until the wait is clearly measurable,
	 * with a wall-time cap so that a slow disk does not make it long.
	 */
	while (io->passes < 40 && self->io.off_ns < target && wl_now_ns() - t0 < scaled(self->run, 1000 * MS)) {
		if (!io->direct) {
			/* Without O_DIRECT, drop this file's clean pages so that the
			 * reads below go to the disk again. */
			posix_fadvise(io->fd, 0, 0, POSIX_FADV_DONTNEED);
		}
		for (size_t off = 0; off < io->size; off += io->block) {
			ssize_t n;

			wl_acct_begin(&self->io);
			n = pread(io->fd, buf, io->block, (off_t)off);
			wl_acct_end(&self->io);
			if (n != (ssize_t)io->block) {
				fail(self, "pread", n < 0 ? errno : EIO);
				free(buf);
				return;
			}
			io->bytes += (uint64_t)n;
		}
		io->passes++;
	}
	free(buf);
}

static void io_truth(struct run *r, struct wl_truth *t)
{
	struct wthread *rd = thread_named(r, "reader");
	struct wl_truth_thread *tt = truth_thread(t, rd);

	snprintf(t->notes, sizeof(t->notes), "%s reads of '%.160s'",
	         r->io.direct ? "O_DIRECT" : "buffered (fadvise DONTNEED)", r->io.path);
	wl_truth_set(tt, "IO_WAIT_ns", (int64_t)rd->io.off_ns);
	truth_cpu(tt, rd->cpu_total);
	wl_truth_set(tt, "io_wall_ns", (int64_t)rd->io.wall_ns);
	wl_truth_set(tt, "io_cpu_ns", (int64_t)rd->io.cpu_ns);
	wl_truth_set(tt, "io_calls", (int64_t)rd->io.calls);
	wl_truth_set(tt, "runq_after_io_ns", (int64_t)rd->io.runq_ns);
	wl_truth_set(tt, "io_bytes", (int64_t)r->io.bytes);
	wl_truth_set(tt, "direct", r->io.direct);
}

/* ---- preempt: READY_PREEMPT ---- */

static void victim_body(struct wthread *self)
{
	spin_window(self, scaled(self->run, 600 * MS));
	atomic_store(&self->run->done, 1);
}

/*
 * Wakes every 20 ms and spins 5 ms.  Being SCHED_FIFO on the victim's CPU,
 * each wakeup preempts the victim at once, and the victim cannot finish
 * while a burst runs, so every burst lies inside the victim's window.
 */
static void fifo_body(struct wthread *self)
{
	uint64_t next = wl_now_ns();

	for (;;) {
		struct timespec ts;

		next += 20 * MS;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		wl_acct_begin(&self->sleep);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		wl_acct_end(&self->sleep);
		if (atomic_load(&self->run->done))
			break;
		self->win_cpu += wl_spin_cpu(5 * MS);
		self->count++;
	}
}

static void preempt_truth(struct run *r, struct wl_truth *t)
{
	struct wthread *v = thread_named(r, "victim"), *f = thread_named(r, "fifo");
	struct wl_truth_thread *tv = truth_thread(t, v), *tf = truth_thread(t, f);

	snprintf(t->notes, sizeof(t->notes), "victim and fifo (SCHED_FIFO 10) on CPU %d", r->cpu);
	/*
	 * While the FIFO thread spins, the victim waits because it was preempted;
	 * any other off-CPU time in the window (a kworker, the tick) is a wait of
	 * some kind too, so the sum of the ready states is the whole off-CPU time.
	 */
	wl_truth_set(tv, "READY_PREEMPT_ns", (int64_t)f->win_cpu);
	wl_truth_set(tv, "READY_PREEMPT+READY_QUANTUM+RUNNABLE_ns", (int64_t)win_off(v));
	truth_cpu(tv, v->cpu_total);
	wl_truth_set(tv, "window_wall_ns", (int64_t)v->win_wall);
	wl_truth_set(tv, "window_cpu_ns", (int64_t)v->win_cpu);
	truth_cpu(tf, f->cpu_total);
	wl_truth_set(tf, "SLEEPING_ns", (int64_t)f->sleep.off_ns);
	wl_truth_set(tf, "burst_cpu_ns", (int64_t)f->win_cpu);
	wl_truth_set(tf, "bursts", (int64_t)f->count);
}

/* ---- quantum: READY_QUANTUM ---- */

static void busy_body(struct wthread *self)
{
	spin_window(self, scaled(self->run, 600 * MS));
}

static void quantum_truth(struct run *r, struct wl_truth *t)
{
	snprintf(t->notes, sizeof(t->notes), "busyA and busyB on CPU %d", r->cpu);
	for (int i = 0; i < r->nthreads; i++) {
		struct wthread *b = &r->th[i];
		struct wl_truth_thread *tt = truth_thread(t, b);

		/*
		 * Each waits for its turn while the other (or any other busy task on
		 * the CPU) runs: that is READY_QUANTUM, nearly all the off-CPU time.
		 * A task woken on the CPU (a kworker) preempts either of them for a
		 * moment (READY_PREEMPT): within the tolerance, and the sum of the
		 * ready states must match the off-CPU time closely anyway.
		 */
		wl_truth_set(tt, "READY_QUANTUM_ns", (int64_t)win_off(b));
		wl_truth_set(tt, "READY_PREEMPT+READY_QUANTUM+RUNNABLE_ns", (int64_t)win_off(b));
		truth_cpu(tt, b->cpu_total);
		wl_truth_set(tt, "window_wall_ns", (int64_t)b->win_wall);
		wl_truth_set(tt, "window_cpu_ns", (int64_t)b->win_cpu);
		/* affinity-bound: its wait beside an idle CPU it may not use is at least win_off - (wall - idle) */
		wl_truth_set(tt, "scenario_wall_ns", (int64_t)r->wall_ns);
		wl_truth_set(tt, "other_cpu_idle_ns", r->other_idle_ns);
	}
}

/* ---- yield: READY_YIELD ---- */

static void yielder_body(struct wthread *self)
{
	uint64_t t0 = wl_now_ns(), c0 = wl_cpu_ns(), end = t0 + scaled(self->run, 600 * MS);

	while (wl_now_ns() < end) {
		wl_acct_begin(&self->yield);
		sched_yield();
		wl_acct_end(&self->yield);
	}
	self->win_cpu = wl_cpu_ns() - c0;
	self->win_wall = wl_now_ns() - t0;
}

static void yield_truth(struct run *r, struct wl_truth *t)
{
	struct wthread *y = thread_named(r, "yielder"), *b = thread_named(r, "busy");
	struct wl_truth_thread *ty = truth_thread(t, y), *tb = truth_thread(t, b);
	uint64_t off = win_off(y);
	/* A yielding thread never sleeps: all its off-CPU time in sched_yield
	 * is run-queue wait, which wl_acct keeps apart from sleep. */
	uint64_t in_yield = y->yield.off_ns + y->yield.runq_ns;

	snprintf(t->notes, sizeof(t->notes), "yielder and busy on CPU %d", r->cpu);
	/* Off-CPU time that began inside sched_yield is a yield; the rest of
	 * the window's off-CPU time began elsewhere (a tick or a wakeup). */
	wl_truth_set(ty, "READY_YIELD_ns", (int64_t)in_yield);
	wl_truth_set(ty, "READY_PREEMPT+READY_QUANTUM_ns", (int64_t)(off > in_yield ? off - in_yield : 0));
	truth_cpu(ty, y->cpu_total);
	wl_truth_set(ty, "window_wall_ns", (int64_t)y->win_wall);
	wl_truth_set(ty, "window_cpu_ns", (int64_t)y->win_cpu);
	wl_truth_set(ty, "yields", (int64_t)y->yield.calls);
	wl_truth_set(ty, "yields_off_cpu", (int64_t)y->yield.off_calls);
	wl_truth_set(tb, "READY_PREEMPT+READY_QUANTUM+RUNNABLE_ns", (int64_t)win_off(b));
	truth_cpu(tb, b->cpu_total);
	wl_truth_set(tb, "window_wall_ns", (int64_t)b->win_wall);
	wl_truth_set(tb, "window_cpu_ns", (int64_t)b->win_cpu);
}

static const struct scenario scenarios[] = {
	{ "spin",
	  "'spinner' runs 300 ms of CPU time: EXECUTING",
	  NULL,
	  NULL,
	  spin_truth,
	  { { .name = "spinner", .body = spin_body } } },
	{ "sleep",
	  "'sleeper' sleeps 10 x 30 ms: SLEEPING",
	  NULL,
	  NULL,
	  sleep_truth,
	  { { .name = "sleeper", .body = sleep_body } } },
	{ "mutex",
	  "'waiter' blocks 200 ms on a mutex that 'holder' holds while sleeping: SYNC_WAIT",
	  NULL,
	  NULL,
	  mutex_truth,
	  { { .name = "holder", .before = holder_before, .body = holder_body },
	    { .name = "waiter", .body = waiter_body } } },
	{ "io",
	  "'reader' reads a 32 MB file with O_DIRECT until >= 150 ms of waiting: IO_WAIT",
	  io_setup,
	  io_teardown,
	  io_truth,
	  { { .name = "reader", .body = reader_body } } },
	{ "preempt",
	  "'fifo' (SCHED_FIFO) preempts 'victim' 5 ms every 20 ms for 600 ms: READY_PREEMPT",
	  NULL,
	  NULL,
	  preempt_truth,
	  { { .name = "victim", .pin = 1, .body = victim_body },
	    { .name = "fifo", .pin = 1, .fifo_prio = 10, .body = fifo_body } } },
	{ "quantum",
	  "'busyA' and 'busyB' share one CPU for 600 ms: READY_QUANTUM",
	  NULL,
	  NULL,
	  quantum_truth,
	  { { .name = "busyA", .pin = 1, .body = busy_body }, { .name = "busyB", .pin = 1, .body = busy_body } } },
	{ "yield",
	  "'yielder' calls sched_yield for 600 ms beside 'busy' on one CPU: READY_YIELD",
	  NULL,
	  NULL,
	  yield_truth,
	  { { .name = "yielder", .pin = 1, .body = yielder_body }, { .name = "busy", .pin = 1, .body = busy_body } } },
};
#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static void *trampoline(void *arg)
{
	struct wthread *self = arg;
	struct run *r = self->run;
	int e;

	self->tid = wl_gettid();
	wl_acct_init(&self->sync);
	wl_acct_init(&self->sleep);
	wl_acct_init(&self->io);
	wl_acct_init(&self->yield);
	wl_set_name(self->name);
	if ((self->pin || r->pin_all) && (e = wl_pin(r->cpu)) != 0)
		fail(self, "pthread_setaffinity_np", e);
	if (self->fifo_prio) {
		struct sched_param sp = { .sched_priority = self->fifo_prio };

		e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (e)
			fail(self, "pthread_setschedparam(SCHED_FIFO)", e);
	}
	if (self->before)
		self->before(self);
	wl_acct_begin(&self->sync);
	pthread_barrier_wait(&r->start);
	wl_acct_end(&self->sync);
	if (!self->err)
		self->body(self);
	else
		atomic_store(&r->done, 1); /* let a partner that waits for us finish */
	cg_throttles(&self->cg_n, &self->cg_ns);
	self->cpu_total = wl_cpu_ns();
	wl_schedstat(&self->ss_run, &self->ss_wait, &self->ss_slices);
	wl_acct_release(&self->sync);
	wl_acct_release(&self->sleep);
	wl_acct_release(&self->io);
	wl_acct_release(&self->yield);
	return NULL;
}

/*
 * A scenario that cannot run here says why, on stderr and, for the test
 * runner, in the truth file as {"scenario": S, "skip": REASON}.  Returns
 * the exit status to use.
 */
static int finish_skip(const struct scenario *sc, const struct run *r, const char *truth_path, int status)
{
	FILE *f;

	if (status != WL_EXIT_SKIP)
		return status;
	fprintf(stderr, "wl_states: %s: cannot run here: %s\n", sc->name, r->skip);
	if (!truth_path || !strcmp(truth_path, "-"))
		return status;
	f = fopen(truth_path, "w");
	if (f) {
		fprintf(f, "{\"scenario\": \"%s\", \"skip\": \"%s\"}\n", sc->name, r->skip);
		fclose(f);
	}
	return status;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: wl_states SCENARIO [--truth FILE] [--scale X] [--cpu N]\n\n"
	             "Puts named threads into known states and writes the measured ground truth\n"
	             "as JSON to FILE (default: stdout).  --scale multiplies every duration.\n"
	             "--cpu pins every thread to CPU N (default: only the contending ones, on CPU 1\n"
	             "if it exists).\n\n"
	             "scenarios:\n");
	for (size_t i = 0; i < NSCENARIOS; i++)
		fprintf(out, "  %-8s %s\n", scenarios[i].name, scenarios[i].help);
	fprintf(out, "\nexample:\n  threadlens record -o t.tl -- wl_states mutex --truth truth.json\n");
}

int main(int argc, char **argv)
{
	const struct scenario *sc = NULL;
	const char *truth_path = NULL;
	static struct run r;
	static struct wl_truth truth;
	uint64_t steal0, wall0, idle0[64];
	int status = 0, e, ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);

	r.scale = 1.0;
	r.io.fd = -1;
	r.cpu = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--truth") && i + 1 < argc) {
			truth_path = argv[++i];
		} else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
			char *end;

			r.scale = strtod(argv[++i], &end);
			if (*end || !(r.scale > 0 && r.scale <= 100)) {
				fprintf(stderr, "wl_states: bad --scale '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			char *end;
			long cpu = strtol(argv[++i], &end, 10);

			if (*end || cpu < 0 || cpu >= CPU_SETSIZE) {
				fprintf(stderr, "wl_states: bad --cpu '%s'\n", argv[i]);
				return 2;
			}
			r.cpu = (int)cpu;
			r.pin_all = 1;
		} else if (argv[i][0] != '-' && !sc) {
			for (size_t k = 0; k < NSCENARIOS; k++)
				if (!strcmp(argv[i], scenarios[k].name))
					sc = &scenarios[k];
			if (!sc) {
				fprintf(stderr, "wl_states: unknown scenario '%s'\n", argv[i]);
				return 2;
			}
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!sc) {
		usage(stderr);
		return 2;
	}

	if (r.cpu < 0)
		r.cpu = wl_contention_cpu();
	pthread_mutex_init(&r.mutex, NULL);
	for (r.nthreads = 0; r.nthreads < MAX_THREADS && sc->threads[r.nthreads].name; r.nthreads++) {
		r.th[r.nthreads] = sc->threads[r.nthreads];
		r.th[r.nthreads].run = &r;
	}
	if (sc->setup && (status = sc->setup(&r)) != 0)
		return finish_skip(sc, &r, truth_path, status);
	/* The main thread is the last to arrive, so it is the one that wakes everybody. */
	pthread_barrier_init(&r.start, NULL, (unsigned)r.nthreads + 1);
	steal0 = wl_steal_ns();
	wall0 = wl_now_ns();
	for (int c = 0; c < ncpus && c < 64; c++)
		idle0[c] = c == r.cpu ? UINT64_MAX : wl_cpu_idle_ns(c);
	for (int i = 0; i < r.nthreads; i++) {
		e = pthread_create(&r.th[i].pt, NULL, trampoline, &r.th[i]);
		if (e) {
			fprintf(stderr, "wl_states: cannot create thread '%s': %s\n", r.th[i].name, strerror(e));
			exit(1);
		}
	}
	pthread_barrier_wait(&r.start);
	for (int i = 0; i < r.nthreads; i++)
		pthread_join(r.th[i].pt, NULL);
	cg_throttles(&r.cg_n, &r.cg_ns);
	truth.steal_ns = wl_steal_ns() - steal0;
	r.wall_ns = wl_now_ns() - wall0;
	r.other_idle_ns = -1;
	for (int c = 0; c < ncpus && c < 64; c++) {
		uint64_t now = idle0[c] == UINT64_MAX ? UINT64_MAX : wl_cpu_idle_ns(c);

		if (now != UINT64_MAX && (int64_t)(now - idle0[c]) > r.other_idle_ns)
			r.other_idle_ns = (int64_t)(now - idle0[c]);
	}
	if (sc->teardown)
		sc->teardown(&r);

	for (int i = 0; i < r.nthreads; i++) {
		struct wthread *th = &r.th[i];

		if (!th->err)
			continue;
		/* Not being allowed to use a policy is the machine's limit, not a bug. */
		if (th->err == EPERM) {
			if (status == 0)
				status = WL_EXIT_SKIP;
			snprintf(r.skip, sizeof(r.skip), "thread '%s': %s failed: %s", th->name, th->err_what,
			         strerror(th->err));
			continue;
		}
		fprintf(stderr, "wl_states: %s: thread '%s': %s failed: %s\n", sc->name, th->name, th->err_what,
		        strerror(th->err));
		status = 1;
	}
	if (status)
		return finish_skip(sc, &r, truth_path, status);

	snprintf(truth.scenario, sizeof(truth.scenario), "%s", sc->name);
	truth.scale = r.scale;
	sc->truth(&r, &truth);
	if (wl_truth_write(&truth, truth_path) < 0) {
		fprintf(stderr, "wl_states: cannot write '%s': %s\n", truth_path ? truth_path : "-", strerror(errno));
		return 1;
	}
	return 0;
}
