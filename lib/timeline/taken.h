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
 * Invariants: a CPU's value and a stay's base are stored + 1 (0: none
 * known).  A stay's base is its CPU and the LOST events counted by then;
 * a growth counts only from a base on the same CPU with no event lost
 * since (a lost CLOCK_TAKEN would put another stay's steal into this one).
 *
 * Use: tl_taken_event() on every event, in trace order; at a SWITCH,
 * tl_taken_in() for the thread switched in and tl_taken_out() for the one
 * switched out; at a CLOCK_TAKEN of a thread, after tl_taken_event(),
 * tl_taken_grow() gives its stay's growth and moves its base.
 */
#ifndef TL_TAKEN_H
#define TL_TAKEN_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"

/* Every CPU's last value, and the LOST events so far. */
struct tl_taken {
	uint64_t *cpu; /* by CPU: its last value + 1, 0 none yet */
	size_t ncpu;
	uint64_t lost;
	int seen; /* a CLOCK_TAKEN came */
};

/* One thread's stay: where its growth counts from. */
struct tl_taken_stay {
	uint64_t base; /* the CPU's value + 1 when it went on, 0 none known */
	uint64_t lost; /* tl_taken.lost then */
	int cpu;       /* -1: off a CPU */
};

enum tl_taken_grew {
	TL_TAKEN_NONE = 0, /* ev holds no value (damage): nothing changed */
	TL_TAKEN_GREW,     /* *ns is the growth (0 or more) */
	TL_TAKEN_UNKNOWN,  /* no base: it was on the CPU before the CPU's first value */
	TL_TAKEN_BROKEN    /* its base is another CPU's, or events were lost since */
};

/* Counts a LOST, takes a CLOCK_TAKEN's value.  -1 out of memory (else 0). */
int tl_taken_event(struct tl_taken *tk, const struct tl_event *ev);

/* CPU cpu's last value + 1; 0 none yet (or out of range). */
uint64_t tl_taken_value(const struct tl_taken *tk, int cpu);

/* The stay goes on on cpu from v (a value + 1; 0 none known). */
void tl_taken_base(const struct tl_taken *tk, struct tl_taken_stay *s, int cpu, uint64_t v);

/* It was switched in on cpu: its stay starts from the CPU's value now. */
static inline void tl_taken_in(const struct tl_taken *tk, struct tl_taken_stay *s, int cpu)
{
	tl_taken_base(tk, s, cpu, tl_taken_value(tk, cpu));
}

/* It was switched out: no stay. */
static inline void tl_taken_out(const struct tl_taken *tk, struct tl_taken_stay *s)
{
	tl_taken_base(tk, s, -1, 0);
}

/*
 * ev, a CLOCK_TAKEN of s's thread, already passed to tl_taken_event(): what
 * its stay grew by since its base (*ns, TL_TAKEN_GREW), or why that is not
 * known (*ns 0).  Its base moves to ev's value either way.
 */
enum tl_taken_grew tl_taken_grow(const struct tl_taken *tk, struct tl_taken_stay *s, const struct tl_event *ev,
                                 uint64_t *ns);

void tl_taken_free(struct tl_taken *tk);

#endif
