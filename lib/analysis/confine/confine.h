/*
 * confine.h - waits for a CPU beside an idle CPU the thread may not use.
 *
 * A thread's affinity mask (sched_setaffinity, pthread_setaffinity_np,
 * taskset, OMP_PLACES, a container's cpuset) names the CPUs it may run on.
 * When it waits for a CPU while a CPU outside its mask sits idle, the mask
 * is what keeps it waiting: the scheduler would have moved it.  Two busy
 * threads pinned to one CPU of two take turns on it and the other stays
 * idle; each waits half its time (wl_states quantum), and perf, the
 * scheduler's counters and the report's states show only READY_QUANTUM.
 *
 * The collector rides on the report's walk (report.c passes it every
 * AFFINITY and FILTERED event and every interval of the threads it
 * analyses).  For a confined thread (its last mask, from the trace's
 * AFFINITY events, leaves out at least one CPU of the machine) it reads,
 * when a wait for a CPU begins (RUNNABLE, READY_PREEMPT, READY_QUANTUM),
 * each CPU's idle time so far (tl_sched_cpu_idle_ns), and again when the
 * wait ends, and sums each excluded CPU's idle time in its waits.  Its
 * `idle elsewhere` time is the largest of those sums, less the idle time
 * of the CPU each wait was on: a thread woken onto an idle CPU waits for
 * that CPU to leave its idle state, mask or not (a ping-pong pinned to two
 * CPUs: each wakeup finds the other CPU going idle).  That is the time an
 * excluded CPU was idle while its own was busy when one CPU is excluded,
 * and a lower bound of it otherwise; less TL_CONFINE_TAKE_NS a wait, and
 * none for a wait no longer than that.  Waits held back by a CPU limit (READY_QUANTUM with
 * `by` 0: the thread's own CPU was idle, state_machine.h) and yields are
 * not counted: the mask did not cause them.
 *
 * A filtered recording (a command, -p) does not tell a CPU's idle task
 * from the other processes it ran: that time counts in the share of it the
 * kernel's totals (FILTERED) say the CPU was idle; a CPU without totals
 * counts only the idle time the trace shows (nothing is invented).  The
 * mask is the recorder's reading, which follows a change at its next look
 * (capture/affinity.h): a thread that narrows its mask counts from that
 * look on.  A wait that began before the window counts in proportion to
 * its part in it.  Memory: a small record per thread, and four numbers
 * per CPU for each confined thread.
 */
#ifndef TL_CONFINE_H
#define TL_CONFINE_H

/*
 * A wait counts beyond this: an idle CPU needs time to take a thread sent
 * to it (an IPI, the exit from its idle state: 19 us on average on this
 * VM, the cross-CPU wakeups of `wl_kernel pingpong`), so a wider mask
 * saves nothing of a shorter wait (a ping-pong pinned to one CPU: each
 * woken thread waits a few us for its waker to block).
 */
#define TL_CONFINE_TAKE_NS 50000ull

#include <stdint.h>

#include "timeline/state_machine.h"
#include "timeline/walk.h"
#include "trace/event.h"

struct tl_confine;

struct tl_confine_thread {
	uint64_t waits; /* waits for a CPU ended in the window beside an idle CPU it may not use */
	uint64_t ns;    /* their idle-elsewhere time (above), at most their time in the window */
	int cpus;       /* CPUs its mask allowed (its last mask) */
};

/* The walk's state machine (for the CPUs' idle times) and window, the machine's CPUs.  NULL with tl_error set. */
struct tl_confine *tl_confine_new(struct tl_sched *sched, const struct tl_walk_result *r, int ncpus);
/* An event of thread th (the collector takes AFFINITY and FILTERED events).  0, or -1 out of memory. */
int tl_confine_event(struct tl_confine *c, const struct tl_thread *th, const struct tl_event *ev);
/* Every interval of th, in its order. */
void tl_confine_interval(struct tl_confine *c, const struct tl_thread *th, const struct tl_interval *iv);
/* After the walk: the thread of that serial's sums (all 0 for one never confined). */
void tl_confine_get(const struct tl_confine *c, uint32_t serial, struct tl_confine_thread *out);
void tl_confine_free(struct tl_confine *c);

#endif
