/*
 * filter.h - the eBPF recorder's filter (record.bpf.c, "Filtering"): which
 * events about other processes stay in the kernel, and the sums that stand
 * for them (tlb.h, struct tlb_cpu).  Included by record.bpf.c only, after
 * its ring buffer and counters; BPF code, not user space.
 *
 * Invariants: a CPU's acct.kind and cpu_occ[cpu] are its occupant since
 * acct.since; while the occupant is not recorded (OTHER, IDLE) every
 * interrupt on the CPU is summed, not written, and its time is left out of
 * the occupant's; acct.seen is the last time the occupant was seen holding
 * the CPU, and time after it that another task turns out to have had is
 * unknown, not the occupant's.
 */
#ifndef TL_BPF_FILTER_H
#define TL_BPF_FILTER_H

const volatile int filter = 0; /* only the processes in "tracked" */
__u8 cpu_occ[TLB_MAX_CPUS];    /* each CPU's occupant: enum tlb_occupant */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32); /* a recorded process (tgid) */
	__type(value, __u8);
} tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tlb_cpu);
} acct SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tlb_other_key);
	__type(value, struct tlb_other);
} others SEC(".maps");

__u32 tracked_gen; /* bumped at every change of "tracked" the programs make */

/*
 * Held: how many recorded threads left each CPU runnable (preempted, or
 * their turn over) and have not run since, and where each one left
 * (held_slot[tid % HELD_SLOTS] = tid << 32 | cpu + 1).  While a CPU holds
 * one, every switch on it is kept: whether the CPU then ran another task
 * or went idle decides what the thread waited for (idle: a CPU limit held
 * it back).  Without them a 52 ms cgroup throttle that began with a kernel
 * thread's moment on the CPU read as 52 ms of preemption by that thread.
 * A slot another thread takes releases its count first.  The slots need
 * no atomic exchange (a thread switches on one CPU at a time); a rare race
 * of two threads of one slot leaves a count high: switches kept that need
 * not be, never one lost.
 */
#define HELD_SLOTS 4096
__u32 held_on[TLB_MAX_CPUS];
__u64 held_slot[HELD_SLOTS];

static __always_inline void held_drop(__u64 slot)
{
	__u32 c = (__u32)slot - 1;

	if (slot && c < TLB_MAX_CPUS)
		__sync_fetch_and_add(&held_on[c], -1);
}

/* Recorded thread tid runs again: its CPU holds it no more. */
static __always_inline void held_release(__u32 tid)
{
	__u32 s = tid & (HELD_SLOTS - 1);
	__u64 old = held_slot[s];

	if (!old || (__u32)(old >> 32) != tid)
		return;
	held_slot[s] = 0;
	held_drop(old);
}

/* Recorded thread tid leaves CPU cpu runnable. */
static __always_inline void held_take(__u32 tid, __u32 cpu)
{
	__u32 s = tid & (HELD_SLOTS - 1);

	if (cpu >= TLB_MAX_CPUS)
		return;
	held_drop(held_slot[s]);
	held_slot[s] = (__u64)tid << 32 | (cpu + 1);
	__sync_fetch_and_add(&held_on[cpu], 1);
}

static __always_inline struct tlb_cpu *this_acct(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&acct, &zero);
}

/*
 * 1 if t belongs to a recorded process.  Each CPU remembers its last two
 * answers (a ping-pong asks about the same two processes again and again)
 * until a fork or a reaping changes the map.
 */
static __always_inline int is_tracked_in(struct task_struct *t, struct tlb_cpu *c)
{
	__u32 tgid = t->tgid, gen = tracked_gen, yes, slot;

	if (!tgid)
		return 0;
	if (c && c->cgen == gen) {
		if (c->ctgid[0] == tgid)
			return c->cyes[0];
		if (c->ctgid[1] == tgid)
			return c->cyes[1];
	} else if (c) {
		c->cgen = gen;
		c->ctgid[0] = c->ctgid[1] = 0;
	}
	yes = bpf_map_lookup_elem(&tracked, &tgid) != NULL;
	if (c) {
		slot = c->cnext & 1;
		c->cnext = slot ^ 1;
		c->ctgid[slot] = tgid;
		c->cyes[slot] = yes;
	}
	return yes;
}

/* The same, with this CPU's slot looked up (c: it is at hand already). */
static __always_inline int is_tracked(struct task_struct *t)
{
	return is_tracked_in(t, this_acct());
}

/* Change "tracked" (add: 1, remove: 0). */
static __always_inline void track(__u32 tgid, int add)
{
	__u8 one = 1;

	if (add)
		bpf_map_update_elem(&tracked, &tgid, &one, BPF_ANY);
	else
		bpf_map_delete_elem(&tracked, &tgid);
	__sync_fetch_and_add(&tracked_gen, 1);
}

static __always_inline void close_stretch(struct tlb_cpu *c, __u32 cpu, __u64 ts);

/*
 * 1 if an interrupt on this CPU is left in the kernel: in a filtered
 * stretch (then summed), or before the CPU's first switch while a task of
 * another process runs (then only counted: the stretch's sums start at that
 * switch).  A recorded thread interrupted in a filtered stretch means the
 * switch to it was not reported (this project's VM never reports one out
 * of its agent's threads, eBPF included): the stretch ends unseen (its
 * time since the occupant was last seen is unknown_ns) and the CPU is the
 * recorded thread's, so this interrupt and what follows are recorded and
 * the state machine learns that it runs.  Without that, a spinning thread
 * preempted by such a thread stayed waiting in the trace for the rest of
 * a recording (96 ms of a 100 ms `record -p`).
 */
static __always_inline int in_stretch(void)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct task_struct *cur;
	struct tlb_cpu *c;
	__u64 ts;

	if (!filter)
		return 0;
	if (cpu >= TLB_MAX_CPUS || cpu_occ[cpu] == TLB_OCC_RECORDED)
		return 0;
	cur = bpf_get_current_task_btf();
	if (cpu_occ[cpu] == TLB_OCC_UNKNOWN)
		return !is_tracked(cur);
	if (!cur->pid || !(c = this_acct()) || !is_tracked_in(cur, c))
		return 1;
	ts = bpf_ktime_get_ns();
	close_stretch(c, cpu, c->seen);
	c->unknown_ns += ts > c->seen ? ts - c->seen : 0;
	c->kind = TLB_OCC_RECORDED;
	c->since = ts;
	c->occ_tgid = cur->tgid;
	cpu_occ[cpu] = TLB_OCC_RECORDED;
	return 0;
}

/* The occupant of a filtered stretch leaves at ts: its time, interrupts apart, goes to the sums. */
static __always_inline void close_stretch(struct tlb_cpu *c, __u32 cpu, __u64 ts)
{
	__u64 d = ts > c->since ? ts - c->since : 0;

	d -= c->intr_ns < d ? c->intr_ns : d;
	if (c->kind == TLB_OCC_IDLE) {
		c->idle_ns += d;
	} else {
		c->busy_ns += d;
		c->acc_ns += d; /* acc_tgid is occ_tgid: new_occupant() */
	}
}

/* A task of another process gets the CPU: make sure it has an entry to sum into. */
static __always_inline void open_other(__u32 cpu, struct task_struct *t, __u32 tgid)
{
	struct tlb_other_key k = { cpu, tgid };
	struct tlb_other o = {};

	if (bpf_map_lookup_elem(&others, &k))
		return;
	BPF_CORE_READ_STR_INTO(&o.comm, t, group_leader, comm);
	bpf_map_update_elem(&others, &k, &o, BPF_NOEXIST); /* full: the time stays in busy_ns only */
}

/* A task of another process (or idle) holds the CPU from ts, in a filtered stretch. */
static __always_inline void new_occupant(struct tlb_cpu *c, __u32 cpu, struct task_struct *t, __u64 ts)
{
	c->occ_pid = t->pid;
	c->occ_tgid = t->tgid;
	c->kind = c->occ_pid == 0 ? TLB_OCC_IDLE : TLB_OCC_OTHER;
	c->since = c->seen = ts;
	c->intr_ns = 0;
	if (c->kind == TLB_OCC_OTHER && c->occ_tgid != c->acc_tgid) {
		/*
		 * Another process: what the last one ran here goes to its entry.
		 * Switches inside one process (the common case) touch no map.
		 */
		struct tlb_other_key k = { cpu, c->acc_tgid };
		struct tlb_other *o = c->acc_ns ? bpf_map_lookup_elem(&others, &k) : NULL;

		if (o)
			__sync_fetch_and_add(&o->ns, c->acc_ns);
		open_other(cpu, t, c->occ_tgid);
		c->acc_tgid = c->occ_tgid;
		c->acc_ns = 0;
	}
}

/*
 * In a filtered stretch, task t is seen on the CPU at ts (an interrupt's
 * current, a switch's prev).  Not the occupant we know: it changed and no
 * switch said so (seen on a VM: a hypervisor agent's switches).  The old
 * occupant is charged up to when it was last seen, the time since is
 * unknown, and t holds the CPU from now.
 */
static __always_inline void check_occupant(struct tlb_cpu *c, __u32 cpu, struct task_struct *t, __u64 ts)
{
	if (c->kind < TLB_OCC_OTHER)
		return;
	if (t->pid == c->occ_pid) {
		c->seen = ts;
		return;
	}
	close_stretch(c, cpu, c->seen);
	c->unknown_ns += ts > c->seen ? ts - c->seen : 0;
	new_occupant(c, cpu, t, ts);
}

/*
 * The filter's part of a switch at ts (prev left runnable: `runnable`):
 * close the stretch that ends, open the one that starts.  Returns the
 * OTHER flags to write, or -1 to leave the switch in the kernel.
 */
static __always_inline int filter_switch(struct task_struct *prev, struct task_struct *next, __u64 ts, int runnable)
{
	__u32 cpu = bpf_get_smp_processor_id(), ntgid = next->tgid;
	struct tlb_cpu *c = this_acct();
	int ptr = is_tracked_in(prev, c), ntr = is_tracked_in(next, c), keep;

	if (!c)
		return (ptr ? 0 : TL_EVF_OTHER_TID) | (ntr ? 0 : TL_EVF_OTHER_ARG);
	if (c->kind == TLB_OCC_UNKNOWN && !ptr && c->since) {
		/* the CPU's first switch: prev held it since the recording began (the reader set since) */
		__u64 start = c->since, intr = c->intr_ns;

		new_occupant(c, cpu, prev, start);
		c->intr_ns = intr; /* interrupts before the first switch were summed already */
		keep = 1;
	} else {
		keep = c->kind == TLB_OCC_UNKNOWN;
		check_occupant(c, cpu, prev, ts);
	}
	if (c->kind >= TLB_OCC_OTHER)
		close_stretch(c, cpu, ts);
	if (ntr)
		held_release((__u32)next->pid);
	if (ptr && runnable && prev->pid)
		held_take((__u32)prev->pid, cpu);
	keep = keep || ptr || ntr || (cpu < TLB_MAX_CPUS && (__s32)held_on[cpu] > 0);
	if (!keep)
		c->switches++;
	if (ntr) {
		c->kind = TLB_OCC_RECORDED;
		c->since = ts;
		c->occ_tgid = ntgid;
	} else {
		new_occupant(c, cpu, next, ts);
	}
	if (cpu < TLB_MAX_CPUS)
		cpu_occ[cpu] = (__u8)c->kind;
	if (!keep)
		return -1;
	return (ptr ? 0 : TL_EVF_OTHER_TID) | (ntr ? 0 : TL_EVF_OTHER_ARG);
}

/*
 * An interrupt (hard, or softirq with `soft`) enters or leaves inside a
 * filtered stretch: summed, hard interrupts nested in a softirq apart.
 */
static __always_inline void sum_intr(int soft, int entry, __u64 ts)
{
	struct tlb_cpu *c = this_acct();
	__u64 d;

	count(TLB_STAT_FILTERED);
	if (!c || !c->since)
		return;
	if (entry) {
		check_occupant(c, bpf_get_smp_processor_id(), bpf_get_current_task_btf(), ts);
		if (soft)
			c->softirq_nested = 0;
		*(soft ? &c->softirq_since : &c->irq_since) = ts;
		return;
	}
	if (soft ? !c->softirq_since || ts < c->softirq_since : !c->irq_since || ts < c->irq_since)
		return;
	if (soft) {
		d = ts - c->softirq_since;
		d -= c->softirq_nested < d ? c->softirq_nested : d;
		c->softirq_ns += d;
		c->softirq_since = 0;
	} else {
		d = ts - c->irq_since;
		c->irq_ns += d;
		if (c->softirq_since)
			c->softirq_nested += d;
		c->irq_since = 0;
	}
	c->intr_ns += d;
}

/* An event about task t (not a switch, not an interrupt): 1 to write it. */
static __always_inline int about_recorded(struct task_struct *t)
{
	if (!filter || is_tracked(t))
		return 1;
	count(TLB_STAT_FILTERED);
	return 0;
}

#endif
