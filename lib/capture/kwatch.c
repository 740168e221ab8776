/*
 * kwatch.c - the kernel's accounting of the recorded threads into KSTAT
 * events (see kwatch.h).
 *
 * Invariants:
 * - `watched` holds the threads whose counters are to be read at the end:
 *   a thread enters at its START read or its FORK from a watched thread,
 *   and leaves at its EXIT read.
 * - The queue is in time order: every event is stamped with the clock read
 *   when it is queued, a live thread's right after its reading, which
 *   began at most TL_KSTAT_READ_SPAN_NS before (read_dated()).
 * - An exit of an unwatched thread waits in `strays` for one more poll, then
 *   is dropped (it belonged to a thread outside the recording).
 */
#include "capture/kwatch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"
#include "capture/taskstats.h"

struct watched {
	int32_t tid; /* tidmap key */
};

struct stray {
	struct tl_kstat k;
	uint64_t ts;
	int age; /* polls it has waited */
};

struct tl_kwatch {
	int all;
	struct tl_taskstats *ts; /* NULL: /proc only, no exits */
	struct tl_tidmap watched;
	struct tl_event *q;
	size_t nq, qcap, qhead;
	struct stray *strays;
	size_t nstrays, scap;
	int cpus_read; /* the start's KSTAT_CPU readings are queued */
	struct tl_kwatch_stats st;
};

#define MAX_STEAL_CPUS 4096

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void tl_kwatch_events(const struct tl_kstat *k, int point, uint64_t ts, struct tl_event out[2])
{
	int sched = !!(k->have & TL_KSTAT_SCHED), sw = !!(k->have & TL_KSTAT_SWITCHES);

	memset(out, 0, 2 * sizeof(*out));
	out[0].ts = out[1].ts = ts;
	out[0].cpu = out[1].cpu = -1;
	out[0].tid = out[1].tid = k->tid;
	out[0].arg = out[1].arg = point;
	out[0].type = TL_EV_KSTAT;
	out[0].a = sched ? (int64_t)k->run_ns : -1;
	out[0].b = sched ? (int64_t)k->wait_ns : -1;
	out[0].c = k->have & TL_KSTAT_BLKIO ? (int64_t)k->blkio_ns : -1;
	out[1].type = TL_EV_KSTAT_CSW;
	out[1].a = sw ? (int64_t)k->vol : -1;
	out[1].b = sw ? (int64_t)k->invol : -1;
}

static int queue(struct tl_kwatch *kw, const struct tl_kstat *k, int point, uint64_t ts)
{
	if (TL_GROW(kw->q, kw->qcap, kw->nq + 2) < 0)
		return -1;
	tl_kwatch_events(k, point, ts, kw->q + kw->nq);
	kw->nq += 2;
	kw->st.reads++;
	return 0;
}

struct tl_kwatch *tl_kwatch_new(int all, void (*warn)(void *ctx, const char *msg), void *ctx)
{
	struct tl_kwatch *kw = calloc(1, sizeof(*kw));
	char msg[320];

	if (!kw || tl_tidmap_init(&kw->watched, sizeof(struct watched))) {
		free(kw);
		tl_error("out of memory");
		return NULL;
	}
	kw->all = all;
	kw->st.delayacct_was = tl_delayacct_get();
	kw->st.delayacct_on = kw->st.delayacct_was == 1;
	if (kw->st.delayacct_was == 0) {
		if (!tl_delayacct_set(1)) {
			kw->st.delayacct_on = 1;
			warn(ctx, "kernel.task_delayacct was 0: turned on for the recording (run-queue and block-I/O "
			          "delays for the self-check), set back to 0 afterwards");
		} else {
			snprintf(msg, sizeof(msg),
			         "kernel.task_delayacct is 0 and cannot be set (%s): the self-check has no run-queue "
			         "wait or block-I/O delay",
			         tl_error_msg());
			warn(ctx, msg);
		}
	}
	kw->ts = tl_taskstats_open(1);
	if (kw->ts) {
		kw->st.taskstats = 1;
	} else {
		snprintf(msg, sizeof(msg), "threads that exit during the recording go unchecked: %s", tl_error_msg());
		warn(ctx, msg);
	}
	return kw;
}

void tl_kwatch_free(struct tl_kwatch *kw)
{
	if (!kw)
		return;
	if (kw->st.delayacct_was == 0 && kw->st.delayacct_on)
		tl_delayacct_set(0);
	tl_taskstats_close(kw->ts);
	tl_tidmap_release(&kw->watched);
	free(kw->q);
	free(kw->strays);
	free(kw);
}

int tl_kwatch_fd(const struct tl_kwatch *kw)
{
	return kw ? tl_taskstats_fd(kw->ts) : -1;
}

/* Read one live thread: taskstats (ns block-I/O delay), else /proc.  0, or -1 if it is gone. */
static int read_live(struct tl_kwatch *kw, int32_t pid, int32_t tid, struct tl_kstat *k)
{
	if (kw->ts && !tl_taskstats_query(kw->ts, tid, k, NULL))
		return 0;
	return tl_kstat_read(pid, tid, k);
}

/*
 * A live thread's reading, dated: *ts is the clock right after it, and the
 * reading began at most TL_KSTAT_READ_SPAN_NS before.  A reading that took longer
 * (the recorder preempted in the middle: 3.98 ms once, on a CPU shared
 * with the recorded thread, which ran meanwhile and made the kernel's
 * delta 4 ms larger than the trace's window) is read again, up to
 * READ_TRIES times; the shortest is kept.  0, or -1 if it is gone.
 */
#define READ_TRIES 4
static int read_dated(struct tl_kwatch *kw, int32_t pid, int32_t tid, struct tl_kstat *k, uint64_t *ts)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < READ_TRIES && best > TL_KSTAT_READ_SPAN_NS; i++) {
		struct tl_kstat r;
		uint64_t t0 = now_ns(), t1;

		if (read_live(kw, pid, tid, &r))
			return -1;
		t1 = now_ns();
		if (t1 - t0 < best) {
			best = t1 - t0;
			*k = r;
			*ts = t1;
		}
	}
	return 0;
}

static int watch(struct tl_kwatch *kw, int32_t tid)
{
	int created = 0;

	if (!tl_tidmap_put(&kw->watched, tid, &created))
		return -1;
	kw->st.threads += created;
	return 0;
}

/* START reads of the threads of process pid. */
static int start_process(struct tl_kwatch *kw, int32_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0; /* gone since it was listed */
	while (!ret && (de = readdir(d))) {
		int32_t tid = (int32_t)atoi(de->d_name);
		struct tl_kstat k;
		uint64_t ts;

		if (tid <= 0 || read_dated(kw, pid, tid, &k, &ts))
			continue;
		ret = watch(kw, tid) || queue(kw, &k, TL_KSTAT_AT_START, ts);
	}
	closedir(d);
	return ret ? -1 : 0;
}

/* KSTAT_CPU readings: every CPU's steal time now.  /proc/stat unreadable only loses the allowance. */
static int queue_cpus(struct tl_kwatch *kw, int point)
{
	uint64_t *steal = calloc(MAX_STEAL_CPUS, sizeof(*steal)), tick = 0, ts = now_ns();
	int n = steal ? tl_kstat_steal(steal, MAX_STEAL_CPUS, &tick) : -1, ret = 0;

	if (n > MAX_STEAL_CPUS)
		n = MAX_STEAL_CPUS;
	for (int c = 0; c < n && !ret; c++) {
		struct tl_event e = { .ts = ts, .type = TL_EV_KSTAT_CPU, .cpu = -1, .arg = c, .a = point };

		e.b = (int64_t)steal[c];
		e.c = (int64_t)tick;
		if (TL_GROW(kw->q, kw->qcap, kw->nq + 1) < 0)
			ret = -1;
		else
			kw->q[kw->nq++] = e;
	}
	free(steal);
	return ret;
}

int tl_kwatch_start(struct tl_kwatch *kw, pid_t pid)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (!kw->cpus_read) {
		kw->cpus_read = 1;
		if (queue_cpus(kw, TL_KSTAT_AT_START))
			return -1;
	}
	if (pid > 0)
		return start_process(kw, pid);
	if (!(d = opendir("/proc")))
		return tl_error_errno("cannot read /proc");
	while (!ret && (de = readdir(d))) {
		int32_t p = (int32_t)atoi(de->d_name);

		if (p > 0)
			ret = start_process(kw, p);
	}
	closedir(d);
	return ret;
}

int tl_kwatch_fork(struct tl_kwatch *kw, int32_t parent, int32_t child)
{
	if (child <= 0 || (!kw->all && !tl_tidmap_get(&kw->watched, parent)))
		return 0;
	return watch(kw, child);
}

/* An exit: queued if the thread is watched; 1 if it is not. */
static int take_exit(struct tl_kwatch *kw, const struct tl_kstat *k, uint64_t ts)
{
	if (!kw->all && !tl_tidmap_get(&kw->watched, k->tid))
		return 1;
	tl_tidmap_remove(&kw->watched, k->tid);
	return queue(kw, k, TL_KSTAT_AT_EXIT, ts);
}

struct poll_ctx {
	struct tl_kwatch *kw;
	uint64_t ts;
	int failed;
};

/*
 * An exit message is stamped when it is handled, not when the poll began:
 * a message that arrived during the drain (the recorder preempted in it)
 * stamped with the poll's start was dated 1 ms before the thread last ran
 * (once in sixty lossy recordings of /bin/true loops), and the self-check
 * cut that run and wait out of the trace's side.
 */
static void on_exit_msg(const struct tl_kstat *k, int32_t tgid, void *arg)
{
	struct poll_ctx *pc = arg;
	struct tl_kwatch *kw = pc->kw;
	int r;

	pc->ts = now_ns(); /* after the message came: the queue stays in time order */
	r = take_exit(kw, k, pc->ts);

	if (r < 0)
		pc->failed = 1;
	if (r != 1)
		return;
	if (TL_GROW(kw->strays, kw->scap, kw->nstrays + 1) < 0) {
		pc->failed = 1;
		return;
	}
	kw->strays[kw->nstrays++] = (struct stray){ *k, pc->ts, 0 };
}

int tl_kwatch_poll(struct tl_kwatch *kw)
{
	struct poll_ctx pc = { kw, now_ns(), 0 };
	size_t keep = 0, n = kw->nstrays;

	if (!kw->ts)
		return 0;
	/* strays from the last poll first: their FORK events have been drained since */
	for (size_t i = 0; i < n; i++) {
		struct stray s = kw->strays[i];
		int r = take_exit(kw, &s.k, pc.ts);

		if (r < 0)
			return -1;
		if (r == 1 && s.age < 1) {
			s.age++;
			kw->strays[keep++] = s;
		}
	}
	kw->nstrays = keep;
	if (tl_taskstats_drain(kw->ts, on_exit_msg, &pc, &kw->st.exits_lost) < 0 || pc.failed)
		return -1;
	return 0;
}

int tl_kwatch_end(struct tl_kwatch *kw)
{
	size_t pos = 0;
	struct watched *w;
	int32_t *tids = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	/* Collected first: the map must not change while it is iterated. */
	while ((w = tl_tidmap_next(&kw->watched, &pos))) {
		if (TL_GROW(tids, cap, n + 1) < 0) {
			free(tids);
			return -1;
		}
		tids[n++] = w->tid;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		struct tl_kstat k;
		uint64_t ts;

		/* /proc/TID works for any thread id, leader or not */
		if (read_dated(kw, tids[i], tids[i], &k, &ts)) {
			kw->st.unreadable++;
			continue;
		}
		ret = queue(kw, &k, TL_KSTAT_AT_END, ts);
	}
	free(tids);
	return ret ? ret : queue_cpus(kw, TL_KSTAT_AT_END);
}

int tl_kwatch_flush(struct tl_kwatch *kw, uint64_t upto, int (*fn)(void *ctx, const struct tl_event *ev), void *ctx)
{
	while (kw->qhead < kw->nq && kw->q[kw->qhead].ts < upto) {
		if (fn(ctx, &kw->q[kw->qhead]))
			return -1;
		kw->qhead++;
	}
	if (kw->qhead == kw->nq)
		kw->qhead = kw->nq = 0;
	return 0;
}

void tl_kwatch_get_stats(const struct tl_kwatch *kw, struct tl_kwatch_stats *st)
{
	*st = kw->st;
}
