/*
 * perf_ring.h - perf_event_open() tracepoint events and their mmap ring
 * buffers, reduced to what the recorder needs, and the tracefs files that
 * say which tracepoints exist.
 *
 * One ring per CPU.  Every tracepoint event of that CPU is opened with
 * pid = -1, cpu = N (all tasks on that CPU) and redirected into the CPU's
 * ring with PERF_EVENT_IOC_SET_OUTPUT, so one ring holds that CPU's events
 * in the order the kernel wrote them.  The ring owns the event fds attached
 * to it and closes them when freed.
 *
 * Reading follows the kernel's protocol: load data_head with acquire
 * semantics, read records up to it, store data_tail with release semantics
 * to give the space back.  Records that wrap around the end of the ring are
 * copied into a bounce buffer so that callers always see contiguous bytes.
 * Nothing here allocates or makes a syscall per record.
 */
#ifndef TL_PERF_RING_H
#define TL_PERF_RING_H

#include <stddef.h>
#include <stdint.h>

/* Record types a reader sees (values of PERF_RECORD_*). */
enum tl_perf_rec_type {
	TL_PERF_REC_LOST = 2,   /* PERF_RECORD_LOST: the kernel dropped `lost` records */
	TL_PERF_REC_SAMPLE = 9, /* PERF_RECORD_SAMPLE: a tracepoint hit */
};

/* One record, decoded from the ring.  Pointers are valid until the next tl_perf_ring_next(). */
struct tl_perf_rec {
	uint32_t type;    /* enum tl_perf_rec_type; other types are skipped by the reader */
	int32_t pid, tid; /* the task current when the record was written */
	uint64_t ts;      /* CLOCK_MONOTONIC ns */
	const void *raw;  /* SAMPLE: the tracepoint's raw bytes */
	uint32_t raw_size;
	uint64_t lost; /* LOST: how many records were dropped */
};

struct tl_perf_ring;

/*
 * Open tracepoint `tp_id` on `cpu` for all tasks, disabled, sampling every
 * hit with TID | TIME | RAW on CLOCK_MONOTONIC, waking poll() once
 * `wakeup_bytes` are in the ring.  Returns the fd (O_CLOEXEC), or -1 with
 * errno from perf_event_open() preserved and tl_error set.  The caller
 * hands the fd to tl_perf_ring_new() or tl_perf_ring_attach(), or closes it.
 */
int tl_perf_tp_open(uint64_t tp_id, int cpu, unsigned wakeup_bytes);

/*
 * Map a ring of `pages` data pages (a power of two) on event fd `fd`, which
 * the ring then owns.  On failure returns NULL with errno preserved and
 * tl_error set, and fd stays the caller's.  Free with tl_perf_ring_free().
 */
struct tl_perf_ring *tl_perf_ring_new(int fd, int cpu, unsigned pages);

/* Send event `fd` (same CPU) into the ring, which then owns it.  0, or -1 with tl_error set (fd stays the caller's). */
int tl_perf_ring_attach(struct tl_perf_ring *r, int fd);

/* The fd to poll() for the ring's wakeups. */
int tl_perf_ring_fd(const struct tl_perf_ring *r);

int tl_perf_ring_cpu(const struct tl_perf_ring *r);

/* Size of the data area in bytes. */
size_t tl_perf_ring_size(const struct tl_perf_ring *r);

/* Enable (on = 1) or disable every event of the ring.  0, or -1 with tl_error set. */
int tl_perf_ring_enable(struct tl_perf_ring *r, int on);

/*
 * Reading: begin() takes a snapshot of what the kernel has written and
 * returns the number of bytes available; next() returns records up to that
 * snapshot (1 with *rec filled, 0 when done); end() gives the consumed space
 * back to the kernel.  A corrupt record header (size too small or past the
 * snapshot) ends the batch and discards the rest of it, counted by
 * tl_perf_ring_corrupt().
 */
size_t tl_perf_ring_begin(struct tl_perf_ring *r);
int tl_perf_ring_next(struct tl_perf_ring *r, struct tl_perf_rec *rec);
void tl_perf_ring_end(struct tl_perf_ring *r);

/* Batches cut short by a corrupt record so far. */
uint64_t tl_perf_ring_corrupt(const struct tl_perf_ring *r);

/* Unmap, close every event fd, free.  NULL is fine. */
void tl_perf_ring_free(struct tl_perf_ring *r);

/* ---- a set of tracepoints on every online CPU ---- */

struct tl_perf_tp {
	uint64_t id;        /* tracepoint id (from its format file) */
	const char *name;   /* "sched:sched_switch", for messages */
	int optional;       /* dropped, not fatal, if the kernel refuses it with ENOENT/ENODEV/EINVAL/EOPNOTSUPP */
	const char *filter; /* PERF_EVENT_IOC_SET_FILTER string, or NULL; recorded unfiltered if refused */
	int dropped;        /* out: the errno that dropped it, else 0 */
};

struct tl_perf_set {
	int nrings;
	struct tl_perf_ring **rings; /* one per CPU, in the order of the cpus given */
	unsigned pages;              /* data pages per ring, after any shrinking */
};

/*
 * Open every tracepoint of tps on each of the ncpus CPUs in cpus[] and map
 * one ring of `pages` pages per CPU (halved down to 8 pages while the
 * locked-memory limit refuses it), raising the open-file limit as needed.
 * Returns 0, or -1 with tl_error set ("cannot open tracepoint 'x' on cpu N:
 * <strerror>") and errno preserved; on failure nothing stays open.  Release
 * with tl_perf_set_release().
 */
int tl_perf_set_open(struct tl_perf_set *set, struct tl_perf_tp *tps, int ntps, const int *cpus, int ncpus,
                     unsigned pages);

struct tl_tp_table;

/*
 * tl_perf_set_open() for the tracepoints of t marked in used[] (TL_TP__COUNT
 * entries) on every online CPU, with the recorder's policies: pages 0 picks
 * a default by CPU count; an optional tracepoint the kernel refuses is
 * cleared from used[] and reported through warn (may be NULL); EACCES/EPERM
 * give tl_perf_priv_error() (tracing: the tracefs dir, for the message).
 * *ncpus is set to the highest online CPU + 1.  Returns 0, or -1 with
 * tl_error set.
 */
int tl_perf_set_open_table(struct tl_perf_set *set, const struct tl_tp_table *t, int *used, unsigned pages,
                           const char *tracing, void (*warn)(void *ctx, const char *msg), void *ctx, int *ncpus);

/* Enable (on = 1) or disable every event; stops at the first failure (tl_error set). */
int tl_perf_set_enable(struct tl_perf_set *set, int on);

void tl_perf_set_release(struct tl_perf_set *set);

/* ---- tracefs: where tracepoint formats and ids live ---- */

/*
 * The tracefs directory into out.  If none is mounted and we are root,
 * mount tracefs on /sys/kernel/tracing.  Returns 0, or -1 with tl_error set.
 */
int tl_tracefs_dir(char *out, size_t len);

/*
 * Text of events/SYSTEM/NAME/format under the tracefs directory, malloc'd
 * and NUL-terminated (caller frees), its length in *len.  NULL with errno
 * set (ENOENT: this kernel lacks the tracepoint, EACCES: no permission).
 */
char *tl_tracefs_format(const char *tracing, const char *system, const char *name, size_t *len);

/*
 * Read the format of every tracepoint of tl_tp_desc() that `groups` (enum
 * tl_record_groups) selects into t, and set used[k] (TL_TP__COUNT entries)
 * for those this kernel has.  A missing required tracepoint is an error; a
 * missing optional one is left out and reported through warn (may be
 * NULL).  A format that cannot be read for lack of permission gives
 * tl_perf_priv_error().  Returns 0, or -1 with tl_error set.
 */
int tl_tracefs_load(const char *tracing, unsigned groups, struct tl_tp_table *t, int *used,
                    void (*warn)(void *ctx, const char *msg), void *ctx);

/*
 * Set tl_error to "<what>; recording needs root, or CAP_PERFMON ..." with
 * the kernel's rules and its current perf_event_paranoid.  Returns -1.
 */
int tl_perf_priv_error(const char *what, const char *tracing);

#endif
