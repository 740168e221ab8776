/*
 * event.h - the one event model shared by the recorder, the importers,
 * the trace reader and every analysis.
 *
 * An event is a small fixed-size struct.  Its meaning depends on `type`;
 * the table below says which fields each type uses.  Fields a type does not
 * use are zero.  Analyses never see a file format or a kernel layout: the
 * recorder and the importers translate kernel data (field offsets, the
 * kernel's prev_state bits) into this model, and the trace file stores it.
 *
 * Thread ids are kernel tids.  `cpu` is the CPU the event happened on, or
 * -1 for events that belong to no CPU (thread snapshots, user markers).
 * Names (thread names, IRQ handler names, file names) are ids into the
 * trace's string table; 0 means "no name".
 *
 *   type                tid        arg        name       a            b            c
 *   SWITCH              prev       next       -          prev_state   prev_prio    next_prio
 *   WAKING/WAKEUP       woken      waker      -          target_cpu   prio         -
 *   WAKEUP_NEW          woken      waker      -          target_cpu   prio         -
 *   FORK                child      parent     child comm -            -            -
 *   EXEC                pid        old_pid    filename   -            -            -
 *   EXIT                tid        -          -          -            run_total    -   (1.12)
 *   FREE                tid        -          -          -            -            -   (reaped)
 *   MIGRATE             tid        -          -          orig_cpu     dest_cpu     -
 *   RENAME              tid        -          new comm   -            -            -
 *   IRQ_ENTRY           cur tid    -          handler    irq          -            vector kind
 *   IRQ_EXIT            cur tid    -          -          irq          ret          vector kind
 *   SOFTIRQ_ENTRY/EXIT  cur tid    -          -          vec          -            -
 *   FUTEX_ENTER         tid        -          -          op           uaddr        val (a wait's, 1.11)
 *   FUTEX_EXIT          tid        -          -          ret          -            -
 *   BLOCK_ISSUE         submitter  -          -          dev          sector       bytes
 *   BLOCK_COMPLETE      cur tid    -          -          dev          sector       bytes
 *   THREAD              tid        tgid       comm       snap_state   -            -
 *   LOST                -          -          -          count        -            -
 *   RUNTIME             cur tid    -          -          runtime_ns   -            -
 *   YIELD_ENTER/EXIT    tid        -          -          -            -            -
 *   FRAME_BEGIN/END     tid        -          -          frame id     -            -
 *   REGION_BEGIN        tid        -          region     frame id|-1  -            -
 *   REGION_END          tid        -          region     -            -            -
 *   TASK_BEGIN          tid        -          task       frame id|-1  -            -
 *   TASK_END            tid        -          task       -            -            -
 *   INSTANT             tid        -          name       value        -            -
 *   FUNC_ENTRY/EXIT     tid        -          function   -            -            -
 *   MARKS_LOST          tid        -          -          count        -            -
 *   KSTAT               tid        point      -          run_ns       wait_ns      blkio_ns
 *   KSTAT_CSW           tid        point      -          voluntary    involuntary  -
 *   KSTAT_CPU           -          cpu        -          point        steal_ns     tick_ns
 *   FILTERED            tgid|-     kind       process      (by kind: see below)
 *   AFFINITY            tid        -          -          word         bits         count
 *   SAMPLE              tid        tgid       event      stack id     ip           period
 *   MAP                 pid        build ID   file       start        end          file offset
 *   KSYM                -          -          function   start        end          -
 *   FUTEX_WAIT          tid        -          -          uaddr        -            -
 *   FUTEX_NAME          pid        -          name       uaddr        -            -
 *   JSYM                pid        -          function   start        end          -
 *   CLOCK_TAKEN         tid        -          -          taken_ns     -            -
 *
 * The kernel's clock lag (`lag`, format 1.6, the eBPF back end): the
 * kernel's accounting (sum_exec_runtime, run_delay: what the self-check
 * compares with) dates a switch or an enqueue by its run queue's clock,
 * which was last updated some time before the event: at the start of
 * schedule(), or at an enqueue whose wakeup skipped the switch's own
 * update.  `lag` is that time in units of TL_LAG_UNIT_NS, rounded, plus
 * 1, for a SWITCH (this CPU's clock) and a WAKEUP or WAKEUP_NEW (the
 * target CPU's, at the enqueue); for an EXIT, how long before it the
 * kernel last accounted the thread's run, which is where its exit totals
 * end; 0 where it is unknown (the perf back end, older traces, imports).  So the kernel dates the event at
 * ts - tl_event_lag_ns(), within about 0.2 us (the clocks' offset is
 * estimated: capture/bpf/record.bpf.c, kclock_lag()).  The unit is below
 * that error and keeps the field to a byte or two: in ns, it made a futex
 * ping-pong's trace 86% larger; in 64 ns units, 12%.
 *
 * An exiting thread's totals (KSTAT at TL_KSTAT_AT_EXIT, below) are taken
 * a little before its EXIT's tracepoint.  The EXIT's lag counts from the
 * kernel's last accounting of its run, which is before them, unless a
 * tick accounted it in between.  So an EXIT's `b` (format 1.12, the eBPF
 * back end; 0 unknown) is the thread's run total then (sum_exec_runtime):
 * it plus the lag, less the totals' run, is what the thread ran after its
 * totals (analysis/kcheck).
 *
 * One date more for a SWITCH: the kernel ended prev's run at its last
 * accounting of it (se.exec_start), which may come before that clock:
 * schedule() updates the clock again when it balances load on a CPU about
 * to go idle (measured: 1.0 us on average at a switch to idle, 0 at one to
 * another task).  `lag_end` is that difference in units of
 * TL_LAG_UNIT_NS, rounded (at most 65535: 4.2 ms); prev's run then ended
 * at ts - tl_event_lag_ns() - tl_event_lag_end_ns().
 *
 * THREAD is the recorder's statement of a thread's identity (its process
 * and name), emitted when the thread first shows up, when it is found in
 * the /proc snapshot at the start of -p/-a recordings (then snap_state
 * holds TL_PS_* bits of its state at that moment, with TL_PS_SNAPSHOT set),
 * and whenever the identity changes.
 *
 * The user markers (FRAME_*, REGION_*, TASK_*, INSTANT) come from the
 * instrumentation library (include/threadlens.h) through a shared-memory
 * ring; they have cpu -1 and their timestamps are the program's own
 * CLOCK_MONOTONIC readings.  A REGION/TASK begin carries the frame its
 * thread works on (tl_frame_begin/tl_frame_join), or -1.  FUNC_ENTRY/EXIT
 * come from uprobes (`record --func`) and have the CPU they fired on.
 * MARKS_LOST says a thread's marker buffer was full and `count` markers
 * were dropped.
 *
 * KSTAT and KSTAT_CSW (format 1.1) are the kernel's own accounting of a
 * thread (capture/kstat.h), read by the recorder when the trace starts
 * (point TL_KSTAT_AT_START), when it ends (TL_KSTAT_AT_END) and when the
 * thread exits (TL_KSTAT_AT_EXIT, from taskstats): ns on a CPU, ns waiting
 * on a run queue, ns of block-I/O delay, and context-switch counts.  A value
 * the kernel did not give is -1.  They have cpu -1 and come in pairs with
 * the same ts; an EXIT pair's ts is when the recorder heard of the exit,
 * after the thread's last event.  `report` checks the state times against
 * them (analysis/kcheck).  A live thread's reading is stamped right after
 * it, and began at most TL_KSTAT_READ_SPAN_NS before (the recorder reads
 * again when it took longer; from format 1.15): the kernel's numbers are
 * as of some moment in that span.  KSTAT_CPU is a CPU's steal time at the start and
 * the end (/proc/stat: time the hypervisor ran something else, which the
 * kernel leaves out of run time and a trace cannot see), counted in ticks
 * of tick_ns.
 *
 * CLOCK_TAKEN (format 1.15, eBPF) is, on its CPU, the time the run queue
 * has taken out of its tasks' clock since boot (rq->clock - clock_task:
 * the hypervisor's steal, and interrupt time on kernels built with
 * IRQ_TIME_ACCOUNTING), as of the clock update that dates the event after
 * it: written before a SWITCH (tid: its prev, whose stay ends; 0 when it
 * is of a process a filtered recording leaves out), and before
 * the IRQ_EXIT of a scheduler tick (tid: the task it interrupts), whenever
 * it changed since the CPU's last one.  What it grows by during a thread's
 * stay on a CPU is what the kernel left out of that thread's run time
 * (analysis/kcheck).
 *
 * AFFINITY (format 1.3) is a thread's affinity mask as the recorder read
 * it (when it first saw the thread, and again whenever it changed): bits
 * b of word a are CPUs 64a..64a+63, c is the number of CPUs allowed in all.
 * One event per non-zero word; cpu is -1, or the CPU of the event that
 * made the recorder look.
 *
 * SAMPLE (format 1.5) is one sample of a profiling event (`record
 * --sample`): the thread the CPU ran, its process, the event's perf name
 * ("cpu-clock"), the call stack (an id of the trace's stack table, 0 when
 * not recorded: tl_trace_stack(); innermost frame first, kernel frames
 * before user ones), the sampled instruction address, and the period: the
 * event's count since the previous sample (ns for cpu-clock).
 *
 * MAP (format 1.5) is an executable mapping of a process that samples
 * name, from /proc/PID/maps (capture/procmaps.h): addresses [start, end)
 * hold the file from `file offset` on.  A process's mappings are written
 * when its first sample is seen (at that sample's time) and again, all of
 * them, whenever a later reading finds them changed (a dlopen, an exec:
 * right after the EXEC event); a recorded command's are also read before
 * it execs.  A sample is resolved with the mappings of its process read
 * since its last EXEC, before or after it (a library loaded after the
 * first reading shows up in a later one); a process with none (gone
 * before its reading) with its parent's, as they were at the FORK.  The first set has
 * the first sample's CPU and time (it comes right before it), the later
 * ones cpu -1 and the time of the flush that read them.  From format 1.14
 * `arg` is the string id of the file's build ID in hex (0: none known: a
 * pseudo-file, a file without one, or an older trace), read from the file
 * the process mapped (capture/buildids.h), so that a reader can tell a file
 * rebuilt since from the one that ran.
 *
 * KSYM (format 1.5): a kernel function that the recording's samples hit,
 * from /proc/kallsyms at its end (capture/kallsyms.h): [start, end) and
 * its name ("func", or "func [module]").  cpu -1, at the end's time.
 *
 * JSYM (format 1.13): a JIT-compiled function of process `pid` that the
 * recording's samples hit, from the perf map the process wrote
 * (/tmp/perf-PID.map, symbols/perfmap.h) read at the recording's end:
 * [start, end) and its name as the map gives it.  cpu -1, at the end's
 * time.  Those of a process stand for its map: a reader of the trace
 * looks no further (the file may be gone, or another machine's).
 *
 * FILTERED (format 1.2) is what an eBPF recording of one program (-p or a
 * command) left in the kernel: the CPU's time while other processes or the
 * idle task held it, as totals per CPU (`cpu`) written when the recording
 * ends.  kind TL_FILT_CPU_TIME: a = busy ns (other processes, interrupts
 * apart), b = idle ns, c = switches left out; TL_FILT_CPU_INTR: a = hard
 * interrupt ns, b = softirq ns inside those stretches, c = ns unknown (the
 * occupant changed and no switch said so); TL_FILT_PROCESS:
 * tid = a process, name = its name, a = its ns on the CPU.  The stretches
 * themselves are in the stream: a SWITCH to a task that is not recorded
 * carries TL_EVF_OTHER_ARG, and the CPU's time until its next SWITCH is
 * filtered.
 *
 * IRQ_ENTRY/EXIT with TL_EVF_VECTOR (format 1.4) are a CPU's own
 * interrupts, which no IRQ line names: the local timer and the
 * inter-processor interrupts (x86's irq_vectors tracepoints).  Then `a` is
 * the CPU vector, `c` the kind (enum tl_vector_kind, portable where vector
 * numbers are not), the entry's name the kind's name ("local_timer");
 * IRQ_EXIT's ret is 0, or (format 1.6, eBPF) 1 on a local timer
 * interrupt in which the scheduler tick ran, which updates the run time
 * of the CPU's task (analysis/kcheck: stale readings).  An older reader
 * takes them for IRQ line `a`.
 *
 * YIELD_SPIN (format 1.8, eBPF on kernels with sched_exit_tp: 6.15 on) is a run of a thread's sched_yield calls
 * with no switch between them: each returned at once (no other task wanted
 * its CPU), so the thread may have spun on the CPU waiting for something.
 * Calls join a run while they come at most TL_YIELD_SPIN_GAP_NS apart (1
 * ms: a spinning thread of this VM went 100-300 us without a call, an
 * interrupt or a switch, its virtual CPU stopped; a run's calls per second
 * tell a spin from calls between pieces of real work: analysis/yspin); a
 * run ends at a longer gap, at the thread's next switch, after
 * TL_YIELD_SPIN_MAX_NS, or when the recording ends.  Runs of one call are
 * not written.  tid = the thread, cpu = its CPU, a = the calls, b = ns
 * from the first call's entry to the last one's, c = ns from the last
 * call's entry to ts (the event is written when the run ends, after it).
 * The perf back end writes every call instead (YIELD_ENTER/EXIT), and
 * the report finds the same runs in them (analysis/yspin).
 *
 * FUTEX_WAIT (format 1.9, eBPF) comes right before the SWITCH (same ts
 * and CPU) that puts `tid` to sleep in a futex wait (TL_EVF_WAIT_FUTEX;
 * not futex_waitv, which waits on several): `a` is the futex word's
 * address in the thread's process, so the waits on one lock (or one
 * condition) can be told apart.  The perf back end has it in FUTEX_ENTER's
 * uaddr.  An older reader skips it.
 *
 * FUTEX_NAME (format 1.10, either back end) names a futex word the first
 * time a thread of process `tid` waits on it (right after that FUTEX_WAIT
 * or FUTEX_ENTER, same time and CPU): the data object that holds it with
 * its file ("queue_lock (app)", "pool+0x40 (libfoo.so)"), or the mapping
 * ("[heap]", "[stack]", "[anon]"), read off the live process
 * (capture/locknames.h); none when the process was gone.  An older reader
 * skips it.
 *
 * RUNTIME is kept by the recorder only where it shows a task running that
 * no recorded switch put on the CPU: some kernels (seen on a 6.18 VM) drop
 * the sched_switch out of the idle task, and the runtime since the task's
 * last accounting update tells when it really got the CPU.
 */
#ifndef TL_EVENT_H
#define TL_EVENT_H

#include <stdint.h>

/* YIELD_SPIN's runs: the longest gap between two calls of one run, its longest span. */
#define TL_YIELD_SPIN_GAP_NS 1000000ull
#define TL_YIELD_SPIN_MAX_NS 100000000ull

enum tl_event_type {
	TL_EV_NONE = 0,
	TL_EV_SWITCH,
	TL_EV_WAKING,
	TL_EV_WAKEUP,
	TL_EV_WAKEUP_NEW,
	TL_EV_FORK,
	TL_EV_EXEC,
	TL_EV_EXIT,
	TL_EV_FREE,
	TL_EV_MIGRATE,
	TL_EV_RENAME,
	TL_EV_IRQ_ENTRY,
	TL_EV_IRQ_EXIT,
	TL_EV_SOFTIRQ_ENTRY,
	TL_EV_SOFTIRQ_EXIT,
	TL_EV_FUTEX_ENTER,
	TL_EV_FUTEX_EXIT,
	TL_EV_BLOCK_ISSUE,
	TL_EV_BLOCK_COMPLETE,
	TL_EV_THREAD,
	TL_EV_LOST,
	TL_EV_RUNTIME,     /* sched_stat_runtime: the current task ran runtime_ns since its last update */
	TL_EV_YIELD_ENTER, /* sys_enter_sched_yield */
	TL_EV_YIELD_EXIT,  /* sys_exit_sched_yield */
	TL_EV_FRAME_BEGIN,
	TL_EV_FRAME_END,
	TL_EV_REGION_BEGIN,
	TL_EV_REGION_END,
	TL_EV_TASK_BEGIN,
	TL_EV_TASK_END,
	TL_EV_INSTANT,
	TL_EV_FUNC_ENTRY,
	TL_EV_FUNC_EXIT,
	TL_EV_MARKS_LOST,
	TL_EV_KSTAT,       /* format 1.1: the kernel's run / run-queue / block-I/O times of a thread */
	TL_EV_KSTAT_CSW,   /* format 1.1: its voluntary / involuntary switch counts */
	TL_EV_KSTAT_CPU,   /* format 1.1: a CPU's steal time */
	TL_EV_FILTERED,    /* format 1.2: totals of what a filtered recording left in the kernel */
	TL_EV_AFFINITY,    /* format 1.3: the CPUs a thread may run on (capture/affinity.h) */
	TL_EV_SAMPLE,      /* format 1.5: a profiling sample (record --sample) */
	TL_EV_MAP,         /* format 1.5: a code mapping of a sampled process */
	TL_EV_KSYM,        /* format 1.5: a kernel function that samples hit */
	TL_EV_YIELD_SPIN,  /* format 1.8: a run of sched_yield calls that gave no CPU away */
	TL_EV_FUTEX_WAIT,  /* format 1.9: the futex word of the futex wait the next SWITCH begins */
	TL_EV_FUTEX_NAME,  /* format 1.10: a futex word's name: the data object, or mapping, that holds it */
	TL_EV_JSYM,        /* format 1.13: a JIT-compiled function that samples hit (its process's perf map) */
	TL_EV_CLOCK_TAKEN, /* format 1.15: a CPU's time taken out of its tasks' clock: steal (eBPF) */
	TL_EV__COUNT       /* keep last; new types go above and get a format doc line */
};

/*
 * Portable task-state bits for SWITCH.a (prev_state) and THREAD.a.
 * The kernel's own bit values changed between releases; the recorder and
 * the importers translate into these.  No bit set means runnable ("R").
 */
enum tl_prev_state {
	TL_PS_RUNNING = 0,
	TL_PS_S = 1 << 0,        /* interruptible sleep */
	TL_PS_D = 1 << 1,        /* uninterruptible sleep */
	TL_PS_T = 1 << 2,        /* stopped */
	TL_PS_TRACED = 1 << 3,   /* "t": traced */
	TL_PS_X = 1 << 4,        /* dead */
	TL_PS_Z = 1 << 5,        /* zombie */
	TL_PS_P = 1 << 6,        /* parked */
	TL_PS_I = 1 << 7,        /* idle kernel thread (uninterruptible but not loading) */
	TL_PS_PREEMPT = 1 << 8,  /* the "+" of "R+": switched out by preemption */
	TL_PS_SNAPSHOT = 1 << 9, /* THREAD only: state read from /proc at trace start */
};

/* KSTAT.arg: when the kernel's counters were read. */
enum tl_kstat_point {
	TL_KSTAT_AT_START = 0, /* when the trace started (or the thread was first seen) */
	TL_KSTAT_AT_END = 1,   /* when the trace ended, the thread still alive */
	TL_KSTAT_AT_EXIT = 2,  /* when the thread exited: its final totals */
};

/* A live thread's KSTAT began at most this long before its ts (above). */
#define TL_KSTAT_READ_SPAN_NS 200000ull

/* FILTERED.arg: what the totals are. */
enum tl_filtered_kind {
	TL_FILT_CPU_TIME = 0, /* a busy_ns, b idle_ns, c switches */
	TL_FILT_CPU_INTR = 1, /* a irq_ns, b softirq_ns, c unknown_ns */
	TL_FILT_PROCESS = 2,  /* tid the process, name its name, a ns */
};

/* Context flags (tl_event.flags): where the event fired. */
enum tl_event_flags {
	TL_EVF_HARDIRQ = 1 << 0, /* fired inside a hard interrupt handler */
	TL_EVF_SOFTIRQ = 1 << 1, /* fired inside softirq processing */
	TL_EVF_NMI = 1 << 2,
	TL_EVF_CTX = TL_EVF_HARDIRQ | TL_EVF_SOFTIRQ | TL_EVF_NMI,
	/*
	 * SWITCH only (format 1.1, the eBPF back end): what prev leaves the CPU
	 * in, read from its saved registers instead of syscall events: a futex
	 * wait (as FUTEX_ENTER before the switch would say), or sched_yield (as
	 * YIELD_ENTER would).  An older reader ignores them.
	 */
	TL_EVF_WAIT_FUTEX = 1 << 3,
	TL_EVF_WAIT_YIELD = 1 << 4,
	/*
	 * Format 1.2, a filtered eBPF recording: the thread in `tid` (SWITCH:
	 * prev; WAKING/WAKEUP: the woken) or in `arg` (SWITCH: next; from
	 * format 1.7, WAKING/WAKEUP/WAKEUP_NEW: the waker) is not a recorded
	 * thread (the idle task included): its other events were left in the
	 * kernel, so it has no states.  A SWITCH with OTHER_ARG starts a
	 * filtered stretch of its CPU, which the next SWITCH (with OTHER_TID)
	 * ends; FILTERED events give the stretches' totals.
	 */
	TL_EVF_OTHER_TID = 1 << 5,
	TL_EVF_OTHER_ARG = 1 << 6,
	/*
	 * SWITCH with TL_EVF_WAIT_FUTEX (format 1.2): the wait is a lock's
	 * (FUTEX_WAIT or LOCK_PI: glibc's mutexes, barriers), not a
	 * condition's (FUTEX_WAIT_BITSET: condition variables, joins,
	 * semaphores).  diagnose tells lock contention from waiting for work
	 * by it.
	 */
	TL_EVF_WAIT_LOCK = 1 << 7,
	/*
	 * LOST only, never in a file: made by the reader where it skipped a
	 * damaged block (docs/FORMAT.md "Reading"), at the first event of each
	 * CPU after the gap.  The count is 0: how many events the block held is
	 * not known.  The state machine treats it as any loss on that CPU.
	 */
	TL_EVF_DAMAGE = 1 << 8,
	/*
	 * IRQ_ENTRY/EXIT only (format 1.4): a local timer or inter-processor
	 * interrupt, not an IRQ line (see above); `c` says which.
	 */
	TL_EVF_VECTOR = 1 << 9,
	/*
	 * FUNC_ENTRY only (format 1.4): the entry of a copy of the function
	 * that the compiler inlined (DWARF, record --func): no FUNC_EXIT
	 * follows, so it counts a call and makes no span.
	 */
	TL_EVF_INLINED = 1 << 10,
};

/* IRQ_ENTRY/EXIT.c with TL_EVF_VECTOR: which of the CPU's own interrupts. */
enum tl_vector_kind {
	TL_VEC_OTHER = 0,
	TL_VEC_LOCAL_TIMER = 1,          /* the scheduler tick, hrtimers */
	TL_VEC_RESCHEDULE = 2,           /* IPI: another CPU asks this one to reschedule */
	TL_VEC_CALL_FUNCTION = 3,        /* IPI: run a function (TLB shootdowns, ...) on several CPUs */
	TL_VEC_CALL_FUNCTION_SINGLE = 4, /* IPI: run a function on this CPU */
	TL_VEC_PLATFORM_IPI = 5,         /* hypervisor callback (x86_platform_ipi) */
	TL_VEC__COUNT
};

/*
 * The interrupt source an IRQ_ENTRY/EXIT stands for, as the CPU view
 * (tl_cpu_interval.irq) and the per-thread interrupt tables count it: the
 * IRQ line, or TL_IRQ_VECTOR | kind for a TL_EVF_VECTOR one.
 */
#define TL_IRQ_VECTOR 0x40000000

/* Futex operation codes that we care about (FUTEX_CMD_MASK applied). */
enum tl_futex_cmd {
	TL_FUTEX_WAIT = 0,
	TL_FUTEX_WAKE = 1,
	TL_FUTEX_LOCK_PI = 6,
	TL_FUTEX_UNLOCK_PI = 7,
	TL_FUTEX_TRYLOCK_PI = 8,
	TL_FUTEX_WAIT_BITSET = 9,
	TL_FUTEX_WAKE_BITSET = 10,
	TL_FUTEX_WAIT_REQUEUE_PI = 11,
	TL_FUTEX_LOCK_PI2 = 13,
	TL_FUTEX_WAITV = 100, /* futex_waitv(2): our own code, not a kernel op */
};
#define TL_FUTEX_CMD_MASK 0x7f /* ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME) */

struct tl_event {
	uint64_t ts;      /* nanoseconds, CLOCK_MONOTONIC */
	uint16_t type;    /* enum tl_event_type */
	int16_t cpu;      /* -1: no CPU */
	uint16_t flags;   /* enum tl_event_flags */
	uint16_t lag_end; /* SWITCH (1.6): prev's run ended that much earlier still (below); 0 none or unknown */
	int32_t tid;
	int32_t arg;
	uint32_t name; /* string id, 0 = none */
	uint32_t lag;  /* SWITCH, WAKEUP, WAKEUP_NEW, EXIT (1.6): the kernel's clock lag (below); 0 unknown */
	int64_t a, b, c;
};

#define TL_LAG_UNIT_NS 64

/* A clock lag of ns_plus_1 - 1 ns (0: unknown) as the event's `lag` field. */
static inline uint32_t tl_lag_units(uint32_t ns_plus_1)
{
	return ns_plus_1 ? (ns_plus_1 - 1 + TL_LAG_UNIT_NS / 2) / TL_LAG_UNIT_NS + 1 : 0;
}

/* How much earlier than the clock's lag prev's run ended, in ns (a SWITCH; 0 none). */
static inline uint64_t tl_event_lag_end_ns(const struct tl_event *e)
{
	return (uint64_t)e->lag_end * TL_LAG_UNIT_NS;
}

/* The kernel's clock lag of the event in ns (0 when unknown: test e->lag first). */
static inline uint64_t tl_event_lag_ns(const struct tl_event *e)
{
	return e->lag ? (uint64_t)(e->lag - 1) * TL_LAG_UNIT_NS : 0;
}

/* The source an IRQ_ENTRY/EXIT counts as (TL_IRQ_VECTOR above). */
static inline int32_t tl_irq_source(const struct tl_event *ev)
{
	if (ev->flags & TL_EVF_VECTOR)
		return TL_IRQ_VECTOR | (int32_t)(ev->c >= 0 && ev->c < TL_VEC__COUNT ? ev->c : TL_VEC_OTHER);
	return (int32_t)ev->a;
}

/* "local_timer", "reschedule", ... for a tl_vector_kind; "vector" if unknown.  Never NULL. */
const char *tl_vector_name(int64_t kind);

/* "switch", "waking", ...; "?" for an unknown type.  Never NULL. */
const char *tl_event_type_name(unsigned type);

/* Softirq vectors the analyses tell apart (the kernel's numbering) */
#define TL_SOFTIRQ_TIMER 1
#define TL_SOFTIRQ_HRTIMER 8

/* "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", ... for a softirq vector (SOFTIRQ_ENTRY arg); "?" if unknown. */
const char *tl_softirq_name(int64_t vec);

/* 1 if a futex op (after TL_FUTEX_CMD_MASK) is one that puts the caller to sleep. */
int tl_futex_op_waits(int64_t op);

/*
 * 1 if a futex wait with this op and expected value `val` is a lock's, 0 if
 * a condition's.  glibc: a mutex or a barrier waits with FUTEX_WAIT (or
 * LOCK_PI); a reader-writer lock with FUTEX_WAIT_BITSET and the value 3
 * (a reader: 1 | the word's FUTEX_USED bit) or 2 (a writer), where a
 * condition variable and a semaphore wait with 0 and a join with the
 * thread's tid.  So does Rust's Mutex (2).  A FUTEX_WAIT_BITSET of
 * another value is a condition's; C++20's atomic waits, which wait with
 * whatever value the atomic held, read as a lock's when that was 2 or 3.
 * The eBPF recorder applies the same rule in the kernel (record.bpf.c).
 */
int tl_futex_wait_locks(int64_t op, int64_t val);

/* Format prev_state bits as the kernel prints them ("R+", "S", "D|K"...) into buf. */
const char *tl_prev_state_str(int64_t state, char *buf, unsigned len);

#endif
