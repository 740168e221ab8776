/*
 * state_machine_int.h - the private parts of the thread-state machine,
 * shared by its two files: state_machine.c (the thread and CPU tables, the
 * intervals, thread life, tl_sched_feed() and the public calls) and
 * state_machine_events.c (what each kind of event does to the model).
 * Nothing outside lib/timeline/state_machine*.c includes this.
 *
 * The invariants are the ones state_machine.c states.
 */
#ifndef TL_STATE_MACHINE_INT_H
#define TL_STATE_MACHINE_INT_H

#include <stdint.h>

#include "base/tidmap.h"
#include "timeline/state_machine.h"

#define DEFAULT_PREEMPT_WINDOW_NS 1000000ull
/*
 * A switch this soon after sched_yield returned happened on the syscall's
 * way back to user space (exit_to_user_mode), so it is still the yield.
 */
#define YIELD_RETURN_NS 50000ull

struct thread {
	struct tl_thread pub;
	uint64_t run_since;    /* last switch-in (for "woken during this run") */
	uint64_t wake_ts;      /* when the current RUNNABLE began */
	int32_t by;            /* `by` for the open interval */
	uint64_t pend_wake_ts; /* a sched_waking seen while it was still on a CPU */
	int32_t pend_waker;
	uint8_t pend_wake;
	uint8_t in_futex_wait;  /* between sys_enter_futex (a wait op) and its exit */
	uint8_t in_yield;       /* between sys_enter_sched_yield and its exit */
	uint64_t yield_exit_ts; /* when sched_yield last returned, 0 if not since the last switch */
	uint8_t io_issued;      /* submitted block I/O during the current run */
	uint8_t evidence;       /* some event said what it was doing */
	uint8_t snap_io;        /* snapshot: wchan said block I/O */
	uint64_t marked_at;     /* first user marker since state_since while off a CPU: it ran then */
	uint8_t exited;         /* its EXIT was seen */
	uint8_t reaped;         /* its process's parent reaped it before its last switch-out */
	int32_t reap_tid;       /* woken by this exited process: it reaps it when it next runs */
	uint64_t gap_cpus;      /* UNKNOWN while these CPUs' lost events may hide its wakeup (bit 63: CPU 63 and up) */
	uint16_t gap_state;     /* the sleep it returns to when their gaps end */
	/* membership in its CPU's list of threads switched out runnable (pq_cpu -1: not listed) */
	struct thread *pq_next, *pq_prev;
	int16_t pq_cpu;
};

struct cpu {
	int32_t cur;   /* tid on the CPU; 0 idle; -1 unknown */
	uint16_t what; /* enum tl_cpu_activity of the open interval */
	int32_t irq;   /* for IRQ/SOFTIRQ intervals */
	uint64_t since;
	int irq_depth; /* nested hardirqs */
	int softirq_depth;
	uint64_t last_ts;         /* last event on this CPU */
	uint8_t after_lost;       /* the occupant is unknown because events were lost (not because the trace began) */
	uint8_t gap_open;         /* sleepers are UNKNOWN for this CPU's lost events: until its next event */
	struct thread *preempted; /* threads waiting here in READY_PREEMPT or READY_QUANTUM */
	uint64_t idle_ns;         /* its closed TL_CPU_IDLE intervals so far (tl_sched_cpu_idle_ns) */
	uint64_t filtered_ns;     /* and TL_CPU_FILTERED ones */
};

struct tl_sched {
	struct tl_sched_opts o;
	struct tl_sched_counters n;
	struct tl_tidmap live;     /* tid -> struct live */
	struct thread *recent[64]; /* direct-mapped cache of lookups (tid & 63): most events name a recent thread */
	struct cpu *cpus;
	int ncpus;
	uint32_t next_serial;
	uint64_t now;
	uint8_t inferring;  /* the transitions being made now are inferred: intervals get inferred_end */
	int32_t end_tid[2]; /* threads whose life ends with the event being applied (after on_event) */
	int nend;
	uint64_t damage_from; /* 1 + the start of the last damaged-block gap applied (LOST with TL_EVF_DAMAGE) */
};

/* ---- state_machine.c: tables, intervals, thread life ---- */

int tl_sm_table_insert(struct tl_sched *s, struct thread *t);
void tl_sm_table_remove(struct tl_sched *s, int32_t tid);
void tl_sm_pq_remove(struct tl_sched *s, struct thread *t);
void tl_sm_pq_add(struct tl_sched *s, struct thread *t, int c);
void tl_sm_set_state(struct tl_sched *s, struct thread *t, unsigned state, uint64_t at, int32_t by_closing);
void tl_sm_cpu_set(struct tl_sched *s, int c, unsigned what, int32_t tid, int32_t irq, uint64_t at);
unsigned tl_sm_cpu_base_activity(int32_t cur);
/*
 * 1 for an event that fires only in the context of the task it names, as
 * the CPU's current task, in every back end and filter: an interrupt of
 * it, its exit, exec or block I/O (not a wakeup: its waker may be another
 * process's task that a filter left unrecorded, unflagged before 1.7).
 */
int tl_sm_in_context(const struct tl_event *ev);
struct thread *tl_sm_thread_new(struct tl_sched *s, int32_t tid, uint64_t born, unsigned state);
void tl_sm_thread_end(struct tl_sched *s, struct thread *t, uint64_t at);
struct thread *tl_sm_thread_get(struct tl_sched *s, int32_t tid);
/* t, a zombie, is gone once the event being applied is (docs/STATES.md, "Exit"). */
void tl_sm_end_life(struct tl_sched *s, struct thread *t);
/*
 * Lost events: every runnable thread may have got a CPU in the gap, so it is
 * UNKNOWN from `from`; with asleep_too (a damaged block: wakeups of every
 * CPU are gone) so is every sleeping thread.
 */
void tl_sm_unknown_ready(struct tl_sched *s, uint64_t from, int asleep_too);
/* Lost events on a CPU: sleepers are UNKNOWN from `from` until the CPU's next event (gap_end). */
void tl_sm_gap_begin(struct tl_sched *s, int cpu, uint64_t from);
void tl_sm_gap_end(struct tl_sched *s, int cpu, uint64_t ts);

/* ---- state_machine_events.c: one handler per kind of event ---- */

void tl_sm_reveal(struct tl_sched *s, int c, int32_t tid, uint64_t runtime, const struct tl_event *ev);
/*
 * CPU c is idle, and the thread believed on it left unseen: UNKNOWN from
 * the CPU's last event, which is when the CPU goes idle too (a switch out
 * of idle, or an interrupt of the idle task, shows it).
 */
void tl_sm_left_for_idle(struct tl_sched *s, int c);
void tl_sm_on_switch(struct tl_sched *s, const struct tl_event *ev);
void tl_sm_on_wakeup(struct tl_sched *s, const struct tl_event *ev);
void tl_sm_on_fork(struct tl_sched *s, const struct tl_event *ev, const char *name);
void tl_sm_on_thread_info(struct tl_sched *s, const struct tl_event *ev, const char *name);
void tl_sm_on_exec(struct tl_sched *s, const struct tl_event *ev, const char *name);
void tl_sm_on_irq(struct tl_sched *s, const struct tl_event *ev);
void tl_sm_on_lost(struct tl_sched *s, const struct tl_event *ev);

#endif
