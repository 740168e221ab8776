/*
 * kstat.h - the kernel's own accounting of a thread, the truth threadlens
 * checks its state times against (issue "Numbers you can trust", part 2).
 *
 * These counters do not come from tracepoints, so lost or missing events
 * cannot bend them:
 *   /proc/PID/task/TID/schedstat   ns on a CPU, ns waiting on a run queue
 *   /proc/PID/task/TID/stat        field 42: block-I/O delay, clock ticks
 *                                  (counted only while kernel.task_delayacct = 1)
 *   /proc/PID/task/TID/status      voluntary_ctxt_switches, nonvoluntary_ctxt_switches
 *
 * Caveats, measured on kernel 6.18: schedstat's run time is the scheduler's
 * sum_exec_runtime as last updated (at a tick or a switch), so a thread on
 * a CPU right now shows up to one tick less than CLOCK_THREAD_CPUTIME_ID;
 * run-queue wait and block-I/O delay are counted only while delay
 * accounting is on (schedstat's wait since 6.x needs it too).
 */
#ifndef TL_KSTAT_H
#define TL_KSTAT_H

#include <stdint.h>

enum tl_kstat_have {
	TL_KSTAT_SCHED = 1 << 0,    /* run_ns, wait_ns */
	TL_KSTAT_BLKIO = 1 << 1,    /* blkio_ns */
	TL_KSTAT_SWITCHES = 1 << 2, /* vol, invol */
};

struct tl_kstat {
	int32_t tid;
	unsigned have;     /* enum tl_kstat_have: which fields were read */
	uint64_t run_ns;   /* on a CPU */
	uint64_t wait_ns;  /* runnable, waiting on a run queue */
	uint64_t blkio_ns; /* waiting for block I/O (delay accounting) */
	uint64_t vol;      /* voluntary context switches (it blocked) */
	uint64_t invol;    /* involuntary ones (preempted) */
};

/*
 * Read the counters of thread tid of process pid.  Returns 0 with k->have
 * saying what could be read (a field the kernel lacks is left out, not an
 * error), or -1 with tl_error set when the thread is gone or /proc cannot
 * be read at all.
 */
int tl_kstat_read(int32_t pid, int32_t tid, struct tl_kstat *k);

/*
 * Field 42 (delayacct_blkio_ticks) of a /proc/.../stat line into *ticks.
 * The fields after the thread's name are counted from the last ')', since
 * the name may hold spaces and parentheses.  0, or -1 if the line is short.
 */
int tl_kstat_parse_stat(const char *line, uint64_t *ticks);

/*
 * Each CPU's steal time from the text of /proc/stat: the time the
 * hypervisor ran something else while the CPU had work, which the kernel
 * leaves out of its tasks' run time (PARAVIRT_TIME_ACCOUNTING).  Column 8
 * of the "cpuN" lines, in ticks of tick_ns (USER_HZ).  steal_ns[N] is set
 * for N < max; returns the number of CPU ids (highest N + 1), or -1 if the
 * text has no cpuN line.  Pure: the tests feed it text.
 */
int tl_kstat_parse_steal(const char *text, uint64_t tick_ns, uint64_t *steal_ns, int max);

/* The same, read from /proc/stat now.  -1 with tl_error set if it cannot be read. */
int tl_kstat_steal(uint64_t *steal_ns, int max, uint64_t *tick_ns);

/* kernel.task_delayacct: 0 or 1, or -1 with tl_error set (no such setting, unreadable). */
int tl_delayacct_get(void);

/* Set kernel.task_delayacct to on (0 or 1).  0, or -1 with tl_error set (needs root). */
int tl_delayacct_set(int on);

#endif
