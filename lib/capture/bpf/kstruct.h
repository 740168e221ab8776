/*
 * kstruct.h - the kernel structures the eBPF recorder reads (record.bpf.c),
 * with only the fields it uses.  preserve_access_index makes every access
 * a CO-RE relocation against the running kernel's BTF, so the offsets here
 * are never used; a field that a kernel lacks is tested with
 * bpf_core_field_exists() before it is read (kclock.h).  Included by
 * record.bpf.c only; BPF code, not user space.
 */
#ifndef TL_BPF_KSTRUCT_H
#define TL_BPF_KSTRUCT_H

struct thread_info {
	__u32 cpu;
} __attribute__((preserve_access_index));

struct hrtimer {
	void *function;
} __attribute__((preserve_access_index));

struct rq {
	__u64 clock;
	__u64 clock_task;
} __attribute__((preserve_access_index));

struct cfs_rq {
	struct rq *rq;
} __attribute__((preserve_access_index));

struct sched_entity {
	struct cfs_rq *cfs_rq;
	__u64 exec_start;
	__u64 sum_exec_runtime; /* the run total: an EXIT's b (format 1.12) */
} __attribute__((preserve_access_index));

struct task_struct {
	struct thread_info thread_info;
	struct sched_entity se;
	struct task_struct *group_leader;
	unsigned int flags;
	int exit_state;
	int prio;
	int pid;
	int tgid;
	char comm[16];
	void *stack;
} __attribute__((preserve_access_index));

struct pt_regs {
	unsigned long di, si, dx, orig_ax, ip, sp, bp;
} __attribute__((preserve_access_index));

struct irqaction {
	const char *name;
} __attribute__((preserve_access_index));

struct linux_binprm {
	const char *filename;
} __attribute__((preserve_access_index));

struct block_device {
	__u32 bd_dev;
} __attribute__((preserve_access_index));

struct bvec_iter {
	__u64 bi_sector;
	unsigned int bi_size;
} __attribute__((preserve_access_index));

struct bio {
	struct block_device *bi_bdev;
	struct bvec_iter bi_iter;
} __attribute__((preserve_access_index));

struct gendisk {
	int major;
	int first_minor;
} __attribute__((preserve_access_index));

struct request_queue {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

struct request {
	struct request_queue *q;
	__u64 __sector;
} __attribute__((preserve_access_index));

#endif
