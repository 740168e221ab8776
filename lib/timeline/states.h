/*
 * states.h - the thread-state model shared by every analysis and writer.
 *
 * At every instant inside the trace each thread is in exactly one state.
 * docs/STATES.md gives the rule that puts a thread into each state and the
 * kernel evidence behind it.  The order of the enum is the order of columns
 * in reports; do not reorder (JSON uses the names, not the numbers).
 */
#ifndef TL_STATES_H
#define TL_STATES_H

enum tl_state {
	TL_ST_NEW = 0,       /* created, not yet woken for the first time */
	TL_ST_RUNNABLE,      /* woken, waiting for a CPU (scheduling latency) */
	TL_ST_READY_PREEMPT, /* runnable: a woken or higher-priority task took its CPU */
	TL_ST_READY_QUANTUM, /* runnable: its time slice ran out */
	TL_ST_READY_YIELD,   /* runnable: gave the CPU up itself (sched_yield) */
	TL_ST_EXECUTING,     /* on a CPU running its own code */
	TL_ST_INTERRUPTED,   /* on a CPU, but the CPU serves an IRQ or softirq */
	TL_ST_SYNC_WAIT,     /* asleep in a futex wait: mutex, condvar, barrier */
	TL_ST_SLEEPING,      /* other interruptible sleep: timer, poll, pipe, socket */
	TL_ST_IO_WAIT,       /* uninterruptible sleep waiting for block I/O */
	TL_ST_BLOCKED,       /* other uninterruptible sleep */
	TL_ST_STOPPED,       /* stopped or traced */
	TL_ST_ZOMBIE,        /* exited, not yet reaped */
	TL_ST_UNKNOWN,       /* nothing in the trace says yet what it is doing */
	TL_ST__COUNT
};

/* "EXECUTING", ...; "?" if out of range.  Never NULL. */
const char *tl_state_name(unsigned state);

/* "EXEC", "SYNC", ...: the report's column labels, at most 5 characters; "?" if out of range. */
const char *tl_state_short_name(unsigned state);

/* Parse a state name or column label (case-insensitive: "SYNC_WAIT" or "sync"); -1 if unknown. */
int tl_state_from_name(const char *name);

/* 1 for the states in which the thread waits for a CPU. */
static inline int tl_state_is_ready(unsigned s)
{
	return s == TL_ST_RUNNABLE || s == TL_ST_READY_PREEMPT || s == TL_ST_READY_QUANTUM || s == TL_ST_READY_YIELD;
}

/* 1 for the states in which the thread is on a CPU. */
static inline int tl_state_is_oncpu(unsigned s)
{
	return s == TL_ST_EXECUTING || s == TL_ST_INTERRUPTED;
}

/* 1 for the sleeping states (it left the CPU by itself and waits for a wakeup). */
static inline int tl_state_is_asleep(unsigned s)
{
	return s == TL_ST_SYNC_WAIT || s == TL_ST_SLEEPING || s == TL_ST_IO_WAIT || s == TL_ST_BLOCKED ||
	       s == TL_ST_STOPPED;
}

#endif
