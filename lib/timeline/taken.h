/*
 * taken.h - what the run queue took out of a thread's stay on a CPU: the
 * hypervisor's steal, from CLOCK_TAKEN events (format 1.15).
 *
 * A CLOCK_TAKEN says CPU ev->cpu's run queue has taken ev->a out of its
 * tasks' clock so far (rq->clock - rq->clock_task: steal, and irq time on
 * IRQ_TIME_ACCOUNTING kernels), as of the clock update of the switch or
 * tick that ends or interrupts the stay of ev->tid (0: a thread of a
 * process not recorded).  What the value grew by since that thread's
 * switch-in, or its stay's last CLOCK_TAKEN, is what the kernel left out
 * of its run time in that stretch.
 *
 * A stay is one CPU's: each CPU keeps the thread its last SWITCH put on it,
 * where that stay's growth counts from (the CPU's value then, or at the
 * stay's last CLOCK_TAKEN) and the LOST events counted by then.  So a
 * SWITCH costs a store into its CPU's slot and no thread lookup; a caller
 * looks up a thread only for the CLOCK_TAKEN that names it (rare: one is
 * written only when the value changed).
 *
 * Invariants: values are stored + 1 (0: none known).  A CPU's value
 * never goes down: one below its last stands for the last (a torn read
 * of the run queue's clocks; a spike up then back counts once).  A growth counts
 * only for the thread on the CPU, from a base of the same stay, with no
 * event lost since (a lost CLOCK_TAKEN would put another stay's steal
 * into this one, a lost SWITCH another thread's), and never more than the
 * time since the base's clock update, give or take TL_TAKEN_SLACK_NS (a
 * development build of the 1.15 recorder advanced a CPU's value past a
 * CLOCK_TAKEN its full ring dropped: 5.68 ms taken from a /bin/true 1.6
 * ms on a CPU; damage can do the same).  A switch out of idle is dated
 * from its clock update, which may be long before it (the vCPU halted:
 * 73 us taken 15.7 us after a switch-in whose update was 135 us earlier),
 * and a tick's value is as of the update inside it.
 */
#ifndef TL_TAKEN_H
#define TL_TAKEN_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"

#define TL_TAKEN_SLACK_NS 1000000ull /* a tick's update before its end, a switch's lag not seen yet */

struct tl_taken_cpu {
	uint64_t value; /* its last CLOCK_TAKEN + 1, 0 none yet */
	uint64_t base;  /* the stay's base + 1 (the value at its switch-in or last CLOCK_TAKEN), 0 none */
	uint64_t lost;  /* tl_taken.lost at the base */
	uint64_t at;    /* the base's time: its clock update's (a SWITCH's ts less its lag) */
	int32_t tid;    /* the thread on it (its last SWITCH's next, or CLOCK_TAKEN's); -1 unknown */
};

struct tl_taken {
	struct tl_taken_cpu *cpu; /* by CPU number, grown as they come */
	size_t ncpu;
	uint64_t lost; /* LOST events so far */
	int seen;      /* a CLOCK_TAKEN came: the trace knows what was taken */
	int oom;
};

enum tl_taken_grew {
	TL_TAKEN_NONE = 0, /* not a CLOCK_TAKEN, or one without a value (damage) */
	TL_TAKEN_GREW,     /* *ns is what ev->tid's stay grew by (0 or more) */
	TL_TAKEN_UNKNOWN,  /* its stay began before its CPU's first value (or first SWITCH) */
	TL_TAKEN_BROKEN    /* the CPU held another thread, events were lost since its base, or more was
	                      taken than the time since it */
};

enum tl_taken_grew tl_taken_event_slow(struct tl_taken *tk, const struct tl_event *ev, uint64_t *ns);

/*
 * Every event, in trace order (LOST, SWITCH and CLOCK_TAKEN are read, the
 * rest pass at the cost of a compare).  For a CLOCK_TAKEN: what the stay
 * of ev->tid grew by (*ns, TL_TAKEN_GREW) or why that is not known (*ns 0).
 */
static inline enum tl_taken_grew tl_taken_event(struct tl_taken *tk, const struct tl_event *ev, uint64_t *ns)
{
	*ns = 0;
	if (ev->type != TL_EV_SWITCH && ev->type != TL_EV_CLOCK_TAKEN && ev->type != TL_EV_LOST)
		return TL_TAKEN_NONE;
	return tl_taken_event_slow(tk, ev, ns);
}

void tl_taken_free(struct tl_taken *tk);

#endif
