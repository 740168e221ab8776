/*
 * procsnap.h - what the recorder reads about the machine and its threads:
 * a snapshot of the threads that exist when recording starts (from /proc),
 * the online CPUs and the CPU model, and the table of thread identities
 * (tid -> process, name) it keeps while recording.
 *
 * The snapshot gives attach (-p) and system-wide (-a) recordings a starting
 * state for threads that were already running, sleeping or blocked before
 * the first event; the identity table lets the recorder say who a thread is
 * once, when it learns it, instead of in every event.
 */
#ifndef TL_PROCSNAP_H
#define TL_PROCSNAP_H

#include <stddef.h>
#include <stdint.h>

#include "capture/affinity.h"

/* THREAD.b bits: what the thread's wait channel suggests. */
enum tl_wchan_hint {
	TL_WCHAN_FUTEX = 1 << 0, /* asleep in a futex wait */
	TL_WCHAN_IO = 1 << 1,    /* waiting for block I/O */
};

struct tl_procsnap_thread {
	int tid;
	int tgid;
	char comm[16];          /* NUL-terminated, as the kernel truncates it */
	char state;             /* the letter from /proc/PID/task/TID/stat: R S D T t Z X I P ... */
	int64_t ps_bits;        /* state as TL_PS_* bits, with TL_PS_SNAPSHOT set */
	unsigned wchan;         /* enum tl_wchan_hint bits */
	struct tl_affinity aff; /* its affinity mask, count 0 if unreadable */
};

/*
 * Call fn for every thread under `proc_root` ("/proc" normally; tests pass
 * a directory laid out the same way).  Threads that vanish while being read
 * are skipped.  fn returning non-zero stops the scan and is returned.
 * Returns 0, or -1 with tl_error set if proc_root cannot be read.
 */
int tl_procsnap_scan(const char *proc_root, int (*fn)(const struct tl_procsnap_thread *t, void *ctx), void *ctx);

/* TL_PS_* bits for a /proc state letter (without TL_PS_SNAPSHOT); R and unknown letters give 0. */
int64_t tl_procsnap_state_bits(char letter);

/* enum tl_wchan_hint bits for the text of a wchan file ("futex_wait_queue", "io_schedule", ...). */
unsigned tl_procsnap_wchan_hint(const char *wchan);

/*
 * Process and name of thread `tid` from /proc/TID/status: *tgid, and comm
 * (NUL-terminated, cut as the scheduler tracepoints show it).  Returns 0,
 * or -1 if the thread is gone (nothing set).
 */
int tl_procsnap_identity(int tid, int *tgid, char comm[16]);

/* ---- the machine ---- */

/*
 * The online CPUs (/sys/devices/system/cpu/online, "0-3,6"), in increasing
 * order, into cpus[0..max); returns how many, or -1 with tl_error set.
 */
int tl_procsnap_online_cpus(int *cpus, int max);

struct tl_trace_info;

/*
 * Fill the machine's part of a trace info: kernel release, hostname and the
 * CPU model from /proc/cpuinfo ("model name", or "Hardware"/"Processor" on
 * ARM; "unknown" if none).  Other fields are left alone.
 */
void tl_procsnap_machine(struct tl_trace_info *in);

/* ---- thread identities ---- */

struct tl_thread_id {
	int32_t tid;      /* key; > 0 */
	int32_t tgid;     /* -1 while unknown */
	uint32_t name;    /* string id of comm, 0 while unknown */
	int32_t ncpus;    /* affinity count, as THREAD.c */
	uint64_t aff;     /* tl_affinity_hash() of the mask last written, 0 if none (or not to follow) */
	uint64_t since;   /* ts of the newest fact applied: older events may not overwrite it */
	uint64_t retired; /* ts of its sched_process_free, 0 while alive */
	uint8_t comm_len;
	char comm[16]; /* the bytes `name` was interned from, not NUL-terminated */
};

struct tl_threads;

/* An empty table.  NULL with tl_error set on allocation failure; free with tl_threads_free(). */
struct tl_threads *tl_threads_new(void);

void tl_threads_free(struct tl_threads *t);

/*
 * The entry for tid (> 0).  If there is none and `create` is set, a zeroed
 * one with tgid -1 is inserted and *created set to 1.  Returns NULL if tid
 * is absent (create = 0), or on allocation failure (tl_error set).  The
 * pointer stays valid until the next insertion or removal.
 */
struct tl_thread_id *tl_threads_get(struct tl_threads *t, int32_t tid, int create, int *created);

/* Forget tid now (its pid is being reused).  Absent is fine. */
void tl_threads_remove(struct tl_threads *t, int32_t tid);

/*
 * tid was reaped at ts.  Its entry stays until tl_threads_sweep() passes ts,
 * because events older than ts may still be on their way from other CPUs.
 * 0, or -1 with tl_error set (out of memory).
 */
int tl_threads_retire(struct tl_threads *t, int32_t tid, uint64_t ts);

/* Forget the threads retired before `before` that nothing newer has revived. */
void tl_threads_sweep(struct tl_threads *t, uint64_t before);

size_t tl_threads_count(const struct tl_threads *t);

struct tl_trace_writer;
struct tl_event;

/*
 * Apply what the event `at` says about thread tid: its process (tgid > 0;
 * otherwise unknown) and/or its name (comm_len > 0).  A thread seen for the
 * first time is also looked up in /proc (process, name, affinity), once:
 * then *aff holds its mask (else aff->count is 0), for AFFINITY events.
 * Returns 1 and fills *th with the THREAD event (at's ts and cpu) to store
 * just before `at` if that is news, 0 if not, -1 with tl_error set.  Names
 * are interned in w.  Rings are read one CPU after another, not in time
 * order, so a fact older than the entry's newest may fill a gap but never
 * overwrite.  tid <= 0 (the idle tasks) is ignored.
 */
int tl_threads_learn(struct tl_threads *t, struct tl_trace_writer *w, const struct tl_event *at, int32_t tid,
                     int32_t tgid, const char *comm, size_t comm_len, struct tl_event *th, struct tl_affinity *aff);

/*
 * Read again the mask of every known thread that is not retired and had
 * one written (aff != 0); for each
 * whose mask changed since it was last written, call fn with it.  0, or
 * fn's non-zero return.
 */
int tl_threads_recheck_affinity(struct tl_threads *t, int (*fn)(void *ctx, int32_t tid, const struct tl_affinity *a),
                                void *ctx);

/*
 * Write the snapshot: one THREAD event per thread under proc_root (cpu -1,
 * ts, snap_state, wchan hints, affinity) added to w, and each thread
 * entered into ids; with `only`, the threads of those nonly processes
 * (tgids) only.  *added counts the events.  Returns 0, or -1 with tl_error
 * set.
 */
int tl_procsnap_write(const char *proc_root, struct tl_trace_writer *w, struct tl_threads *ids, uint64_t ts,
                      const int32_t *only, int nonly, uint64_t *added);

/*
 * Read a small file (of /proc, /sys) with one read() into buf, NUL-terminated,
 * so that a value is never torn between two reads; path is relative to
 * dirfd (AT_FDCWD for an absolute path).  0, or -1 with errno set.
 */
int tl_read_small(int dirfd, const char *path, char *buf, size_t len);

#endif
