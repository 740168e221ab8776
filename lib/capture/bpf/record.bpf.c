/*
 * record.bpf.c - the eBPF recorder: scheduler, interrupt and block events
 * from tracepoints into one ring buffer, as struct tlb_hdr records
 * (tlb.h) that capture/bpf_rec.c turns into trace events.
 *
 * Why raw and BTF-typed tracepoints: they run from the tracepoint itself,
 * before perf or ftrace delivery, which on some kernels loses events (the
 * switches out of the idle task on a CPU; docs/RECORD.md, "Back ends").
 * Task fields are read with CO-RE against the running kernel's BTF.  The
 * programs given a task are tp_btf programs, and the others take the
 * current task from bpf_get_current_task_btf(): the verifier knows every
 * task pointer, so a field is a plain load (p->pid), not a
 * bpf_probe_read_kernel() call; a switch reads about ten.
 *
 * Waits without syscall tracing: when a task leaves the CPU asleep, its
 * saved user registers say which system call it sleeps in; a futex wait
 * marks the SWITCH with TL_EVF_WAIT_FUTEX, a switch out of sched_yield with
 * TL_EVF_WAIT_YIELD, which is what the state machine needs (SYNC_WAIT,
 * READY_YIELD) without putting every system call of the machine on the
 * slow path, and without an event more; a futex wait's word (its address,
 * the first argument) rides in the SWITCH's c above next's priority, and
 * the reader writes it as FUTEX_WAIT (format 1.9).  Kernel threads (PF_KTHREAD)
 * have no user registers; preempted tasks may carry a non-zero state, so a
 * sleep is !preempt && prev_state.  x86-64 system call numbers only; on
 * other architectures waits stay unclassified.
 *
 * Wakeups of the reader are batched: a record is submitted without a
 * wakeup unless the ring holds more than wake_bytes, and the reader polls
 * on its own clock too.  A full ring drops the record and counts it per CPU
 * (map "stats"), which the reader turns into LOST events.
 *
 * Filtering (const `filter`, with -p or a command): only events about the
 * recorded processes leave the kernel (tlb.h).  A switch is kept when prev
 * or next is recorded, or when it is the CPU's first (it names the CPU's
 * occupant), or while a recorded thread waits runnable on its CPU (filter.h,
 * "Held"); the role that is not recorded is flagged TL_EVF_OTHER_*.  A
 * wakeup of another process's thread is kept only while a recorded thread
 * holds its CPU (the state machine needs it to tell a preemption), and a
 * wakeup's waker (the current task) that is not recorded is flagged
 * TL_EVF_OTHER_ARG, as a switch's next is; an interrupt only while a recorded thread holds the CPU.  What is left out
 * is summed per CPU and per process.  Forks of recorded processes add the
 * child's process; the reaping of a recorded process's leader removes it,
 * so that a reused pid is not recorded.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "capture/bpf/tlb.h"
#include "trace/event.h"

#define PF_KTHREAD 0x00200000
#define TASK_STACK_MAX (32 << 10) /* THREAD_SIZE: 16 KiB on x86-64, 32 KiB with KASAN */
/*
 * The system calls a sleeping task is told by (its saved registers, at the
 * switch): their numbers per architecture.  x86-64 has its own table;
 * arm64 uses the generic one (include/uapi/asm-generic/unistd.h).  On
 * another architecture the waits are not classified: a futex wait shows
 * as SLEEPING, a yield as a quantum's end (docs/RECORD.md).
 */
#if defined(__TARGET_ARCH_x86)
#define NR_FUTEX 202
#define NR_SCHED_YIELD 24
#define NR_FUTEX_WAITV 449
#define SYSCALL_NR(regs) ((regs)->orig_ax)
#define SYSCALL_ARG1(regs) ((regs)->di)
#define SYSCALL_ARG2(regs) ((regs)->si)
#define SYSCALL_ARG3(regs) ((regs)->dx)
#elif defined(__TARGET_ARCH_arm64)
#define NR_FUTEX 98
#define NR_SCHED_YIELD 124
#define NR_FUTEX_WAITV 449
#define SYSCALL_NR(regs) ((regs)->syscallno)
#define SYSCALL_ARG1(regs) ((regs)->regs[0])
#define SYSCALL_ARG2(regs) ((regs)->regs[1])
#define SYSCALL_ARG3(regs) ((regs)->regs[2])
#endif

#include "capture/bpf/kstruct.h"

const volatile __u64 wake_bytes = 1 << 20; /* set before load */
const volatile int classify_futex = 1;     /* TL_EVF_WAIT_FUTEX on a switch out of a futex wait */
const volatile int classify_yield = 1;     /* TL_EVF_WAIT_YIELD on a switch out of sched_yield */
int enabled;                               /* set by the reader: 1 while recording */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by the reader before load */
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TLB_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		(*v)++;
}

#define COMM_SLOTS 256 /* a power of two */

/*
 * Records this CPU could not write since its last LOST record, and when the
 * first was lost; and the threads whose names this CPU has sent since its
 * last loss (sent[tid % COMM_SLOTS] = comm_gen << 32 | tid): a record names
 * a thread only when this CPU has not sent its name yet (comm_new()).  A
 * loss may have taken a name with it, so it starts the list afresh.
 */
struct pending_drops {
	__u64 count;
	__u64 first_ts;
	__u64 comm_gen;
	__u64 sent[COMM_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pending_drops);
} drops SEC(".maps");

/*
 * Room for a record.  A full ring drops it, counted per CPU; the CPU's next
 * record that fits is preceded by a LOST record (a = the count, ts = the
 * first loss), in the stream where the loss happened, as perf does: the
 * state machine must learn of a gap before the events after it.
 */
static __always_inline void *reserve(__u64 size)
{
	__u32 zero = 0;
	struct pending_drops *pd = bpf_map_lookup_elem(&drops, &zero);
	void *r;

	if (pd && pd->count) {
		struct tlb_hdr *l = bpf_ringbuf_reserve(&rb, sizeof(*l), 0);

		if (l) {
			__builtin_memset(l, 0, sizeof(*l));
			l->ts = pd->first_ts;
			l->type = TL_EV_LOST;
			l->cpu = (__s16)bpf_get_smp_processor_id();
			l->a = (__s64)pd->count;
			bpf_ringbuf_submit(l, 0);
			pd->count = 0;
		}
	}
	r = bpf_ringbuf_reserve(&rb, size, 0);
	if (!r) {
		count(TLB_STAT_DROPPED);
		if (pd) {
			if (!pd->count)
				pd->first_ts = bpf_ktime_get_ns();
			pd->count++;
			pd->comm_gen++;
		}
	}
	return r;
}

static __always_inline void submit(void *r)
{
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >= wake_bytes ? BPF_RB_FORCE_WAKEUP
	                                                                              : BPF_RB_NO_WAKEUP);
}

/*
 * Interrupt context, without the per-CPU preempt count (not a symbol BPF can
 * find on every kernel).  First, the handlers this program sees begin and
 * end (IRQ handlers, softirqs but ksoftirqd's, hrtimer expiry: timeouts)
 * are counted per CPU in `intr_depth`.  That is needed because an
 * interrupt that arrives while the CPU runs user code stays on the task's
 * stack (x86-64 switches to the interrupt stack only from kernel mode):
 * measured, a 50 us timed wait's timeouts were dated to whatever thread
 * the timer interrupted.  Second, for the others (the local timer's own
 * work, IPIs): an interrupt from kernel mode, and a softirq run on its way
 * out, use the CPU's interrupt stack, so the program's own stack is then
 * outside the current task's.  All are told as TL_EVF_HARDIRQ: what the
 * analyses need is "not the current task's doing".  A softirq run by
 * ksoftirqd is that task's, as perf says too.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} intr_depth SEC(".maps");

static __always_inline void intr_enter(int delta)
{
	__u32 k = 0, *d = bpf_map_lookup_elem(&intr_depth, &k);

	if (!d)
		return;
	if (delta > 0)
		*d += 1;
	else if (*d)
		*d -= 1; /* a handler that began before the recording is not counted below zero */
}

/* ksoftirqd runs softirqs as a task of its own: not an interruption of anyone. */
static __always_inline int in_ksoftirqd(void)
{
	char comm[10];

	bpf_get_current_comm(comm, sizeof(comm));
	return comm[0] == 'k' && comm[1] == 's' && comm[2] == 'o' && comm[3] == 'f' && comm[4] == 't' &&
	       comm[5] == 'i' && comm[6] == 'r' && comm[7] == 'q' && comm[8] == 'd';
}

static __always_inline __u16 context_flags(struct tlb_hdr *scratch)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u64 stack = (__u64)cur->stack, here;
	__u32 k = 0, *depth = bpf_map_lookup_elem(&intr_depth, &k);

	if (depth && *depth)
		return TL_EVF_HARDIRQ;

	/*
	 * The verifier lets a privileged program store a stack address in
	 * memory (CAP_PERFMON may leak pointers), and what it loads back is a
	 * number; pointer arithmetic on the stack address itself it refuses.
	 */
	*(volatile __u64 **)&scratch->c = &stack;
	here = *(volatile __u64 *)&scratch->c;
	scratch->c = 0;
	return here - stack < TASK_STACK_MAX ? 0 : TL_EVF_HARDIRQ;
}

#include "capture/bpf/filter.h"

#define CTX_ASK 0xffff /* hdr(): find the context out (context_flags) */

#include "capture/bpf/kclock.h"

/*
 * The header every record starts with: the time, the CPU, the context, the
 * current task.  flags: the context when the caller knows it (a switch is
 * never in an interrupt, an IRQ handler always is), or CTX_ASK where it
 * matters and varies (a wakeup's waker is the interrupt, not the task).
 */
static __always_inline void hdr(struct tlb_hdr *h, __u16 type, __u64 ts, __u16 flags)
{
	__u64 id = bpf_get_current_pid_tgid();

	__builtin_memset(h, 0, sizeof(*h));
	h->ts = ts;
	h->type = type;
	h->cpu = (__s16)bpf_get_smp_processor_id();
	h->flags = flags == CTX_ASK ? context_flags(h) : flags;
	h->cur_tid = (__s32)id;
	h->cur_tgid = (__s32)(id >> 32);
}

/*
 * 1 if a record about thread tid must carry its name: this CPU has not sent
 * it since its last loss.  The idle task's name the reader knows.  A
 * rename sends the new name in its own record; the reader keeps it.
 */
static __always_inline struct pending_drops *my_drops(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&drops, &zero);
}

static __always_inline int comm_new(struct pending_drops *pd, __s32 tid)
{
	__u64 key;
	__u32 slot = (__u32)tid & (COMM_SLOTS - 1);

	if (tid <= 0)
		return 0;
	if (!pd)
		return 1;
	key = (pd->comm_gen << 32) | (__u32)tid;
	if (pd->sent[slot] == key)
		return 0;
	pd->sent[slot] = key;
	return 1;
}

static __always_inline void comm_of(struct tlb_comm *c, struct task_struct *t)
{
	c->tid = t->pid;
	BPF_CORE_READ_STR_INTO(&c->comm, t, comm);
}

/* ---- the scheduler ---- */

struct rec_comm1 {
	struct tlb_hdr h;
	struct tlb_comm c[1];
};

struct rec_name {
	struct tlb_hdr h;
	char name[TLB_NAME_MAX];
};

struct rec_comm1_name {
	struct tlb_hdr h;
	struct tlb_comm c[1];
	char name[TLB_NAME_MAX];
};

/* A plain event with no names: FUTEX_*, YIELD_*, EXIT, FREE, MIGRATE, SOFTIRQ_*, IRQ_EXIT, BLOCK_*. */
static __always_inline void plain(__u16 type, __u64 ts, __u16 flags, __s32 tid, __s32 arg, __s64 a, __s64 b, __s64 c)
{
	struct tlb_hdr *h = reserve(sizeof(*h));

	if (!h)
		return;
	hdr(h, type, ts, flags);
	h->tid = tid;
	h->arg = arg;
	h->a = a;
	h->b = b;
	h->c = c;
	submit(h);
}

/* Per CPU, its last CLOCK_TAKEN's value + 1 (0: none yet). */
__u64 taken_sent[TLB_MAX_CPUS];

/*
 * A CLOCK_TAKEN (trace/event.h) at ts when this CPU's run queue has taken
 * a different time out of its tasks' clock since the last one: steal
 * comes in bursts, most calls send nothing.  rq is this CPU's (NULL on a
 * kernel without the fields: nothing); tid the task whose stay the clock
 * update ends (a switch's prev) or interrupts (a tick's current), 0 for
 * one of a process not recorded.
 */
static __always_inline void taken_note(struct rq *rq, __u64 ts, __s32 tid)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct tlb_hdr *h;
	__u64 v;

	if (!rq || cpu >= TLB_MAX_CPUS)
		return;
	v = rq->clock - rq->clock_task + 1;
	if (v == taken_sent[cpu] || !(h = reserve(sizeof(*h))))
		return; /* dropped: sent again at the next, or the next stay's base would be stale */
	taken_sent[cpu] = v;
	hdr(h, TL_EV_CLOCK_TAKEN, ts, 0);
	h->tid = tid;
	h->arg = 0;
	h->a = (__s64)(v - 1);
	h->b = 0;
	h->c = 0;
	submit(h);
}

/* The futex operations that put the caller to sleep (trace/event.c, tl_futex_op_waits). */
static __always_inline int futex_op_waits(long op)
{
	switch (op & TL_FUTEX_CMD_MASK) {
	case TL_FUTEX_WAIT:
	case TL_FUTEX_WAIT_BITSET:
	case TL_FUTEX_LOCK_PI:
	case TL_FUTEX_LOCK_PI2:
	case TL_FUTEX_WAIT_REQUEUE_PI: return 1;
	default: return 0;
	}
}

/* The waits of a lock, not of a condition: the rule of trace/event.c, tl_futex_wait_locks(). */
static __always_inline int futex_wait_locks(long op, long val)
{
	switch (op & TL_FUTEX_CMD_MASK) {
	case TL_FUTEX_WAIT:
	case TL_FUTEX_LOCK_PI:
	case TL_FUTEX_LOCK_PI2: return 1;
	case TL_FUTEX_WAIT_BITSET: return (__u32)val == 2 || (__u32)val == 3; /* glibc's rwlocks */
	default: return 0;
	}
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tlb_yspin);
} yspin SEC(".maps");

/* End this CPU's run of yields y at now: a YIELD_SPIN record when it has two calls or more. */
static __always_inline void yspin_end(struct tlb_yspin *y, __u64 now)
{
	if (y->calls >= 2)
		plain(TL_EV_YIELD_SPIN, now, 0, (__s32)y->tid, 0, y->calls, (__s64)(y->last - y->first),
		      (__s64)(now - y->last));
	y->calls = 0;
}

/*
 * A sched_yield call of a recorded thread that returned at once: no other
 * task wanted its CPU and no switch shows it.  Such calls are counted
 * here, in runs (tlb.h, struct tlb_yspin), not written one by one.
 * sched_yield always calls the scheduler, whose end (sched_exit_tp, a
 * tracepoint with no trace event, kernel 6.15 on) says whether it
 * switched; the thread's saved registers say which syscall it is in.  A
 * syscall tracepoint (sys_enter_sched_yield) would do as well but puts
 * every syscall of the machine on the slow path: +45 ns a futex call.
 */
SEC("tp_btf/sched_exit_tp")
int tl_yield(__u64 *ctx)
{
	struct task_struct *cur;
	struct tlb_yspin *y;
	__u32 zero = 0;
	__u64 now;

	if ((__u8)ctx[0] || !enabled) /* a switch: tl_switch() ends the run */
		return 0;
	cur = bpf_get_current_task_btf();
	if ((cur->flags & PF_KTHREAD) || cur->pid <= 0)
		return 0;
#ifdef NR_FUTEX
	if (SYSCALL_NR((struct pt_regs *)bpf_task_pt_regs(cur)) != NR_SCHED_YIELD)
		return 0;
#else
	return 0;
#endif
	if ((filter && !is_tracked(cur)) || !(y = bpf_map_lookup_elem(&yspin, &zero)))
		return 0;
	now = bpf_ktime_get_ns();
	if (y->calls && (y->tid != (__u32)cur->pid || now - y->last > TL_YIELD_SPIN_GAP_NS ||
	                 now - y->first >= TL_YIELD_SPIN_MAX_NS))
		yspin_end(y, now);
	if (!y->calls) {
		y->tid = (__u32)cur->pid;
		y->first = now;
	}
	y->last = now;
	y->calls++;
	return 0;
}

SEC("tp_btf/sched_switch")
int tl_switch(__u64 *ctx)
{
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	unsigned int state = (unsigned int)ctx[3];
	int preempt = (int)ctx[0];
	__u64 ts = bpf_ktime_get_ns();
	__s32 ptid = prev->pid;
	long nr = -1, op = 0, val = 0;
	__u64 uaddr = 0;
	__u16 wait = 0;
	struct tlb_hdr *r;
	struct tlb_comm *cm;
	struct pending_drops *pd;
	int other = 0, np, nn;
	__u32 zero = 0, *depth = bpf_map_lookup_elem(&intr_depth, &zero);

	struct rq *rq = rq_of_task(next); /* the next task's run queue is this CPU's */
	__u32 lag = kclock_lag(rq, ts);

	if (depth)
		*depth = 0; /* no switch happens inside a handler: an exit this program missed ends here */
	if (!enabled)
		return 0;
	if (filter && (other = filter_switch(prev, next, ts, preempt || !state)) < 0) {
		count(TLB_STAT_FILTERED);
		return 0;
	}
	if (classify_yield) {
		/* a switch ends the run of yields of the task it takes off the CPU */
		struct tlb_yspin *y = bpf_map_lookup_elem(&yspin, &zero);

		if (y && y->calls && y->tid == (__u32)ptid)
			yspin_end(y, ts);
	}
	/* its saved registers say what it waits in */
	if (!preempt && ptid > 0 && !(prev->flags & PF_KTHREAD)) {
#ifdef NR_FUTEX
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);

		nr = SYSCALL_NR(regs);
		op = SYSCALL_ARG2(regs);
		uaddr = SYSCALL_ARG1(regs);
		val = SYSCALL_ARG3(regs);
#endif
	}
#ifdef NR_FUTEX
	/* the syscall it sleeps in: a futex wait (of the ops that wait), or sched_yield */
	if (classify_futex && state && nr == NR_FUTEX && futex_op_waits(op))
		wait = TL_EVF_WAIT_FUTEX | (futex_wait_locks(op, val) ? TL_EVF_WAIT_LOCK : 0);
	else if (classify_futex && state && nr == NR_FUTEX_WAITV)
		wait = TL_EVF_WAIT_FUTEX;
	else if (classify_yield && !state && nr == NR_SCHED_YIELD)
		wait = TL_EVF_WAIT_YIELD;
	if (!(wait & TL_EVF_WAIT_FUTEX) || nr != NR_FUTEX)
		uaddr = 0; /* the word of a futex wait only (futex_waitv's is an array of them) */
#endif
	/* as of the clock update that dates this switch; a prev not recorded is not named */
	taken_note(rq, ts, (other & TL_EVF_OTHER_TID) ? 0 : ptid);
	/* the names this CPU has not sent yet: most switches carry none */
	pd = my_drops();
	np = comm_new(pd, ptid);
	nn = comm_new(pd, next->pid);
	if (np && nn)
		r = reserve(sizeof(*r) + 2 * sizeof(*cm));
	else if (np || nn)
		r = reserve(sizeof(*r) + sizeof(*cm));
	else
		r = reserve(sizeof(*r));
	if (!r)
		return 0;
	hdr(r, TL_EV_SWITCH, ts, 0);
	r->flags |= wait | (__u16)other;
	r->tid = ptid;
	r->arg = next->pid;
	/* raw: __state, exit_state << 16, preempt << 32, clock lag + 1 << 33; bpf_rec.c maps it to TL_PS_* */
	r->a = (__s64)(state & 0xffff) | ((__s64)(prev->exit_state & 0xffff) << 16) | (preempt ? (1ll << 32) : 0) |
	       ((__s64)lag << 33);
	r->b = prev->prio | ((__s64)kclock_end_lag(prev, rq) << 16); /* bpf_rec.c splits it */
	/* next's priority + 1 (-1 to 139: a deadline task's is -1) under the futex word (user addresses < 2^56) */
	r->c = (__s64)(((__u64)(next->prio + 1) & 0xff) | (uaddr << 8));
	cm = (struct tlb_comm *)(r + 1);
	if (np && nn) {
		r->ncomm = 2;
		comm_of(&cm[0], prev);
		comm_of(&cm[1], next);
	} else if (np || nn) {
		r->ncomm = 1;
		comm_of(&cm[0], np ? prev : next);
	}
	submit(r);
	return 0;
}

static __always_inline int wake(__u64 *ctx, __u16 type)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct tlb_hdr *r;
	__u16 other = 0;
	int named;
	__u64 now = bpf_ktime_get_ns();
	/* an enqueue (not sched_waking): p's run queue is locked, its clock updated for it */
	__u32 lag = type != TL_EV_WAKING ? kclock_lag(rq_of_task(p), now) : 0;

	if (!enabled)
		return 0;
	if (filter && !is_tracked(p)) {
		/* kept while a recorded thread holds its CPU: it may preempt that thread */
		__u32 tcpu = p->thread_info.cpu;

		if (tcpu >= TLB_MAX_CPUS || cpu_occ[tcpu] != TLB_OCC_RECORDED) {
			count(TLB_STAT_FILTERED);
			return 0;
		}
		other = TL_EVF_OTHER_TID;
	}
	/* the waker (the current task, or what it was doing when interrupted): its other events stay in the kernel */
	if (filter && !is_tracked(bpf_get_current_task_btf()))
		other |= TL_EVF_OTHER_ARG;
	named = comm_new(my_drops(), p->pid);
	r = named ? reserve(sizeof(*r) + sizeof(struct tlb_comm)) : reserve(sizeof(*r));
	if (!r)
		return 0;
	hdr(r, type, now, CTX_ASK);
	r->flags |= other;
	r->tid = p->pid;
	r->arg = r->cur_tid;
	r->a = p->thread_info.cpu;
	r->b = p->prio;
	r->c = lag;
	if (named) {
		r->ncomm = 1;
		comm_of((struct tlb_comm *)(r + 1), p);
	}
	submit(r);
	return 0;
}

SEC("tp_btf/sched_waking")
int tl_waking(__u64 *ctx)
{
	return wake(ctx, TL_EV_WAKING);
}

SEC("tp_btf/sched_wakeup")
int tl_wakeup(__u64 *ctx)
{
	return wake(ctx, TL_EV_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int tl_wakeup_new(__u64 *ctx)
{
	return wake(ctx, TL_EV_WAKEUP_NEW);
}

SEC("tp_btf/sched_process_fork")
int tl_fork(__u64 *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx[0];
	struct task_struct *child = (struct task_struct *)ctx[1];
	struct rec_comm1 *r;

	if (!enabled)
		return 0;
	if (filter) {
		/* a recorded process's child process is recorded too */
		__u32 ctgid = child->tgid;

		if (ctgid != parent->tgid && is_tracked(parent))
			track(ctgid, 1);
		if (!about_recorded(child))
			return 0;
	}
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	hdr(&r->h, TL_EV_FORK, bpf_ktime_get_ns(), 0);
	r->h.ncomm = 1;
	r->h.tid = child->pid;
	r->h.arg = parent->pid;
	r->h.a = child->tgid; /* not an event field: the child's process, for the reader */
	comm_of(&r->c[0], child);
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int tl_exec(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct linux_binprm *bprm = (struct linux_binprm *)ctx[2];
	struct rec_comm1_name *r;
	const char *fn;
	long n;

	if (!enabled || !about_recorded(p))
		return 0;
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	hdr(&r->h, TL_EV_EXEC, bpf_ktime_get_ns(), 0);
	r->h.tid = p->pid;
	r->h.arg = (__s32)ctx[1];
	r->h.ncomm = 1;
	comm_of(&r->c[0], p);
	fn = BPF_CORE_READ(bprm, filename);
	n = bpf_probe_read_kernel_str(r->name, sizeof(r->name), fn);
	r->h.name_len = n > 1 ? (__u8)(n - 1) : 0;
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int tl_exit(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	__u64 now = bpf_ktime_get_ns();

	if (enabled && about_recorded(p))
		/* b: its run total now (format 1.12): the exit totals were taken a little before */
		plain(TL_EV_EXIT, now, 0, p->pid, 0, 0, (__s64)p->se.sum_exec_runtime, kclock_exit_lag(p, now));
	return 0;
}

SEC("tp_btf/sched_process_free")
int tl_free(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	__u32 pid = p->pid;

	if (!enabled || !about_recorded(p))
		return 0;
	plain(TL_EV_FREE, bpf_ktime_get_ns(), CTX_ASK, pid, 0, 0, 0, 0);
	if (filter && pid == (__u32)p->tgid)
		track(pid, 0); /* the process is gone: its pid may come back as another */
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int tl_migrate(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];

	if (enabled && about_recorded(p))
		plain(TL_EV_MIGRATE, bpf_ktime_get_ns(), CTX_ASK, p->pid, 0, p->thread_info.cpu, (int)ctx[1], 0);
	return 0;
}

SEC("tp_btf/task_rename")
int tl_rename(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct rec_comm1 *r;

	if (!enabled || !about_recorded(p))
		return 0;
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	hdr(&r->h, TL_EV_RENAME, bpf_ktime_get_ns(), 0);
	r->h.tid = p->pid;
	/* the new name, as the thread's name (the reader makes it the event's name too) */
	r->h.ncomm = 1;
	r->c[0].tid = r->h.tid;
	bpf_probe_read_kernel_str(r->c[0].comm, TLB_COMM_LEN, (const char *)ctx[1]);
	submit(r);
	return 0;
}

/* ---- interrupts ---- */

#include "capture/bpf/irq.h"

/* ---- block I/O: who submitted, and when it completed ---- */

SEC("raw_tp/block_bio_queue")
int tl_bio_queue(struct bpf_raw_tracepoint_args *ctx)
{
	struct bio *bio = (struct bio *)ctx->args[0];

	if (enabled && about_recorded(bpf_get_current_task_btf()))
		plain(TL_EV_BLOCK_ISSUE, bpf_ktime_get_ns(), 0, (__s32)bpf_get_current_pid_tgid(), 0,
		      BPF_CORE_READ(bio, bi_bdev, bd_dev), BPF_CORE_READ(bio, bi_iter.bi_sector),
		      BPF_CORE_READ(bio, bi_iter.bi_size));
	return 0;
}

SEC("raw_tp/block_rq_complete")
int tl_rq_complete(struct bpf_raw_tracepoint_args *ctx)
{
	struct request *rq = (struct request *)ctx->args[0];
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
	__u32 dev = disk ? ((__u32)BPF_CORE_READ(disk, major) << 20) | (__u32)BPF_CORE_READ(disk, first_minor) : 0;
	struct tlb_hdr *h;

	if (!enabled || !(h = reserve(sizeof(*h))))
		return 0;
	hdr(h, TL_EV_BLOCK_COMPLETE, bpf_ktime_get_ns(), CTX_ASK);
	/*
	 * The task it interrupts is only the context: flagged when a filtered
	 * recording does not record it, so that its mask stays in the kernel.
	 */
	if (filter && !is_tracked(bpf_get_current_task_btf()))
		h->flags |= TL_EVF_OTHER_TID;
	h->tid = (__s32)bpf_get_current_pid_tgid();
	h->a = dev;
	h->b = BPF_CORE_READ(rq, __sector);
	h->c = (unsigned int)ctx->args[2];
	submit(h);
	return 0;
}

/* ---- the marker library's calls, for record -p (uprobes) ---- */

#include "capture/bpf/umarks.h"

/* ---- samples (record --sample) ---- */

#include "capture/bpf/sample.h"

char LICENSE[] SEC("license") = "GPL";
