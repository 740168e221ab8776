/*
 * tlb.h - the records the eBPF recorder (record.bpf.c) writes into its ring
 * buffer and capture/bpf_rec.c reads: shared by the BPF program and user
 * space, so only fixed-size types and no pointers.
 *
 * A record is a struct tlb_hdr, then hdr.ncomm struct tlb_comm (threads the
 * event names, with their names: what the perf back end learns from the
 * tracepoint's comm fields), then hdr.name_len bytes of a name (an IRQ
 * handler, an exec'd file, a new comm), not NUL-terminated.  The event
 * fields mean what they mean in trace/event.h; `type` is an enum
 * tl_event_type and `flags` its TL_EVF_* bits.  The reader checks every
 * length against the record's size (bpf_rec.c, tlb_parse()).
 */
#ifndef TL_TLB_H
#define TL_TLB_H

#define TLB_COMM_LEN 16
#define TLB_NAME_MAX 64 /* longer names (exec'd paths) are cut */

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
	TLB_STAT_EVENTS,      /* records written */
	TLB_STAT__COUNT
};

#endif
