/*
 * test_bpf_rec.c - the eBPF back end's record parser and state mapping
 * (capture/bpf_rec.h) on hand-built records: exact fields, names,
 * identities, and every truncation refused.
 */
#include <linux/types.h>
#include <string.h>

#include "capture/bpf/tlb.h"
#include "capture/bpf_rec.h"
#include "harness.h"

struct two {
	struct tlb_hdr h;
	struct tlb_comm c[2];
};

TEST(test_switch_record)
{
	struct two r;
	struct tl_bpf_event ev;

	memset(&r, 0, sizeof(r));
	r.h.ts = 123456789;
	r.h.type = TL_EV_SWITCH;
	r.h.cpu = 1;
	r.h.ncomm = 2;
	r.h.cur_tid = 41;
	r.h.cur_tgid = 40;
	r.h.tid = 41;
	r.h.arg = 42;
	r.h.a = 0x2001; /* a futex wait: INTERRUPTIBLE | FREEZABLE */
	r.h.b = 120;
	r.h.c = 101 | (0x7f0012345678ll << 8); /* next's priority + 1, and the futex word (record.bpf.c) */
	r.h.flags = TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK;
	r.c[0].tid = 41;
	memcpy(r.c[0].comm, "worker", 6);
	r.c[1].tid = 42;
	memcpy(r.c[1].comm, "0123456789abcdef", 16); /* a full comm: no NUL */
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 1);
	CHECK_EQ_INT(ev.d.ev.ts, 123456789);
	CHECK_EQ_INT(ev.d.ev.type, TL_EV_SWITCH);
	CHECK_EQ_INT(ev.d.ev.cpu, 1);
	CHECK_EQ_INT(ev.d.ev.tid, 41);
	CHECK_EQ_INT(ev.d.ev.arg, 42);
	CHECK_EQ_INT(ev.d.ev.a, TL_PS_S);
	CHECK_EQ_INT(ev.d.ev.b, 120);
	CHECK_EQ_INT(ev.d.ev.c, 100);
	CHECK_EQ_INT(ev.d.ev.flags, TL_EVF_WAIT_FUTEX | TL_EVF_WAIT_LOCK);
	CHECK_EQ_INT(ev.d.futex_addr, 0x7f0012345678ll);
	CHECK_EQ_INT(ev.cur_tid, 41);
	CHECK_EQ_INT(ev.cur_pid, 40);
	CHECK_EQ_INT(ev.d.nids, 2);
	CHECK_EQ_INT(ev.d.ids[0].comm.len, 6);
	CHECK(!memcmp(ev.d.ids[0].comm.s, "worker", 6));
	CHECK_EQ_INT(ev.d.ids[1].comm.len, 16);
	CHECK_EQ_INT(ev.d.name.len, 0);
	/* not a futex wait: no word; a deadline task's priority is -1 */
	r.h.flags = 0;
	r.h.c = 0;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 1);
	CHECK_EQ_INT(ev.d.ev.c, -1);
	CHECK_EQ_INT(ev.d.futex_addr, 0);
	/* every shorter size is refused */
	for (size_t n = 0; n < sizeof(r); n++)
		CHECK_EQ_INT(tl_bpf_parse(&r, n, &ev), 0);
	/* and so are nonsense counts and types */
	r.h.ncomm = 3;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
	r.h.ncomm = 2;
	r.h.type = TL_EV__COUNT;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
	r.h.type = TL_EV_NONE;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
}

/* An EXIT: its clock lag out of c, its run total in b (format 1.12, record.bpf.c tl_exit). */
TEST(test_exit_record)
{
	struct tlb_hdr h;
	struct tl_bpf_event ev;

	memset(&h, 0, sizeof(h));
	h.ts = 5000;
	h.type = TL_EV_EXIT;
	h.tid = 77;
	h.b = 28987200;
	h.c = 12800 + 1; /* kclock_exit_lag(): the lag + 1 in ns */
	CHECK_EQ_INT(tl_bpf_parse(&h, sizeof(h), &ev), 1);
	CHECK_EQ_INT(ev.d.ev.type, TL_EV_EXIT);
	CHECK_EQ_INT(ev.d.ev.tid, 77);
	CHECK_EQ_INT(ev.d.ev.b, 28987200);
	CHECK_EQ_INT(ev.d.ev.c, 0);
	CHECK_EQ_INT(tl_event_lag_ns(&ev.d.ev), 12800);
}

TEST(test_fork_and_names)
{
	struct {
		struct tlb_hdr h;
		struct tlb_comm c[1];
		char name[TLB_NAME_MAX];
	} r;
	struct tl_bpf_event ev;

	memset(&r, 0, sizeof(r));
	r.h.type = TL_EV_FORK;
	r.h.ncomm = 1;
	r.h.tid = 501;
	r.h.arg = 500;
	r.h.a = 499; /* the child's process */
	r.c[0].tid = 501;
	memcpy(r.c[0].comm, "child", 5);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h) + sizeof(r.c), &ev), 1);
	CHECK_EQ_INT(ev.child_tgid, 499);
	CHECK_EQ_INT(ev.d.ev.a, 0);
	CHECK_EQ_INT(ev.d.reset_tid, 501);
	CHECK_EQ_INT(ev.d.name.len, 5);

	/* an IRQ name after the comms; its length is checked against the record */
	memset(&r, 0, sizeof(r));
	r.h.type = TL_EV_IRQ_ENTRY;
	r.h.name_len = 12;
	memcpy(&r.c[0], "virtio1-req.0", 13); /* with no comm, the name follows the header */
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h) + 12, &ev), 1);
	CHECK_EQ_INT(ev.d.name.len, 12);
	CHECK(!memcmp(ev.d.name.s, "virtio1-req.", 12));
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h) + 11, &ev), 0);
	r.h.name_len = TLB_NAME_MAX + 1;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
}

TEST(test_prev_state)
{
	CHECK_EQ_INT(tl_bpf_prev_state(0, 0), TL_PS_RUNNING);
	CHECK_EQ_INT(tl_bpf_prev_state(0x1, 1), TL_PS_PREEMPT); /* preempted: R+ whatever the state */
	CHECK_EQ_INT(tl_bpf_prev_state(0x1, 0), TL_PS_S);
	CHECK_EQ_INT(tl_bpf_prev_state(0x2001, 0), TL_PS_S); /* FREEZABLE is not reported */
	CHECK_EQ_INT(tl_bpf_prev_state(0x2, 0), TL_PS_D);
	CHECK_EQ_INT(tl_bpf_prev_state(0x402, 0), TL_PS_I);  /* TASK_IDLE */
	CHECK_EQ_INT(tl_bpf_prev_state(0x1000, 0), TL_PS_D); /* RTLOCK_WAIT */
	CHECK_EQ_INT(tl_bpf_prev_state(0x4, 0), TL_PS_T);
	CHECK_EQ_INT(tl_bpf_prev_state(0x8, 0), TL_PS_TRACED);
	CHECK_EQ_INT(tl_bpf_prev_state(0x40, 0), TL_PS_P);
	/* the last switch of an exiting task: TASK_DEAD in __state, EXIT_DEAD or EXIT_ZOMBIE in exit_state */
	CHECK_EQ_INT(tl_bpf_prev_state(0x80 | (0x10u << 16), 0), TL_PS_X);
	CHECK_EQ_INT(tl_bpf_prev_state(0x80 | (0x20u << 16), 0), TL_PS_Z);
}

/* A SAMPLE record (capture/bpf/sample.h): kernel frames, then user frames from their fixed place. */
TEST(test_sample_record)
{
	struct {
		struct tlb_hdr h;
		__u64 ips[TLB_STACK_KERNEL + TLB_STACK_USER];
	} r;
	struct tl_bpf_event ev;

	memset(&r, 0, sizeof(r));
	r.h.ts = 5000;
	r.h.type = TL_EV_SAMPLE;
	r.h.cpu = 1;
	r.h.cur_tid = r.h.tid = 41;
	r.h.cur_tgid = r.h.arg = 40;
	r.h.a = 2 | (3 << 16); /* 2 kernel frames, 3 user frames */
	r.h.b = 0xffffffff81000010ull;
	r.h.c = 1003009;
	r.ips[0] = 0xffffffff81000010ull;
	r.ips[1] = 0xffffffff81000200ull;
	r.ips[TLB_STACK_KERNEL] = 0x401000;
	r.ips[TLB_STACK_KERNEL + 1] = 0x401500;
	r.ips[TLB_STACK_KERNEL + 2] = 0x7f0000001000ull;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 1);
	CHECK_EQ_INT(ev.d.ev.type, TL_EV_SAMPLE);
	CHECK_EQ_INT(ev.d.ev.tid, 41);
	CHECK_EQ_INT(ev.d.ev.arg, 40);
	CHECK_EQ_INT(ev.d.ev.a, 0); /* the stack id comes when the recorder interns it */
	CHECK_EQ_INT(ev.d.ev.b, (int64_t)0xffffffff81000010ull);
	CHECK_EQ_INT(ev.d.ev.c, 1003009);
	CHECK_EQ_INT(ev.nframes, 5);
	CHECK_EQ_INT(ev.frames[1], (int64_t)0xffffffff81000200ull);
	CHECK_EQ_INT(ev.frames[2], 0x401000);
	CHECK_EQ_INT(ev.frames[4], 0x7f0000001000ll);
	/* a frame-pointer walk that ran into 0 ends there */
	r.ips[TLB_STACK_KERNEL + 1] = 0;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 1);
	CHECK_EQ_INT(ev.nframes, 3);
	/* more frames than the record has room for, or a record cut short: refused */
	r.h.a = (TLB_STACK_KERNEL + 1) | (3 << 16);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
	r.h.a = 2 | ((TLB_STACK_USER + 1) << 16);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
	r.h.a = 2 | (3 << 16);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h) + (TLB_STACK_KERNEL + 3) * 8 - 1, &ev), 0);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h) + (TLB_STACK_KERNEL + 3) * 8, &ev), 1);
}

/*
 * A --stack dwarf SAMPLE record (sample.h, sample_dwarf): kernel frames,
 * the user ip, sp, bp, then the stack bytes; a = kernel frames | bytes <<
 * 16 | event << 32 | 1 << 40.
 */
TEST(test_sample_dwarf_record)
{
	static struct {
		struct tlb_hdr h;
		__u64 ips[TLB_STACK_KERNEL];
		__u64 regs[3];
		__u8 stack[TLB_DWARF_STACK];
	} r;
	struct tl_bpf_event ev;

	memset(&r, 0, sizeof(r));
	r.h.type = TL_EV_SAMPLE;
	r.h.tid = 41;
	r.h.arg = 40;
	r.h.a = 1 | (1024ll << 16) | (2ll << 32) | (1ll << 40);
	r.ips[0] = 0xffffffff81000010ull;
	r.regs[0] = 0x401000;
	r.regs[1] = 0x7ffc0000f000ull;
	r.regs[2] = 0x7ffc0000f100ull;
	r.stack[0] = 0xab;
	r.stack[1023] = 0xcd;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 1);
	CHECK_EQ_INT(ev.dwarf, 1);
	CHECK_EQ_INT(ev.sample_event, 2);
	CHECK_EQ_INT(ev.nframes, 1);
	CHECK_EQ_INT(ev.frames[0], (int64_t)0xffffffff81000010ull);
	CHECK(ev.uregs[0] == 0x401000 && ev.uregs[1] == 0x7ffc0000f000ull && ev.uregs[2] == 0x7ffc0000f100ull);
	CHECK_EQ_INT(ev.ustack_len, 1024);
	CHECK(ev.ustack == r.stack && ev.ustack[1023] == 0xcd);
	/* the bytes past the record, or more than TLB_DWARF_STACK: refused */
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h) + sizeof(r.ips) + sizeof(r.regs) + 1023, &ev), 0);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h) + sizeof(r.ips) + sizeof(r.regs) + 1024, &ev), 1);
	r.h.a = 1 | ((TLB_DWARF_STACK + 8ll) << 16) | (1ll << 40);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
}

/* A marker call seen by a uprobe (capture/bpf/umarks.h): the marker library's event, on the CPU it ran on. */
TEST(test_marker_records)
{
	struct {
		struct tlb_hdr h;
		char name[TLB_MARK_NAME_MAX + 1];
	} r;
	struct tl_bpf_event ev;

	memset(&r, 0, sizeof(r));
	r.h.ts = 1000;
	r.h.type = TL_EV_REGION_BEGIN;
	r.h.cpu = 1;
	r.h.cur_tid = r.h.tid = 77;
	r.h.cur_tgid = 70;
	r.h.a = 12; /* the thread's frame */
	r.h.name_len = 6;
	memcpy(r.name, "filter", 6);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 1);
	CHECK_EQ_INT(ev.d.ev.type, TL_EV_REGION_BEGIN);
	CHECK_EQ_INT(ev.d.ev.cpu, 1);
	CHECK_EQ_INT(ev.d.ev.tid, 77);
	CHECK_EQ_INT(ev.d.ev.a, 12);
	CHECK_EQ_INT(ev.d.name.len, 6);
	CHECK(!memcmp(ev.d.name.s, "filter", 6));
	CHECK_EQ_INT(ev.cur_pid, 70);

	/* names longer than other records' (TLB_NAME_MAX), up to TLB_MARK_NAME_MAX */
	memset(r.name, 'x', sizeof(r.name));
	r.h.name_len = TLB_MARK_NAME_MAX;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 1);
	CHECK_EQ_INT(ev.d.name.len, TLB_MARK_NAME_MAX);
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h) + TLB_MARK_NAME_MAX - 1, &ev), 0);
	r.h.type = TL_EV_IRQ_ENTRY; /* not for the others */
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);

	/* a name the program could not read: said so, as the marker library's reader does */
	r.h.type = TL_EV_INSTANT;
	r.h.name_len = 0;
	r.h.a = -5;
	r.h.b = 1;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 1);
	CHECK_EQ_INT(ev.d.ev.a, -5);
	CHECK_EQ_INT(ev.d.ev.b, 0);
	CHECK_EQ_INT(ev.d.name.len, strlen("(name lost)"));
	CHECK(!memcmp(ev.d.name.s, "(name lost)", ev.d.name.len));

	/* frames have no name and no comms */
	memset(&r, 0, sizeof(r));
	r.h.type = TL_EV_FRAME_END;
	r.h.a = 41;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h), &ev), 1);
	CHECK_EQ_INT(ev.d.ev.a, 41);
	CHECK_EQ_INT(ev.d.name.len, 0);
	r.h.name_len = 1;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
	r.h.name_len = 0;
	r.h.ncomm = 1;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
	CHECK_EQ_INT(ev.span, -1);

	/* an OpenMP function's region: named by the recorder, from its cookie (c - 1) */
	memset(&r, 0, sizeof(r));
	r.h.type = TL_EV_REGION_BEGIN;
	r.h.tid = 90;
	r.h.a = -1;
	r.h.c = 3;
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h), &ev), 1);
	CHECK_EQ_INT(ev.span, 2);
	CHECK_EQ_INT(ev.d.ev.c, 0);
	CHECK_EQ_INT(ev.d.ev.a, -1);
	CHECK_EQ_INT(ev.d.name.len, 0);
	r.h.type = TL_EV_INSTANT; /* regions only */
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r.h), &ev), 0);
	r.h.type = TL_EV_REGION_END;
	r.h.name_len = 2; /* a name of its own and a cookie: neither */
	CHECK_EQ_INT(tl_bpf_parse(&r, sizeof(r), &ev), 0);
	CHECK(tl_bpf_is_marker(TL_EV_FRAME_BEGIN) && tl_bpf_is_marker(TL_EV_INSTANT));
	CHECK(!tl_bpf_is_marker(TL_EV_FUNC_ENTRY) && !tl_bpf_is_marker(TL_EV_YIELD_EXIT));
}

int main(void)
{
	RUN_TESTS(test_sample_record, test_sample_dwarf_record, test_switch_record, test_exit_record,
	          test_fork_and_names, test_prev_state, test_marker_records);
}
