/*
 * kwatch.h - the recorder's side of the self-check: the kernel's own
 * accounting of the recorded threads, read when the trace starts, when each
 * thread exits and when the trace ends, and stored in the trace as
 * KSTAT/KSTAT_CSW event pairs (trace/event.h).  `report` compares the state
 * times against them (analysis/kcheck).
 *
 * Which threads: the ones watched at the start (the command, the -p
 * processes' threads, or every thread with -a) and every thread created
 * by a watched one afterwards (tl_kwatch_fork, from the FORK events).  A
 * thread created in the trace starts from zero counters, so it needs no
 * START read.  The counters come from taskstats where it opens (root; ns
 * block-I/O delay; the only source of an exited thread's totals) and from
 * /proc otherwise; without taskstats, exited threads go unchecked.
 *
 * Delay accounting: run-queue wait and block-I/O delay are counted only
 * while kernel.task_delayacct is 1.  As root, tl_kwatch_new() turns it on
 * when it is off, says so through warn, and tl_kwatch_free() sets it back.
 *
 * Events are queued with the CLOCK_MONOTONIC time they were read at (an
 * exit: when the recorder handled its message, after the kernel sent it
 * early in the thread's exit, before its EXIT event) and handed out in time order by
 * tl_kwatch_flush(), so that the recorder can merge them with the other
 * cpu -1 events (the user markers) in time order.
 */
#ifndef TL_KWATCH_H
#define TL_KWATCH_H

#include <stdint.h>
#include <sys/types.h>

#include "capture/kstat.h"
#include "trace/event.h"

struct tl_kwatch;

struct tl_kwatch_stats {
	uint64_t threads;    /* threads watched in all */
	uint64_t reads;      /* counter reads queued (START, END, EXIT) */
	uint64_t unreadable; /* threads whose END counters could not be read (gone without an exit message) */
	uint64_t exits_lost; /* exit messages the kernel could not deliver (full socket) */
	int taskstats;       /* 1 if taskstats was used */
	int delayacct_was;   /* kernel.task_delayacct before the recording: 0, 1, or -1 unknown */
	int delayacct_on;    /* 1 if it was on during the recording */
};

/*
 * Set up: delay accounting, taskstats with exit messages.  `all`: every
 * thread of the system is watched (-a).  Problems that only lessen the check
 * go to warn(ctx, line); NULL only when memory runs out (tl_error set).
 */
struct tl_kwatch *tl_kwatch_new(int all, void (*warn)(void *ctx, const char *msg), void *ctx);

/* Restore kernel.task_delayacct if it was changed, close taskstats.  NULL is fine. */
void tl_kwatch_free(struct tl_kwatch *kw);

/* The descriptor that is readable when exit messages wait; -1 without taskstats. */
int tl_kwatch_fd(const struct tl_kwatch *kw);

/* START reads: every thread of process pid (pid > 0), or of every process (pid 0).  0, or -1 with tl_error set. */
int tl_kwatch_start(struct tl_kwatch *kw, pid_t pid);

/* A FORK event: child is watched if parent is (always with `all`).  0, or -1 (out of memory). */
int tl_kwatch_fork(struct tl_kwatch *kw, int32_t parent, int32_t child);

/*
 * Read the exit messages waiting: EXIT reads of the watched threads.  An
 * exit of a thread not (yet) watched is kept one call longer, because its
 * FORK event may still have been on its way.  0, or -1 with tl_error set.
 */
int tl_kwatch_poll(struct tl_kwatch *kw);

/* END reads: every watched thread still alive.  Call after a last tl_kwatch_poll(). */
int tl_kwatch_end(struct tl_kwatch *kw);

/* Hand the queued events older than upto to fn, oldest first (UINT64_MAX: all).  0, or fn's -1. */
int tl_kwatch_flush(struct tl_kwatch *kw, uint64_t upto, int (*fn)(void *ctx, const struct tl_event *ev), void *ctx);

void tl_kwatch_get_stats(const struct tl_kwatch *kw, struct tl_kwatch_stats *st);

/* The KSTAT / KSTAT_CSW pair of a reading (cpu -1, unknown values -1). */
void tl_kwatch_events(const struct tl_kstat *k, int point, uint64_t ts, struct tl_event out[2]);

#endif
