/*
 * tlb.h - the records the eBPF recorder (record.bpf.c) writes into its ring
 * buffer and capture/bpf_rec.c reads: shared by the BPF program and user
 * space, so only fixed-size types and no pointers.
 *
 * A record is a struct tlb_hdr, then hdr.ncomm struct tlb_comm (threads the
 * event names, with their names: what the perf back end learns from the
 * tracepoint's comm fields; a switch or a wakeup carries only the names its
 * CPU has not sent since its last loss, record.bpf.c comm_new()), then hdr.name_len bytes of a name (an IRQ
 * handler, an exec'd file, a new comm; up to TLB_MARK_NAME_MAX for a
 * marker's), not NUL-terminated.  The event
 * fields mean what they mean in trace/event.h; `type` is an enum
 * tl_event_type and `flags` its TL_EVF_* bits.  The reader checks every
 * length against the record's size (bpf_rec.c, tlb_parse()).
 */
#ifndef TL_TLB_H
#define TL_TLB_H

#define TLB_COMM_LEN 16
#define TLB_NAME_MAX 64       /* longer names (exec'd paths) are cut */
#define TLB_MARK_NAME_MAX 255 /* a marker's name (umarks.h): longer ones are cut */
#define TLB_STACK_KERNEL 64   /* frames of a SAMPLE record's stack: kernel part (a power of 2) */
#define TLB_STACK_USER 64     /* and user part: the record holds both (sample.h) */
#define TLB_DWARF_STACK 8192  /* --stack dwarf: bytes of user stack copied (perf's default) */
#define TLB_DWARF_CHUNK 512   /* copied this many at a time, up to where the stack ends */

struct tlb_hdr {
	__u64 ts; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u16 type;
	__s16 cpu;
	__u16 flags;
	__u8 ncomm;              /* 0..2 */
	__u8 name_len;           /* 0..TLB_NAME_MAX */
	__s32 cur_tid, cur_tgid; /* the task on the CPU */
	__s32 tid, arg;
	__s64 a, b, c;
};

struct tlb_comm {
	__s32 tid;
	char comm[TLB_COMM_LEN];
};

/* The per-CPU counters of the program (map "stats"), in this order. */
enum tlb_stat {
	TLB_STAT_DROPPED = 0, /* records the ring buffer had no room for */
	TLB_STAT_FILTERED,    /* events about other processes, left in the kernel (filter) */
	TLB_STAT__COUNT
};

/*
 * Filtering (-p or a command): only events about the recorded processes
 * (map "tracked": their tgids) leave the kernel.  A CPU's time while a task
 * of another process or the idle task holds it (a "filtered stretch", from
 * the switch to it to the next switch to a recorded thread) is summed here,
 * per CPU (map "acct"), and per CPU and process (map "others"); the reader
 * writes the sums as FILTERED events when the recording ends.
 */
enum tlb_occupant {
	TLB_OCC_UNKNOWN = 0, /* no switch seen on this CPU yet */
	TLB_OCC_RECORDED,    /* a thread of a recorded process */
	TLB_OCC_OTHER,       /* a task of another process */
	TLB_OCC_IDLE,        /* the idle task */
};

struct tlb_cpu {
	__u64 since;                    /* when the occupant got the CPU (the reader sets the start) */
	__u64 busy_ns, idle_ns;         /* filtered stretches: other tasks, idle (interrupts apart) */
	__u64 irq_ns, softirq_ns;       /* interrupts inside filtered stretches */
	__u64 switches;                 /* switches left in the kernel */
	__u64 intr_ns;                  /* interrupt time in the occupant's stay so far */
	__u64 irq_since, softirq_since; /* an interrupt in progress, 0 if none */
	__u64 softirq_nested;           /* hard interrupts inside the softirq in progress */
	__u64 seen;                     /* when the occupant was last seen holding the CPU */
	__u64 unknown_ns;               /* lost to occupant changes no switch reported */
	__u32 kind;                     /* enum tlb_occupant */
	__u32 occ_tgid;                 /* the occupant's process */
	__u32 occ_pid;                  /* the occupant (0: idle) */
	__u32 acc_tgid;                 /* the process acc_ns belongs to */
	__u64 acc_ns;                   /* its time here not yet added to map "others" */
	/* the last two answers of map "tracked" on this CPU, valid while tracked_gen is cgen */
	__u32 cgen, cnext;
	__u32 ctgid[2], cyes[2];
};

struct tlb_other_key {
	__u32 cpu, tgid;
};

struct tlb_other {
	__u64 ns;                /* time on the CPU, interrupts apart */
	char comm[TLB_COMM_LEN]; /* the process's name (its leader's comm) */
};

/*
 * The run of sched_yield calls open on a CPU (map "yspin", per CPU): the
 * calls of its current task since the last switch, each at most
 * TL_YIELD_SPIN_GAP_NS after the one before (trace/event.h, YIELD_SPIN).
 * A switch out of tid ends it, so it never leaves its CPU; the reader
 * writes the runs still open when the recording ends.
 */
struct tlb_yspin {
	__u64 first, last; /* the first and the last call's entry */
	__u32 tid, calls;  /* calls: 0 when none is open */
};

#define TLB_MAX_CPUS 4096

#endif
