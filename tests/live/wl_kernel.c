/*
 * wl_kernel.c - workloads for the kernel oracle (tests/live/kernel.sh): the
 * situations the "Numbers you can trust" issue found threadlens wrong on,
 * whose truth is the kernel's own accounting of each thread (the self-check
 * in the report) and each thread's own CPU clock.
 *
 *   pingpong  'ping' on CPU 0 and 'pong' on the last CPU hand a byte back
 *             and forth through two pipes, 20000 round trips: each wakes
 *             the other onto an idle CPU (with perf delivery, the switches
 *             out of idle went missing and pong read +95%)
 *   contend   'lockA' and 'lockB' take one mutex in turn for 500 ms, 20 us
 *             inside and 20 us outside: 10k+ futex waits per second
 *   convoy    'conv0'..'conv3' take one mutex for 500 ms, 300 us inside and
 *             100 us outside, on a CPU only: the lock passes along a convoy
 *             of waiters, and no holder ever sleeps holding it
 *   pipeline  'producer' -> queue -> 'filter' -> queue -> 'consumer', 20000
 *             items through mutex + condition-variable queues of 16
 *   poll      'poller' waits on a condition nobody signals with a 100 us
 *             timeout, for 500 ms: thousands of timer wakeups a second that
 *             find nothing to do (diagnose: a wake storm)
 *   migrate   'migrant' moves itself between CPU 0 and the last CPU every
 *             200 us of work, for 500 ms (diagnose: a migration storm)
 *   serial    'maker' computes 40 items of 5 ms each and queues them; 'userA'
 *             and 'userB' take them and work 100 us on each: they wait for
 *             the maker nearly all the time (diagnose: a bottleneck)
 *   net       'sender' (CPU 0) sends 8 KiB UDP datagrams over loopback to
 *             'receiver' (last CPU) for 500 ms: the receive path runs as
 *             NET_RX softirq on the sender's CPU, inside its time
 *             (diagnose: interrupt interference)
 *   imbalance 'worker0' and 'worker1' run 60 rounds of region "blocks" and
 *             meet at a barrier; a static split of uneven blocks gives
 *             worker0 1 ms of work and worker1 3 ms per round (diagnose:
 *             barrier imbalance)
 *   balanced  the same with 2 ms each (healthy)
 *   tiny      'parent' hands 'helper0' and 'helper1' 20 us of work each
 *             (region "tiny", the parent's around its dispatch and join),
 *             2000 times: they wait longer than they work (diagnose:
 *             pointless parallelism)
 *   oversub   four workers 'w0'..'w3' on the machine's CPUs: each round all
 *             compute 2 ms at once (more busy threads than CPUs), then
 *             'w0' merges for 4 ms while the others wait (one CPU used),
 *             30 rounds (diagnose: oversubscription alternating with idle
 *             CPUs); they meet through a condition variable, not a lock
 *   fit       the same work on two workers: 4 ms each, then the merge
 *             (healthy: never more busy threads than two CPUs)
 *   baton     't0', 't1', 't2' pass a turn round on a condition variable
 *             and compute 4 ms on each of their 30 turns, outside the
 *             mutex: one at a time, a CPU idle (diagnose: serialized
 *             threads, as Python's global interpreter lock makes them)
 *   inversion 'low' (SCHED_FIFO 10) holds a mutex for 30 ms of work;
 *             'high' (FIFO 30) wants it 2 ms later and waits; 'medium'
 *             (FIFO 20) computes 20 ms from 4 ms on, preempting low: all
 *             on CPU 0, 5 rounds of 80 ms (diagnose: priority inversion)
 *   inherit   the same with a priority-inheritance mutex: low runs at
 *             high's priority while high waits (healthy: no inversion)
 *   ioqueue   'reader' reads 64 KiB with O_DIRECT for 400 ms and queues
 *             each to 'consumer', which works 20 us on it (diagnose: an
 *             I/O-bound thread and its starving consumer)
 *   dio       'writer' writes and 'reader' reads 4 KiB blocks with O_DIRECT
 *             for 400 ms each, every call waiting for the disk (a direct-I/O
 *             writer read EXECUTING 24% against the kernel's 32%), in files
 *             next to the truth file
 *
 * The truth file names each thread with its tid and its CPU time
 * (CLOCK_THREAD_CPUTIME_ID at its end) as "EXECUTING+INTERRUPTED_ns": the
 * checkers compare the report with both; the threads of contend and
 * convoy also give the mutex's address ("lock_addr": its futex word) and
 * its offset in the static that holds it ("lock_offset").
 * Exit status 77 (and a "skip" truth) when a scenario cannot run here.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <threadlens.h>

#include "workload.h"

#define MS 1000000ull
#define US 1000ull
#define MAXT 4
#define QCAP 16

struct run;

struct th {
	const char *name;
	int cpu;  /* -1: not pinned; -2: the last CPU */
	int arg;  /* the body's parameter (blocks of work) */
	int fifo; /* > 0: SCHED_FIFO at this priority */
	void (*body)(struct th *self);
	struct run *run;
	pthread_t pt;
	int tid;
	int err;
	const char *err_what;
	uint64_t cpu_total;
	uint64_t count;
};

struct queue {
	pthread_mutex_t m;
	pthread_cond_t not_empty, not_full;
	int items[QCAP];
	int head, n;
};

struct run {
	int nthreads;
	struct th th[MAXT];
	pthread_barrier_t start;
	pthread_barrier_t bar; /* all threads: rounds of imbalance, balanced and tiny */
	struct cbar {          /* oversub, fit: a barrier on a condition variable (its waits are not a lock's) */
		pthread_mutex_t m;
		pthread_cond_t c;
		int n, count;
		unsigned gen;
	} cb;
	pthread_cond_t turn[MAXT]; /* baton: each thread's turn */
	pthread_mutex_t lock;
	atomic_int done;
	int ab[2], ba[2]; /* pipes: ping -> pong, pong -> ping */
	struct queue q1, q2;
	char dir[4096];     /* where dio's files go */
	int udp_rx, udp_tx; /* net: a socket bound on loopback, one connected to it */
	pthread_mutex_t pm; /* inversion, inherit: the contended lock */
	uint64_t t0;        /* inversion, inherit: the rounds' common start */
};

static void fail(struct th *self, const char *what, int err)
{
	if (!self->err) {
		self->err = err ? err : EINVAL;
		self->err_what = what;
	}
}

/* ---- pingpong ---- */

#define ROUNDS 20000

static void ping_body(struct th *self)
{
	struct run *r = self->run;
	char c = 'x';

	for (int i = 0; i < ROUNDS; i++) {
		if (write(r->ab[1], &c, 1) != 1 || read(r->ba[0], &c, 1) != 1) {
			fail(self, "pipe", errno);
			return;
		}
		self->count++;
	}
}

static void pong_body(struct th *self)
{
	struct run *r = self->run;
	char c;

	for (int i = 0; i < ROUNDS; i++) {
		if (read(r->ab[0], &c, 1) != 1 || write(r->ba[1], &c, 1) != 1) {
			fail(self, "pipe", errno);
			return;
		}
		self->count++;
	}
}

/* ---- contend ---- */

/* arg: 0 for 20 us inside and 20 outside, else arg us inside and a third of it outside */
static void lock_body(struct th *self)
{
	struct run *r = self->run;
	uint64_t end = wl_now_ns() + 500 * MS, in = self->arg ? (uint64_t)self->arg * US : 20 * US;
	uint64_t out = self->arg ? in / 3 : 20 * US;

	while (wl_now_ns() < end) {
		pthread_mutex_lock(&r->lock);
		wl_spin_until(wl_now_ns() + in);
		pthread_mutex_unlock(&r->lock);
		wl_spin_until(wl_now_ns() + out);
		self->count++;
	}
}

/* ---- pipeline ---- */

#define ITEMS 20000

static void put(struct queue *q, int v)
{
	pthread_mutex_lock(&q->m);
	while (q->n == QCAP)
		pthread_cond_wait(&q->not_full, &q->m);
	q->items[(q->head + q->n) % QCAP] = v;
	q->n++;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->m);
}

static int get(struct queue *q)
{
	int v;

	pthread_mutex_lock(&q->m);
	while (!q->n)
		pthread_cond_wait(&q->not_empty, &q->m);
	v = q->items[q->head];
	q->head = (q->head + 1) % QCAP;
	q->n--;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->m);
	return v;
}

static void producer_body(struct th *self)
{
	for (int i = 0; i < ITEMS; i++) {
		wl_spin_until(wl_now_ns() + 5 * US); /* make an item */
		put(&self->run->q1, i);
		self->count++;
	}
}

static void filter_body(struct th *self)
{
	for (int i = 0; i < ITEMS; i++) {
		int v = get(&self->run->q1);

		wl_spin_until(wl_now_ns() + 5 * US);
		put(&self->run->q2, v);
		self->count++;
	}
}

static void consumer_body(struct th *self)
{
	for (int i = 0; i < ITEMS; i++) {
		if (get(&self->run->q2) != i)
			fail(self, "queue order", EPROTO);
		self->count++;
	}
}

/* ---- the runner ---- */

struct scenario {
	const char *name, *help;
	struct th threads[MAXT]; /* templates; name NULL ends */
};

/*
 * Direct I/O: each thread works on its own file next to the truth file
 * (run->dir), 4 KiB at a time, for 400 ms, bypassing the page cache so that
 * every call waits for the disk.  A file system without O_DIRECT (tmpfs)
 * makes the scenario a skip.
 */
#define DIO_BLOCK 4096
#define DIO_BLOCKS 2048 /* an 8 MiB file */
#define DIO_CHUNK 16    /* ioqueue reads 16 blocks (64 KiB) at a time */

static int dio_open(struct th *self, const char *what, int flags, void **buf)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/wl_kernel-%s.tmp", self->run->dir, what);
	fd = open(path, flags | O_CREAT, 0600);
	if (fd < 0) {
		fail(self, "open (O_DIRECT)", errno);
		return -1;
	}
	unlink(path); /* gone when closed */
	if (posix_memalign(buf, DIO_BLOCK, DIO_BLOCK * DIO_CHUNK)) {
		close(fd);
		fail(self, "posix_memalign", ENOMEM);
		return -1;
	}
	memset(*buf, 'x', DIO_BLOCK);
	return fd;
}

static void dio_write_body(struct th *self)
{
	void *buf;
	int fd = dio_open(self, "write", O_WRONLY | O_DIRECT | O_DSYNC, &buf);
	uint64_t end = wl_now_ns() + 400 * MS;

	if (fd < 0)
		return;
	while (wl_now_ns() < end && !self->err) {
		if (pwrite(fd, buf, DIO_BLOCK, (off_t)(self->count % DIO_BLOCKS) * DIO_BLOCK) != DIO_BLOCK)
			fail(self, "pwrite (O_DIRECT)", errno ? errno : EIO);
		self->count++;
	}
	close(fd);
	free(buf);
}

static void dio_read_body(struct th *self)
{
	void *buf;
	int fd = dio_open(self, "read", O_RDWR | O_DIRECT, &buf);
	uint64_t end, x = 88172645463325252ull;

	if (fd < 0)
		return;
	for (int i = 0; i < DIO_BLOCKS && !self->err; i++) /* the file to read, written first */
		if (pwrite(fd, buf, DIO_BLOCK, (off_t)i * DIO_BLOCK) != DIO_BLOCK)
			fail(self, "pwrite (O_DIRECT)", errno ? errno : EIO);
	if (fsync(fd))
		fail(self, "fsync", errno);
	end = wl_now_ns() + 400 * MS;
	while (wl_now_ns() < end && !self->err) {
		size_t len = self->arg ? DIO_BLOCK * DIO_CHUNK : DIO_BLOCK; /* ioqueue: longer waits for the disk */
		off_t at;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift: random blocks */
		at = (off_t)(x % (DIO_BLOCKS / (len / DIO_BLOCK))) * (off_t)len;
		if (pread(fd, buf, len, at) != (ssize_t)len)
			fail(self, "pread (O_DIRECT)", errno ? errno : EIO);
		if (self->arg)
			put(&self->run->q1, (int)self->count); /* ioqueue: hand the block on */
		self->count++;
	}
	if (self->arg)
		put(&self->run->q1, -1);
	close(fd);
	free(buf);
}

static void poll_body(struct th *self)
{
	pthread_cond_t never = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	uint64_t end = wl_now_ns() + 500 * MS;

	pthread_mutex_lock(&m);
	while (wl_now_ns() < end) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&never, &m, &ts); /* times out: nothing to do */
		self->count++;
	}
	pthread_mutex_unlock(&m);
}

static void maker_body(struct th *self)
{
	for (int i = 0; i < 40; i++) {
		wl_spin_cpu(5 * MS);
		put(&self->run->q1, i);
		self->count++;
	}
	put(&self->run->q1, -1); /* one end mark for each user */
	put(&self->run->q1, -1);
}

static void user_body(struct th *self)
{
	while (get(&self->run->q1) >= 0) {
		wl_spin_cpu((self->arg ? (uint64_t)self->arg : 100) * US); /* arg: us of work per item */
		self->count++;
	}
}

static void migrate_body(struct th *self)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t end = wl_now_ns() + 500 * MS;
	int e;

	while (wl_now_ns() < end && !self->err) {
		if ((e = wl_pin(self->count % 2 ? 0 : (int)(ncpu - 1))) != 0)
			fail(self, "pthread_setaffinity_np", e);
		wl_spin_cpu(200 * US);
		self->count++;
	}
}

static void send_body(struct th *self)
{
	static char buf[8192];
	uint64_t end = wl_now_ns() + 500 * MS;

	while (wl_now_ns() < end)
		if (send(self->run->udp_tx, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf))
			self->count++;
	atomic_store(&self->run->done, 1);
}

static void receive_body(struct th *self)
{
	static char buf[8192];
	struct timeval tv = { 0, 20000 };

	setsockopt(self->run->udp_rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		int done = atomic_load(&self->run->done); /* read before: a timeout after it means drained */

		if (recv(self->run->udp_rx, buf, sizeof(buf), 0) > 0)
			self->count++;
		else if (done)
			break;
	}
}

/* net: a UDP socket bound on loopback and one connected to it.  0, or -1 with errno set. */
static int udp_init(struct run *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	if ((r->udp_rx = socket(AF_INET, SOCK_DGRAM, 0)) < 0 || bind(r->udp_rx, (struct sockaddr *)&a, len) ||
	    getsockname(r->udp_rx, (struct sockaddr *)&a, &len) || (r->udp_tx = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    connect(r->udp_tx, (struct sockaddr *)&a, len))
		return -1;
	return 0;
}

/* `arg` ms of work per round in region "blocks", then the barrier: 60 rounds. */
static void blocks_body(struct th *self)
{
	for (int i = 0; i < 60; i++) {
		tl_region_begin("blocks");
		wl_spin_cpu((uint64_t)self->arg * MS);
		tl_region_end("blocks");
		pthread_barrier_wait(&self->run->bar);
		self->count++;
	}
}

/* The parent of "tiny": its region spans the dispatch and the join. */
static void tiny_parent_body(struct th *self)
{
	for (int i = 0; i < 2000; i++) {
		tl_region_begin("tiny");
		pthread_barrier_wait(&self->run->bar); /* dispatch */
		pthread_barrier_wait(&self->run->bar); /* join */
		tl_region_end("tiny");
		self->count++;
	}
}

static void tiny_helper_body(struct th *self)
{
	for (int i = 0; i < 2000; i++) {
		pthread_barrier_wait(&self->run->bar);
		tl_region_begin("tiny");
		wl_spin_cpu(20 * US);
		tl_region_end("tiny");
		pthread_barrier_wait(&self->run->bar);
		self->count++;
	}
}

static void cbar_wait(struct cbar *b)
{
	unsigned gen;

	pthread_mutex_lock(&b->m);
	gen = b->gen;
	if (++b->count == b->n) {
		b->count = 0;
		b->gen++;
		pthread_cond_broadcast(&b->c);
	} else {
		while (gen == b->gen)
			pthread_cond_wait(&b->c, &b->m);
	}
	pthread_mutex_unlock(&b->m);
}

/* oversub and fit: `arg` ms of work each, all at once, then the first worker merges 4 ms alone; 30 rounds. */
static void round_body(struct th *self)
{
	for (int i = 0; i < 30; i++) {
		wl_spin_cpu((uint64_t)self->arg * MS);
		cbar_wait(&self->run->cb);
		if (self == &self->run->th[0])
			wl_spin_cpu(4 * MS);
		cbar_wait(&self->run->cb);
		self->count++;
	}
}

/*
 * baton: the turn goes round the threads; each computes 4 ms on its turn,
 * outside the mutex, and wakes only the next (its own condition variable);
 * 30 turns each.
 */
static void baton_body(struct th *self)
{
	struct cbar *b = &self->run->cb;
	int me = (int)(self - self->run->th), next = (me + 1) % self->run->nthreads;

	for (int i = 0; i < 30; i++) {
		pthread_mutex_lock(&b->m);
		while (b->count != me)
			pthread_cond_wait(&self->run->turn[me], &b->m);
		pthread_mutex_unlock(&b->m);
		wl_spin_cpu(4 * MS);
		pthread_mutex_lock(&b->m);
		b->count = next;
		pthread_cond_signal(&self->run->turn[next]);
		pthread_mutex_unlock(&b->m);
		self->count++;
	}
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* inversion, inherit: 5 rounds of 80 ms; `arg` is the thread's role: 0 low, 1 medium, 2 high. */
static void prio_body(struct th *self)
{
	for (uint64_t k = 0; k < 5; k++) {
		uint64_t start = self->run->t0 + k * 80 * MS;

		if (self->arg == 0) {
			sleep_until(start);
			pthread_mutex_lock(&self->run->pm);
			wl_spin_cpu(30 * MS);
			pthread_mutex_unlock(&self->run->pm);
		} else if (self->arg == 1) {
			sleep_until(start + 4 * MS);
			wl_spin_cpu(20 * MS);
		} else {
			sleep_until(start + 2 * MS);
			pthread_mutex_lock(&self->run->pm);
			pthread_mutex_unlock(&self->run->pm);
		}
		self->count++;
	}
}

static const struct scenario scenarios[] = {
	{ "pingpong",
	  "'ping' (CPU 0) and 'pong' (last CPU) hand a byte back and forth 20000 times",
	  { { .name = "ping", .cpu = 0, .body = ping_body }, { .name = "pong", .cpu = -2, .body = pong_body } } },
	{ "contend",
	  "'lockA' and 'lockB' take one mutex in turn for 500 ms (20 us in, 20 us out)",
	  { { .name = "lockA", .cpu = -1, .body = lock_body }, { .name = "lockB", .cpu = -1, .body = lock_body } } },
	{ "convoy",
	  "'conv0'..'conv3' take one mutex for 500 ms (300 us in, 100 us out, on a CPU only)",
	  { { .name = "conv0", .cpu = -1, .arg = 300, .body = lock_body },
	    { .name = "conv1", .cpu = -1, .arg = 300, .body = lock_body },
	    { .name = "conv2", .cpu = -1, .arg = 300, .body = lock_body },
	    { .name = "conv3", .cpu = -1, .arg = 300, .body = lock_body } } },
	{ "pipeline",
	  "'producer' -> 'filter' -> 'consumer', 20000 items through two queues of 16",
	  { { .name = "producer", .cpu = -1, .body = producer_body },
	    { .name = "filter", .cpu = -1, .body = filter_body },
	    { .name = "consumer", .cpu = -1, .body = consumer_body } } },
	{ "poll",
	  "'poller' waits 500 ms on a condition nobody signals, with a 100 us timeout",
	  { { .name = "poller", .cpu = -1, .body = poll_body } } },
	{ "serial",
	  "'maker' computes 40 items of 5 ms, 'userA' and 'userB' wait for them",
	  { { .name = "maker", .cpu = -1, .body = maker_body },
	    { .name = "userA", .cpu = -1, .body = user_body },
	    { .name = "userB", .cpu = -1, .body = user_body } } },
	{ "migrate",
	  "'migrant' moves itself between CPU 0 and the last CPU every 200 us, for 500 ms",
	  { { .name = "migrant", .cpu = -1, .body = migrate_body } } },
	{ "net",
	  "'sender' (CPU 0) sends 8 KiB UDP datagrams to 'receiver' (last CPU) over loopback for 500 ms",
	  { { .name = "sender", .cpu = 0, .body = send_body },
	    { .name = "receiver", .cpu = -2, .body = receive_body } } },
	{ "imbalance",
	  "'worker0' (1 ms) and 'worker1' (3 ms) meet at a barrier after each of 60 rounds",
	  { { .name = "worker0", .cpu = -1, .arg = 1, .body = blocks_body },
	    { .name = "worker1", .cpu = -1, .arg = 3, .body = blocks_body } } },
	{ "balanced",
	  "'worker0' and 'worker1' (2 ms each) meet at a barrier after each of 60 rounds",
	  { { .name = "worker0", .cpu = -1, .arg = 2, .body = blocks_body },
	    { .name = "worker1", .cpu = -1, .arg = 2, .body = blocks_body } } },
	{ "tiny",
	  "'parent' hands 'helper0' and 'helper1' 20 us of work each, 2000 times",
	  { { .name = "parent", .cpu = -1, .body = tiny_parent_body },
	    { .name = "helper0", .cpu = -1, .body = tiny_helper_body },
	    { .name = "helper1", .cpu = -1, .body = tiny_helper_body } } },
	{ "oversub",
	  "'w0'..'w3' compute 2 ms each at once, then 'w0' merges 4 ms alone, 30 rounds",
	  { { .name = "w0", .cpu = -1, .arg = 2, .body = round_body },
	    { .name = "w1", .cpu = -1, .arg = 2, .body = round_body },
	    { .name = "w2", .cpu = -1, .arg = 2, .body = round_body },
	    { .name = "w3", .cpu = -1, .arg = 2, .body = round_body } } },
	{ "fit",
	  "'w0' and 'w1' compute 4 ms each, then 'w0' merges 4 ms alone, 30 rounds",
	  { { .name = "w0", .cpu = -1, .arg = 4, .body = round_body },
	    { .name = "w1", .cpu = -1, .arg = 4, .body = round_body } } },
	{ "baton",
	  "'t0', 't1' and 't2' take turns computing 4 ms, passing a turn on a condition variable, 30 rounds",
	  { { .name = "t0", .cpu = -1, .body = baton_body },
	    { .name = "t1", .cpu = -1, .body = baton_body },
	    { .name = "t2", .cpu = -1, .body = baton_body } } },
	{ "inversion",
	  "'high' (FIFO 30) waits for a mutex 'low' (FIFO 10) holds while 'medium' (FIFO 20) runs, CPU 0",
	  { { .name = "low", .cpu = 0, .arg = 0, .fifo = 10, .body = prio_body },
	    { .name = "medium", .cpu = 0, .arg = 1, .fifo = 20, .body = prio_body },
	    { .name = "high", .cpu = 0, .arg = 2, .fifo = 30, .body = prio_body } } },
	{ "inherit",
	  "the inversion scenario with a priority-inheritance mutex",
	  { { .name = "low", .cpu = 0, .arg = 0, .fifo = 10, .body = prio_body },
	    { .name = "medium", .cpu = 0, .arg = 1, .fifo = 20, .body = prio_body },
	    { .name = "high", .cpu = 0, .arg = 2, .fifo = 30, .body = prio_body } } },
	{ "ioqueue",
	  "'reader' reads 64 KiB with O_DIRECT for 400 ms and queues each to 'consumer' (20 us each)",
	  { { .name = "reader", .cpu = -1, .arg = 1, .body = dio_read_body },
	    { .name = "consumer", .cpu = -1, .arg = 20, .body = user_body } } },
	{ "dio",
	  "'writer' writes and 'reader' reads 4 KiB with O_DIRECT for 400 ms each",
	  { { .name = "writer", .cpu = -1, .body = dio_write_body },
	    { .name = "reader", .cpu = -1, .body = dio_read_body } } },
};
#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static void *trampoline(void *arg)
{
	struct th *self = arg;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int e;

	self->tid = wl_gettid();
	wl_set_name(self->name);
	if (self->cpu != -1 && (e = wl_pin(self->cpu == -2 ? (int)(ncpu - 1) : self->cpu)) != 0)
		fail(self, "pthread_setaffinity_np", e);
	if (self->fifo) {
		struct sched_param sp = { .sched_priority = self->fifo };

		if ((e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) != 0)
			fail(self, "pthread_setschedparam(SCHED_FIFO)", e);
	}
	pthread_barrier_wait(&self->run->start);
	if (!self->err)
		self->body(self);
	self->cpu_total = wl_cpu_ns();
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: wl_kernel SCENARIO [--truth FILE]\n\nscenarios:\n");
	for (size_t i = 0; i < NSCENARIOS; i++)
		fprintf(out, "  %-9s %s\n", scenarios[i].name, scenarios[i].help);
}

static void queue_init(struct queue *q)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->m, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
}

int main(int argc, char **argv)
{
	const struct scenario *sc = NULL;
	const char *truth_path = "-";
	static struct run r;
	struct wl_truth truth;
	int status = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < NSCENARIOS; i++)
		if (!strcmp(argv[1], scenarios[i].name))
			sc = &scenarios[i];
	if (argc == 4 && !strcmp(argv[2], "--truth"))
		truth_path = argv[3];
	else if (argc != 2)
		sc = NULL;
	if (!sc) {
		fprintf(stderr, "wl_kernel: unknown scenario or options\n");
		usage(stderr);
		return 2;
	}
	if ((!strcmp(sc->name, "pingpong") || !strcmp(sc->name, "migrate")) && sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		FILE *f = strcmp(truth_path, "-") ? fopen(truth_path, "w") : NULL;

		if (f) {
			fprintf(f, "{\"scenario\": \"%s\", \"skip\": \"needs two CPUs\"}\n", sc->name);
			fclose(f);
		}
		return WL_EXIT_SKIP;
	}
	{
		const char *slash = strrchr(truth_path, '/');

		if (slash)
			snprintf(r.dir, sizeof(r.dir), "%.*s", (int)(slash - truth_path), truth_path);
		else
			snprintf(r.dir, sizeof(r.dir), ".");
	}
	pthread_mutex_init(&r.lock, NULL);
	queue_init(&r.q1);
	queue_init(&r.q2);
	if (!strcmp(sc->name, "net") && udp_init(&r)) {
		perror("wl_kernel: a UDP socket on loopback");
		return 1;
	}
	if (pipe(r.ab) || pipe(r.ba)) {
		perror("wl_kernel: pipe");
		return 1;
	}
	for (int i = 0; i < MAXT && sc->threads[i].name; i++) {
		r.th[i] = sc->threads[i];
		r.th[i].run = &r;
		r.nthreads++;
	}
	pthread_barrier_init(&r.start, NULL, (unsigned)r.nthreads);
	pthread_barrier_init(&r.bar, NULL, (unsigned)r.nthreads);
	{
		pthread_mutexattr_t ma;

		pthread_mutexattr_init(&ma);
		if (!strcmp(sc->name, "inherit"))
			pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
		pthread_mutex_init(&r.pm, &ma);
		pthread_mutexattr_destroy(&ma);
	}
	r.t0 = wl_now_ns() + 20 * MS; /* after every thread is set up */
	pthread_mutex_init(&r.cb.m, NULL);
	pthread_cond_init(&r.cb.c, NULL);
	for (int i = 0; i < MAXT; i++)
		pthread_cond_init(&r.turn[i], NULL);
	r.cb.n = r.nthreads;
	for (int i = 0; i < r.nthreads; i++)
		if (pthread_create(&r.th[i].pt, NULL, trampoline, &r.th[i])) {
			perror("wl_kernel: pthread_create");
			return 1;
		}
	for (int i = 0; i < r.nthreads; i++)
		pthread_join(r.th[i].pt, NULL);

	memset(&truth, 0, sizeof(truth));
	snprintf(truth.scenario, sizeof(truth.scenario), "%s", sc->name);
	truth.scale = 1;
	snprintf(truth.notes, sizeof(truth.notes), "wl_kernel: the kernel oracle's workloads");
	for (int i = 0; i < r.nthreads; i++) {
		struct th *t = &r.th[i];
		struct wl_truth_thread *tt = wl_truth_add(&truth, t->name, t->tid);

		if (t->err) {
			fprintf(stderr, "wl_kernel: %s: %s: %s\n", t->name, t->err_what, strerror(t->err));
			status = 1;
		}
		wl_truth_set(tt, "EXECUTING+INTERRUPTED_ns", (int64_t)t->cpu_total);
		wl_truth_set(tt, "cpu_ns", (int64_t)t->cpu_total);
		wl_truth_set(tt, "count", (int64_t)t->count);
		if (t->body == lock_body) { /* the futex word of glibc's mutex is its first field: the lock's address */
			wl_truth_set(tt, "lock_addr", (int64_t)(uintptr_t)&r.lock);
			wl_truth_set(tt, "lock_offset", (int64_t)offsetof(struct run, lock)); /* in r, a static */
		}
	}
	if (wl_truth_write(&truth, truth_path)) {
		perror("wl_kernel: writing the truth");
		return 1;
	}
	return status;
}
