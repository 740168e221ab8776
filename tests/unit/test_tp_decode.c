/*
 * test_tp_decode.c - the tracepoint decoder on real format files and
 * hand-built raw records.
 *
 * tests/data/formats/linux-6.18 holds the format files of the kernel the
 * project is developed on, copied from /sys/kernel/tracing/events.  The
 * linux-4.9 and linux-4.14-noidle ones are written from what older kernels
 * printed (see the README there); they prove that the prev_state mapping is
 * derived from the print fmt, not assumed.  Records are built byte by byte
 * at the offsets the format files give.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "capture/tp_decode.h"

static char *read_data(const char *rel, size_t *len)
{
	static const char *const roots[] = { "tests/data/formats", "../tests/data/formats",
		                             "../../tests/data/formats" };
	char path[512];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		FILE *f;
		char *buf;
		long n;

		snprintf(path, sizeof(path), "%s/%s", roots[i], rel);
		f = fopen(path, "rb");
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = 0;
			*len = (size_t)n;
			fclose(f);
			return buf;
		}
		free(buf);
		fclose(f);
	}
	fprintf(stderr, "  cannot read test data '%s' (run from the repository root)\n", rel);
	return NULL;
}

static int add_file(struct tl_tp_table *t, unsigned kind, const char *dir)
{
	char rel[256];
	size_t len = 0;
	char *text;
	int id;

	snprintf(rel, sizeof(rel), "%s/%s", dir, tl_tp_desc(kind)->name);
	text = read_data(rel, &len);
	if (!text)
		return -1;
	id = tl_tp_table_add(t, kind, text, len);
	free(text);
	return id;
}

static struct tl_tp_table *table_6_18(void)
{
	struct tl_tp_table *t = tl_tp_table_new();
	for (unsigned k = 0; k < TL_TP__COUNT; k++)
		if (add_file(t, k, "linux-6.18") < 0)
			fprintf(stderr, "  add %s: %s\n", tl_tp_desc(k)->name, "failed");
	return t;
}

/* A raw record under construction. */
struct rec {
	uint8_t b[256];
	uint32_t size;
};

static void put16(struct rec *r, unsigned off, uint16_t v)
{
	memcpy(r->b + off, &v, 2);
}
static void put32(struct rec *r, unsigned off, uint32_t v)
{
	memcpy(r->b + off, &v, 4);
}
static void put64(struct rec *r, unsigned off, uint64_t v)
{
	memcpy(r->b + off, &v, 8);
}
static void putstr(struct rec *r, unsigned off, const char *s)
{
	memcpy(r->b + off, s, strlen(s) + 1);
}

/* A __data_loc string at `at`, its descriptor in the field at `field`. */
static void putloc(struct rec *r, unsigned field, unsigned at, const char *s)
{
	uint32_t len = (uint32_t)strlen(s) + 1;
	putstr(r, at, s);
	put32(r, field, (len << 16) | at);
}

static void rec_init(struct rec *r, uint16_t id, uint8_t flags, uint32_t size)
{
	memset(r, 0, sizeof(*r));
	put16(r, 0, id);
	r->b[2] = flags;
	put32(r, 4, 4242); /* common_pid: the decoder must not use it */
	r->size = size;
}

static int decode(struct tl_tp_table *t, const struct rec *r, struct tl_tp_decoded *d)
{
	struct tl_tp_sample s = { .ts = 1000, .raw = r->b, .raw_size = r->size, .pid = 700, .tid = 701, .cpu = 1 };
	memset(d, 0x55, sizeof(*d));
	return tl_tp_decode(t, &s, d);
}

static int str_is(struct tl_tp_str s, const char *want)
{
	return s.len == strlen(want) && !memcmp(s.s, want, s.len);
}

TEST(test_ids_6_18)
{
	struct tl_tp_table *t = table_6_18();
	CHECK_EQ_INT(tl_tp_table_id(t, TL_TP_SCHED_SWITCH), 372);
	CHECK_EQ_INT(tl_tp_table_id(t, TL_TP_SCHED_WAKING), 375);
	CHECK_EQ_INT(tl_tp_table_id(t, TL_TP_SCHED_FORK), 366);
	CHECK_EQ_INT(tl_tp_table_id(t, TL_TP_FUTEX_ENTER), 522);
	CHECK_EQ_INT(tl_tp_table_id(t, TL_TP_BLOCK_RQ_COMPLETE), 2107);
	for (unsigned k = 0; k < TL_TP__COUNT; k++)
		CHECK(tl_tp_table_id(t, k) > 0);
	CHECK(tl_tp_desc(TL_TP__COUNT) == NULL);
	CHECK_EQ_STR(tl_tp_desc(TL_TP_TASK_RENAME)->system, "task");
	tl_tp_table_free(t);
}

TEST(test_prev_state_6_18)
{
	struct tl_tp_table *t = table_6_18();
	char buf[256];

	CHECK_EQ_INT(tl_tp_table_state_fallback(t), 0);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0), TL_PS_RUNNING);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x1), TL_PS_S);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x2), TL_PS_D);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x4), TL_PS_T);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x8), TL_PS_TRACED);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x10), TL_PS_X);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x20), TL_PS_Z);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x40), TL_PS_P);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x80), TL_PS_I);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x100), TL_PS_PREEMPT);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x200), 0); /* above TASK_REPORT_MAX: ignored */
	CHECK_EQ_STR(tl_tp_table_state_desc(t, buf, sizeof(buf)),
	             "S=0x1 D=0x2 T=0x4 t=0x8 X=0x10 Z=0x20 P=0x40 I=0x80 preempt=0x100 (from sched_switch print fmt)");
	tl_tp_table_free(t);
}

/* Linux 4.4-4.13: TASK_STATE_MAX 2048 is the "+", eleven letters, TASK_IDLE printed as D|N. */
TEST(test_prev_state_4_9)
{
	struct tl_tp_table *t = tl_tp_table_new();

	CHECK_EQ_INT(add_file(t, TL_TP_SCHED_SWITCH, "linux-4.9"), 273);
	CHECK_EQ_INT(tl_tp_table_state_fallback(t), 0);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0), TL_PS_RUNNING);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 1), TL_PS_S);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 2), TL_PS_D);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 16), TL_PS_Z); /* that kernel's table, as printed */
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 32), TL_PS_X);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 64), TL_PS_X);      /* "x": TASK_DEAD */
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 128 | 2), TL_PS_D); /* "D|K": killable */
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 256), 0);           /* "W": waking, runnable */
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 512), TL_PS_P);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 1024 | 2), TL_PS_I); /* "D|N": TASK_IDLE */
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 2048), TL_PS_PREEMPT);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x80), TL_PS_RUNNING); /* 6.x's I bit means K here */
	tl_tp_table_free(t);
}

/* A kernel whose TASK_REPORT_MAX is 0x80 and that has no "I": 0x80 is the preemption mark. */
TEST(test_prev_state_noidle)
{
	struct tl_tp_table *t = tl_tp_table_new();
	char buf[256];

	CHECK_EQ_INT(add_file(t, TL_TP_SCHED_SWITCH, "linux-4.14-noidle"), 290);
	CHECK_EQ_INT(tl_tp_table_state_fallback(t), 0);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x80), TL_PS_PREEMPT);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x40), TL_PS_P);
	CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x100), 0);
	CHECK_EQ_STR(tl_tp_table_state_desc(t, buf, sizeof(buf)),
	             "S=0x1 D=0x2 T=0x4 t=0x8 X=0x10 Z=0x20 P=0x40 preempt=0x80 (from sched_switch print fmt)");
	tl_tp_table_free(t);
}

/* A print fmt without __print_flags: the built-in 4.14+ mapping, and the table says so. */
TEST(test_prev_state_fallback)
{
	struct tl_tp_table *t = tl_tp_table_new();
	size_t len = 0;
	char *text = read_data("linux-6.18/sched_switch", &len);
	char *fmt = text ? strstr(text, "print fmt:") : NULL;

	CHECK(fmt != NULL);
	if (fmt) {
		strcpy(fmt, "print fmt: \"prev_pid=%d prev_state=%ld\", REC->prev_pid, REC->prev_state\n");
		CHECK_EQ_INT(tl_tp_table_add(t, TL_TP_SCHED_SWITCH, text, strlen(text)), 372);
		CHECK_EQ_INT(tl_tp_table_state_fallback(t), 1);
		CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x80), TL_PS_I);
		CHECK_EQ_INT(tl_tp_table_prev_state(t, 0x101), TL_PS_S | TL_PS_PREEMPT);
	}
	free(text);
	tl_tp_table_free(t);
}

TEST(test_bad_format)
{
	struct tl_tp_table *t = tl_tp_table_new();
	size_t len = 0;
	char *text = read_data("linux-6.18/sched_waking", &len);

	CHECK_EQ_INT(tl_tp_table_add(t, TL_TP_SCHED_SWITCH, text, len), -1); /* wrong event */
	CHECK_EQ_INT(tl_tp_table_add(t, TL_TP_SCHED_SWITCH, "garbage", 7), -1);
	CHECK_EQ_INT(tl_tp_table_add(t, TL_TP__COUNT, text, len), -1);
	CHECK_EQ_INT(tl_tp_table_id(t, TL_TP_SCHED_SWITCH), -1);
	free(text);
	tl_tp_table_free(t);
}

TEST(test_decode_switch)
{
	struct tl_tp_table *t = table_6_18();
	struct tl_tp_decoded d;
	struct rec r;

	rec_init(&r, 372, 0x01 /* irqs off only */, 64);
	putstr(&r, 8, "worker-1");
	put32(&r, 24, 1234);
	put32(&r, 28, 120);
	put64(&r, 32, 0x100); /* R+ */
	putstr(&r, 40, "swapper/1");
	put32(&r, 56, 0);
	put32(&r, 60, (uint32_t)-51);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_SWITCH);
	CHECK_EQ_INT(d.ev.ts, 1000);
	CHECK_EQ_INT(d.ev.cpu, 1);
	CHECK_EQ_INT(d.ev.flags, 0);
	CHECK_EQ_INT(d.ev.tid, 1234);
	CHECK_EQ_INT(d.ev.arg, 0);
	CHECK_EQ_INT(d.ev.name, 0);
	CHECK_EQ_INT(d.ev.a, TL_PS_PREEMPT);
	CHECK_EQ_INT(d.ev.b, 120);
	CHECK_EQ_INT(d.ev.c, -51);
	CHECK_EQ_INT(d.ev.lag_end, 0);
	CHECK_EQ_INT(d.name.len, 0);
	CHECK_EQ_INT(d.nids, 2);
	CHECK_EQ_INT(d.ids[0].tid, 1234);
	CHECK(str_is(d.ids[0].comm, "worker-1"));
	CHECK_EQ_INT(d.ids[1].tid, 0);
	CHECK(str_is(d.ids[1].comm, "swapper/1"));
	CHECK_EQ_INT(d.reset_tid, 0);

	/* a 16-character comm has no NUL inside its field */
	memcpy(r.b + 8, "0123456789abcdef", 16);
	put64(&r, 32, 0x2);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK(str_is(d.ids[0].comm, "0123456789abcdef"));
	CHECK_EQ_INT(d.ev.a, TL_PS_D);

	r.size = 63; /* one byte short of next_prio */
	CHECK_EQ_INT(decode(t, &r, &d), -1);
	tl_tp_table_free(t);
}

TEST(test_decode_wakeups)
{
	struct tl_tp_table *t = table_6_18();
	static const uint16_t ids[] = { 375, 374, 373 };
	static const int types[] = { TL_EV_WAKING, TL_EV_WAKEUP, TL_EV_WAKEUP_NEW };
	struct tl_tp_decoded d;
	struct rec r;

	for (int i = 0; i < 3; i++) {
		rec_init(&r, ids[i], 0x08 | 0x10 | 0x40, 40);
		putstr(&r, 8, "consumer");
		put32(&r, 24, 555);
		put32(&r, 28, 100);
		put32(&r, 32, 3);
		CHECK_EQ_INT(decode(t, &r, &d), 1);
		CHECK_EQ_INT(d.ev.type, types[i]);
		CHECK_EQ_INT(d.ev.tid, 555);
		CHECK_EQ_INT(d.ev.arg, 701); /* the waker: the sample's current task */
		CHECK_EQ_INT(d.ev.a, 3);
		CHECK_EQ_INT(d.ev.b, 100);
		CHECK_EQ_INT(d.ev.flags, TL_EVF_HARDIRQ | TL_EVF_SOFTIRQ | TL_EVF_NMI);
		CHECK_EQ_INT(d.nids, 1);
		CHECK_EQ_INT(d.ids[0].tid, 555);
		CHECK(str_is(d.ids[0].comm, "consumer"));
	}
	tl_tp_table_free(t);
}

TEST(test_decode_fork)
{
	struct tl_tp_table *t = table_6_18();
	struct tl_tp_decoded d;
	struct rec r;

	rec_init(&r, 366, 0, 48);
	putloc(&r, 8, 24, "bash");
	put32(&r, 12, 100);
	putloc(&r, 16, 29, "bash-child");
	put32(&r, 20, 101);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FORK);
	CHECK_EQ_INT(d.ev.tid, 101);
	CHECK_EQ_INT(d.ev.arg, 100);
	CHECK(str_is(d.name, "bash-child"));
	CHECK_EQ_INT(d.reset_tid, 101);
	CHECK_EQ_INT(d.nids, 2);
	CHECK_EQ_INT(d.ids[0].tid, 101);
	CHECK(str_is(d.ids[0].comm, "bash-child"));
	CHECK_EQ_INT(d.ids[1].tid, 100);
	CHECK(str_is(d.ids[1].comm, "bash"));

	put32(&r, 16, (11u << 16) | 40); /* the child's comm would end past the record */
	CHECK_EQ_INT(decode(t, &r, &d), -1);
	put32(&r, 16, (4u << 16) | 0xffff);
	CHECK_EQ_INT(decode(t, &r, &d), -1);
	tl_tp_table_free(t);
}

/* Before 6.x the fork comms were fixed arrays. */
TEST(test_decode_fork_4_9)
{
	struct tl_tp_table *t = tl_tp_table_new();
	struct tl_tp_decoded d;
	struct rec r;

	CHECK_EQ_INT(add_file(t, TL_TP_SCHED_FORK, "linux-4.9"), 268);
	CHECK_EQ_INT(add_file(t, TL_TP_SCHED_WAKEUP, "linux-4.9"), 276);
	rec_init(&r, 268, 0, 48);
	putstr(&r, 8, "make");
	put32(&r, 24, 200);
	putstr(&r, 28, "make");
	put32(&r, 44, 201);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FORK);
	CHECK_EQ_INT(d.ev.tid, 201);
	CHECK_EQ_INT(d.ev.arg, 200);
	CHECK(str_is(d.name, "make"));

	rec_init(&r, 276, 0, 40); /* target_cpu moved behind "success" */
	putstr(&r, 8, "cc1");
	put32(&r, 24, 300);
	put32(&r, 28, 120);
	put32(&r, 32, 1);
	put32(&r, 36, 2);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_WAKEUP);
	CHECK_EQ_INT(d.ev.a, 2);
	tl_tp_table_free(t);
}

TEST(test_decode_process)
{
	struct tl_tp_table *t = table_6_18();
	struct tl_tp_decoded d;
	struct rec r;

	rec_init(&r, 365, 0, 48); /* exec */
	putloc(&r, 8, 20, "/usr/bin/sleep");
	put32(&r, 12, 400);
	put32(&r, 16, 401);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_EXEC);
	CHECK_EQ_INT(d.ev.tid, 400);
	CHECK_EQ_INT(d.ev.arg, 401);
	CHECK(str_is(d.name, "/usr/bin/sleep"));
	CHECK_EQ_INT(d.nids, 0);

	rec_init(&r, 369, 0, 40); /* exit */
	putstr(&r, 8, "sleep");
	put32(&r, 24, 400);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_EXIT);
	CHECK_EQ_INT(d.ev.tid, 400);

	rec_init(&r, 370, 0, 32); /* free */
	putloc(&r, 8, 20, "sleep");
	put32(&r, 12, 400);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FREE);
	CHECK_EQ_INT(d.ev.tid, 400);

	rec_init(&r, 371, 0, 40); /* migrate */
	putloc(&r, 8, 28, "kworker/0:1");
	put32(&r, 12, 77);
	put32(&r, 16, 120);
	put32(&r, 20, 0);
	put32(&r, 24, 1);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_MIGRATE);
	CHECK_EQ_INT(d.ev.tid, 77);
	CHECK_EQ_INT(d.ev.a, 0);
	CHECK_EQ_INT(d.ev.b, 1);
	CHECK_EQ_INT(d.nids, 1);
	CHECK(str_is(d.ids[0].comm, "kworker/0:1"));

	rec_init(&r, 204, 0, 48); /* task_rename */
	put32(&r, 8, 88);
	putstr(&r, 12, "old");
	putstr(&r, 28, "decoder#3");
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_RENAME);
	CHECK_EQ_INT(d.ev.tid, 88);
	CHECK(str_is(d.name, "decoder#3"));
	CHECK_EQ_INT(d.nids, 1);
	CHECK_EQ_INT(d.ids[0].tid, 88);
	tl_tp_table_free(t);
}

TEST(test_decode_irq)
{
	struct tl_tp_table *t = table_6_18();
	struct tl_tp_decoded d;
	struct rec r;

	rec_init(&r, 225, 0x08, 32);
	put32(&r, 8, 24);
	putloc(&r, 12, 16, "virtio0-input.0");
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_IRQ_ENTRY);
	CHECK_EQ_INT(d.ev.tid, 701);
	CHECK_EQ_INT(d.ev.a, 24);
	CHECK_EQ_INT(d.ev.flags, TL_EVF_HARDIRQ);
	CHECK(str_is(d.name, "virtio0-input.0"));

	rec_init(&r, 224, 0x08, 16);
	put32(&r, 8, 24);
	put32(&r, 12, 1);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_IRQ_EXIT);
	CHECK_EQ_INT(d.ev.a, 24);
	CHECK_EQ_INT(d.ev.b, 1);

	rec_init(&r, 223, 0x10, 16);
	put32(&r, 8, 7);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_SOFTIRQ_ENTRY);
	CHECK_EQ_INT(d.ev.a, 7);
	CHECK_EQ_INT(d.ev.flags, TL_EVF_SOFTIRQ);
	put16(&r, 0, 222);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_SOFTIRQ_EXIT);
	tl_tp_table_free(t);
}

/*
 * x86's irq_vectors (tests/data/formats/linux-6.18): the local timer and
 * the IPIs decode as IRQ_ENTRY/EXIT with TL_EVF_VECTOR, a = the vector,
 * c = the kind, which comes from the tracepoint (the vector numbers are
 * x86's own).
 */
TEST(test_decode_vectors)
{
	static const struct {
		int id, vector, entry;
		int64_t kind;
	} v[] = {
		{ 165, 236, 1, TL_VEC_LOCAL_TIMER },          { 164, 236, 0, TL_VEC_LOCAL_TIMER },
		{ 155, 253, 1, TL_VEC_RESCHEDULE },           { 152, 252, 0, TL_VEC_CALL_FUNCTION },
		{ 151, 251, 1, TL_VEC_CALL_FUNCTION_SINGLE }, { 158, 247, 0, TL_VEC_PLATFORM_IPI },
	};
	struct tl_tp_table *t = table_6_18();
	struct tl_tp_decoded d;
	struct rec r;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		rec_init(&r, (uint16_t)v[i].id, 0x8 /* TRACE_FLAG_HARDIRQ */, 12);
		put32(&r, 8, (uint32_t)v[i].vector);
		CHECK_EQ_INT(decode(t, &r, &d), 1);
		CHECK_EQ_INT(d.ev.type, v[i].entry ? TL_EV_IRQ_ENTRY : TL_EV_IRQ_EXIT);
		CHECK_EQ_INT(d.ev.flags, TL_EVF_HARDIRQ | TL_EVF_VECTOR);
		CHECK_EQ_INT(d.ev.a, v[i].vector);
		CHECK_EQ_INT(d.ev.b, 0);
		CHECK_EQ_INT(d.ev.c, v[i].kind);
		CHECK_EQ_INT(d.name.len, 0); /* the recorder names it after c */
		CHECK_EQ_INT(tl_irq_source(&d.ev), TL_IRQ_VECTOR | (int32_t)v[i].kind);
	}
	CHECK(!strcmp(tl_vector_name(TL_VEC_LOCAL_TIMER), "local_timer"));
	CHECK(!strcmp(tl_vector_name(TL_VEC_PLATFORM_IPI), "x86_platform_ipi"));
	CHECK(!strcmp(tl_vector_name(99), "vector"));
	CHECK(!strcmp(tl_vector_name(-1), "vector"));
	rec_init(&r, 165, 0x8, 11); /* one byte short of the vector */
	CHECK(decode(t, &r, &d) <= 0);
	tl_tp_table_free(t);
}

/* __rel_loc strings (Linux 5.18+ for some events): the offset counts from the end of the field. */
TEST(test_decode_rel_loc)
{
	static const char fmt[] = "name: irq_handler_entry\nID: 99\nformat:\n"
	                          "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	                          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	                          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	                          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	                          "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	                          "\tfield:__rel_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	                          "print fmt: \"irq=%d name=%s\", REC->irq, __get_rel_str(name)\n";
	struct tl_tp_table *t = tl_tp_table_new();
	struct tl_tp_decoded d;
	struct rec r;

	CHECK_EQ_INT(tl_tp_table_add(t, TL_TP_IRQ_ENTRY, fmt, sizeof(fmt) - 1), 99);
	rec_init(&r, 99, 0, 32);
	put32(&r, 8, 5);
	putstr(&r, 20, "eth0");
	put32(&r, 12, (5u << 16) | 4); /* 16 + 4 = 20 */
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK(str_is(d.name, "eth0"));
	put32(&r, 12, (5u << 16) | 14); /* 16 + 14 + 5 > 32 */
	CHECK_EQ_INT(decode(t, &r, &d), -1);
	tl_tp_table_free(t);
}

TEST(test_decode_futex)
{
	struct tl_tp_table *t = table_6_18();
	struct tl_tp_decoded d;
	struct rec r;

	rec_init(&r, 522, 0, 64);
	put32(&r, 8, 202);
	put64(&r, 16, 0x7f0000001000ull);
	put64(&r, 24, 0x80 | 9); /* FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG */
	put64(&r, 32, 3);        /* val: a glibc rwlock's reader (format 1.11) */
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FUTEX_ENTER);
	CHECK_EQ_INT(d.ev.tid, 701);
	CHECK_EQ_INT(d.ev.a, TL_FUTEX_WAIT_BITSET);
	CHECK_EQ_INT(d.ev.b, 0x7f0000001000ll);
	CHECK_EQ_INT(d.ev.c, 3);
	put64(&r, 24, 0x80 | TL_FUTEX_WAKE); /* a wake's val is a count: not kept */
	put64(&r, 32, 0x7fffffff);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.c, 0);

	rec_init(&r, 521, 0, 24);
	put64(&r, 16, (uint64_t)-110); /* -ETIMEDOUT */
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FUTEX_EXIT);
	CHECK_EQ_INT(d.ev.a, -110);

	rec_init(&r, 520, 0, 56);
	put64(&r, 16, 0x5000);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FUTEX_ENTER);
	CHECK_EQ_INT(d.ev.a, TL_FUTEX_WAITV);
	CHECK_EQ_INT(d.ev.b, 0x5000);

	rec_init(&r, 519, 0, 24);
	put64(&r, 16, 1);
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FUTEX_EXIT);
	CHECK_EQ_INT(d.ev.a, 1);
	tl_tp_table_free(t);
}

TEST(test_decode_block)
{
	struct tl_tp_table *t = table_6_18();
	struct tl_tp_decoded d;
	struct rec r;

	rec_init(&r, 2097, 0, 56);
	put32(&r, 8, (8u << 20) | 16); /* 8,16 */
	put64(&r, 16, 123456);
	put32(&r, 24, 8);
	putstr(&r, 28, "WS");
	putstr(&r, 38, "dd");
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_BLOCK_ISSUE);
	CHECK_EQ_INT(d.ev.tid, 701);
	CHECK_EQ_INT(d.ev.a, (8 << 20) | 16);
	CHECK_EQ_INT(d.ev.b, 123456);
	CHECK_EQ_INT(d.ev.c, 4096);

	rec_init(&r, 2107, 0x10, 56);
	put32(&r, 8, (8u << 20) | 16);
	put64(&r, 16, 123456);
	put32(&r, 24, 8);
	putloc(&r, 44, 48, "");
	CHECK_EQ_INT(decode(t, &r, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_BLOCK_COMPLETE);
	CHECK_EQ_INT(d.ev.c, 4096);
	CHECK_EQ_INT(d.ev.flags, TL_EVF_SOFTIRQ);
	tl_tp_table_free(t);
}

TEST(test_decode_foreign)
{
	struct tl_tp_table *t = table_6_18();
	struct tl_tp_table *empty = tl_tp_table_new();
	struct tl_tp_decoded d;
	struct tl_tp_sample s = { 0 };
	struct rec r;

	rec_init(&r, 9999, 0, 64);
	CHECK_EQ_INT(decode(t, &r, &d), 0);
	rec_init(&r, 372, 0, 1); /* too short for common_type */
	CHECK_EQ_INT(decode(t, &r, &d), 0);
	CHECK_EQ_INT(tl_tp_decode(t, &s, &d), 0); /* no bytes at all */
	rec_init(&r, 372, 0, 64);
	CHECK_EQ_INT(decode(empty, &r, &d), 0);
	tl_tp_table_free(empty);
	tl_tp_table_free(t);
}

int main(void)
{
	RUN_TESTS(test_ids_6_18, test_prev_state_6_18, test_prev_state_4_9, test_prev_state_noidle,
	          test_prev_state_fallback, test_bad_format, test_decode_switch, test_decode_wakeups, test_decode_fork,
	          test_decode_fork_4_9, test_decode_process, test_decode_irq, test_decode_vectors, test_decode_rel_loc,
	          test_decode_futex, test_decode_block, test_decode_foreign);
}
