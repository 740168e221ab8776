/*
 * test_trace.c - unit tests of the trace format: varints, CRC, string
 * table, event names, round trips through the writer and the streaming
 * reader, ordering across chunks and CPUs, watermarks, late events and
 * memory bounds.  Damage and versions: test_trace_damage.c.
 *
 * Extra modes (not run by `make check`):
 *   test_trace --bench [N]         encode/compress speed and bytes per event
 *   test_trace --write-seeds DIR   small valid traces for the fuzzer's corpus
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "base/stacktab.h"
#include "trace_test_util.h"

#include "base/crc32c.h"
#include "base/errors.h"
#include "trace/rio.h"
#include "base/strtab.h"
#include "trace/trace.h"
#include "trace/trace_format.h"
#include "base/varint.h"

/* ---- building blocks ---- */

TEST(crc32c_vectors)
{
	CHECK_EQ_INT(tl_crc32c(0, "123456789", 9), 0xe3069283u);
	CHECK_EQ_INT(tl_crc32c(tl_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	CHECK_EQ_INT(tl_crc32c(0, "", 0), 0);
	/* the CPU's crc32 instruction (when used) and the tables agree, at every alignment and length */
	{
		unsigned char buf[300];
		unsigned seed = 7;
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)rand_r(&seed);
		for (size_t off = 0; off < 9; off++)
			for (size_t len = 0; len + off <= sizeof(buf); len += 13)
				CHECK_EQ_INT(tl_crc32c(5, buf + off, len), tl_crc32c_portable(5, buf + off, len));
	}
	uint8_t big[1000];
	for (int i = 0; i < 1000; i++)
		big[i] = (uint8_t)(i * 7);
	/* Unaligned starts and odd lengths agree with byte-wise chaining. */
	uint32_t whole = tl_crc32c(0, big + 3, 990), parts = 0;
	for (int i = 0; i < 990; i += 11)
		parts = tl_crc32c(parts, big + 3 + i, 11);
	CHECK_EQ_INT(whole, parts);
}

TEST(varint_roundtrip)
{
	const uint64_t vals[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, (uint64_t)1 << 63, UINT64_MAX };
	uint8_t buf[16];
	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		unsigned n = tl_varint_put(buf, vals[i]);
		const uint8_t *p = buf;
		uint64_t v = 0;
		CHECK_EQ_INT(n, tl_varint_len(vals[i]));
		CHECK(tl_varint_get(&p, buf + n, &v) == 0 && v == vals[i] && p == buf + n);
		p = buf;
		CHECK(tl_varint_get(&p, buf + n - 1, &v) == -1 && p == buf); /* cut short */
	}
	const int64_t svals[] = { 0, -1, 1, -2, INT64_MIN, INT64_MAX, -123456789 };
	for (unsigned i = 0; i < sizeof(svals) / sizeof(svals[0]); i++)
		CHECK(tl_zigzag_dec(tl_zigzag_enc(svals[i])) == svals[i]);
	CHECK_EQ_INT(tl_zigzag_enc(-1), 1);
	CHECK_EQ_INT(tl_zigzag_enc(1), 2);
	/* 11 continuation bytes, or a 10th byte above 1: too big for 64 bits. */
	uint8_t over[11];
	memset(over, 0xff, sizeof(over));
	const uint8_t *p = over;
	uint64_t v;
	CHECK(tl_varint_get(&p, over + 11, &v) == -1);
	over[9] = 0x02;
	p = over;
	CHECK(tl_varint_get(&p, over + 10, &v) == -1);
}

TEST(strtab_intern)
{
	struct tl_strtab t;
	char name[32];
	tl_strtab_init(&t);
	CHECK_EQ_INT(tl_strtab_intern(&t, "", 0), 0);
	CHECK_EQ_INT(tl_strtab_intern(&t, "worker", 6), 1);
	CHECK_EQ_INT(tl_strtab_intern(&t, "main", 4), 2);
	CHECK_EQ_INT(tl_strtab_intern(&t, "worker", 6), 1);
	CHECK_EQ_INT(tl_strtab_intern(&t, "workerX", 6), 1); /* len counts */
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "thread-%d", i);
		CHECK_EQ_INT(tl_strtab_intern(&t, name, strlen(name)), 3 + i);
	}
	snprintf(name, sizeof(name), "thread-%d", 4321);
	CHECK_EQ_INT(tl_strtab_intern(&t, name, strlen(name)), 3 + 4321);
	CHECK_EQ_STR(tl_strtab_get(&t, 2), "main");
	CHECK_EQ_STR(tl_strtab_get(&t, 0), "");
	CHECK_EQ_STR(tl_strtab_get(&t, 999999), "");
	CHECK_EQ_INT(tl_strtab_next_id(&t), 5003);
	tl_strtab_release(&t);
}

TEST(event_names)
{
	char buf[32];
	CHECK_EQ_STR(tl_event_type_name(TL_EV_SWITCH), "switch");
	CHECK_EQ_STR(tl_event_type_name(TL_EV_WAKEUP_NEW), "wakeup_new");
	CHECK_EQ_STR(tl_event_type_name(TL_EV_LOST), "lost");
	CHECK_EQ_STR(tl_event_type_name(TL_EV__COUNT), "?");
	for (unsigned i = 0; i < TL_EV__COUNT; i++)
		CHECK(strcmp(tl_event_type_name(i), "?") != 0);
	CHECK(tl_futex_op_waits(TL_FUTEX_WAIT | 128));
	CHECK(tl_futex_op_waits(TL_FUTEX_WAIT_BITSET));
	CHECK(tl_futex_op_waits(TL_FUTEX_LOCK_PI));
	CHECK(tl_futex_op_waits(TL_FUTEX_WAITV));
	CHECK(!tl_futex_op_waits(TL_FUTEX_WAKE | 128));
	CHECK(!tl_futex_op_waits(TL_FUTEX_UNLOCK_PI));
	CHECK(!tl_futex_op_waits(TL_FUTEX_TRYLOCK_PI));
	/* a lock's wait: glibc's mutex (FUTEX_WAIT 2), rwlock (WAIT_BITSET 3 a reader, 2 a writer) */
	CHECK(tl_futex_wait_locks(TL_FUTEX_WAIT | 128, 2));
	CHECK(tl_futex_wait_locks(TL_FUTEX_LOCK_PI, 0));
	CHECK(tl_futex_wait_locks(TL_FUTEX_WAIT_BITSET | 128 | 256, 3));
	CHECK(tl_futex_wait_locks(TL_FUTEX_WAIT_BITSET, 2));
	/* a condition's: a condition variable or semaphore (0), a join (the tid), a wake */
	CHECK(!tl_futex_wait_locks(TL_FUTEX_WAIT_BITSET | 128 | 256, 0));
	CHECK(!tl_futex_wait_locks(TL_FUTEX_WAIT_BITSET | 256, 28298));
	CHECK(!tl_futex_wait_locks(TL_FUTEX_WAKE, 2));
	CHECK_EQ_STR(tl_prev_state_str(0, buf, sizeof(buf)), "R");
	CHECK_EQ_STR(tl_prev_state_str(TL_PS_PREEMPT, buf, sizeof(buf)), "R+");
	CHECK_EQ_STR(tl_prev_state_str(TL_PS_S, buf, sizeof(buf)), "S");
	CHECK_EQ_STR(tl_prev_state_str(TL_PS_D | TL_PS_S, buf, sizeof(buf)), "S|D");
	CHECK_EQ_STR(tl_prev_state_str(TL_PS_I, buf, sizeof(buf)), "I");
	CHECK_EQ_STR(tl_prev_state_str(TL_PS_TRACED, buf, sizeof(buf)), "t");
	CHECK_EQ_STR(tl_prev_state_str(TL_PS_S, buf, 1), "");
}

/* ---- round trips ---- */

static void roundtrip_level(int level)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w;
	struct tl_event evs[64], got[64];
	struct tl_trace_stats st;
	uint64_t lost[2] = { 3, 4 };
	struct tl_trace_end end = { .end_ns = 99999, .events = 22, .lost = 7, .ncpus = 2, .lost_per_cpu = lost };
	size_t len;
	void *buf;
	int n;

	info.target_mode = TL_TARGET_PIDS;
	info.ntargets = 3;
	info.targets[0] = 12;
	info.targets[1] = 13;
	info.targets[2] = 4000000;
	info.realtime_offset_ns = 1700000000123456789ull;
	snprintf(info.command, sizeof(info.command), "./app --frames 'a b'");
	snprintf(info.kernel, sizeof(info.kernel), "6.18.44");
	snprintf(info.hostname, sizeof(info.hostname), "vm");
	snprintf(info.irq_vectors, sizeof(info.irq_vectors), "recorded");
	snprintf(info.cpu_model, sizeof(info.cpu_model), "Intel(R) Xeon(R)");
	snprintf(info.tool_version, sizeof(info.tool_version), "0.1.0");
	w = tl_trace_writer_create(tmp_path("rt.tl"), &info);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK(tl_trace_writer_set_level(w, level) == 0);
	n = all_types(w, evs);
	CHECK(tl_trace_writer_close(w, &end) == 0);
	buf = read_all(tmp_path("rt.tl"), &len);

	struct tl_trace *t = tl_trace_open_mem(buf, len);
	CHECK(t != NULL);
	if (t) {
		const struct tl_trace_info *ri = tl_trace_info(t);
		CHECK_EQ_STR(ri->clock, "monotonic");
		CHECK_EQ_STR(ri->command, info.command);
		CHECK_EQ_STR(ri->kernel, "6.18.44");
		CHECK_EQ_STR(ri->hostname, "vm");
		CHECK_EQ_STR(ri->irq_vectors, "recorded");
		CHECK_EQ_STR(ri->cpu_model, "Intel(R) Xeon(R)");
		CHECK_EQ_STR(ri->source, "test");
		CHECK_EQ_STR(ri->tool_version, "0.1.0");
		CHECK_EQ_INT(ri->ncpus, 2);
		CHECK_EQ_INT(ri->target_mode, TL_TARGET_PIDS);
		CHECK_EQ_INT(ri->ntargets, 3);
		CHECK_EQ_INT(ri->targets[2], 4000000);
		CHECK_EQ_INT(ri->start_ns, 1000);
		CHECK(ri->realtime_offset_ns == info.realtime_offset_ns);
		CHECK_EQ_STR(tl_trace_string(t, 1), ""); /* not read yet */
		CHECK_EQ_INT(tl_trace_next(t, &got[0]), 1);
		CHECK_EQ_STR(tl_trace_string(t, 1), "worker-1");
		CHECK_EQ_STR(tl_trace_string(t, 2), "/usr/bin/app");
		CHECK_EQ_STR(tl_trace_string(t, 3), "virtio0-input.0");
		CHECK_EQ_STR(tl_trace_string(t, 4), "");
		while (tl_trace_next(t, &got[0]) == 1)
			;
		CHECK(tl_trace_stats(t)->end.lost_per_cpu && tl_trace_stats(t)->end.lost_per_cpu[1] == 4);
		tl_trace_close(t);
	}
	CHECK_EQ_INT(read_events(buf, len, got, 64, &st), n);
	for (int i = 0; i < n; i++) {
		if (!ev_equal(&got[i], &evs[i])) {
			fprintf(stderr, "  event %d (%s) differs\n", i, tl_event_type_name(evs[i].type));
			CHECK(0);
		}
	}
	CHECK_EQ_INT(st.complete, 1);
	CHECK_EQ_INT(st.nwarnings, 0);
	CHECK_EQ_INT(st.end.end_ns, 99999);
	CHECK_EQ_INT(st.end.events, 22);
	CHECK_EQ_INT(st.end.lost, 7);
	CHECK_EQ_INT(st.end.ncpus, 2);
	CHECK_EQ_INT(st.file_bytes, len);
	CHECK_EQ_INT(st.bytes_read, len);
	CHECK_EQ_INT(st.late_events, 0);
	free(buf);
}

/* The kernel's clock lag (format 1.6): ns + 1 from the recorder, 64 ns units rounded, + 1; 0 unknown. */
TEST(clock_lag_units)
{
	struct tl_event e = { .type = TL_EV_SWITCH };

	CHECK_EQ_INT(tl_lag_units(0), 0);  /* unknown stays unknown */
	CHECK_EQ_INT(tl_lag_units(1), 1);  /* 0 ns */
	CHECK_EQ_INT(tl_lag_units(32), 1); /* 31 ns rounds down */
	CHECK_EQ_INT(tl_lag_units(33), 2); /* 32 ns rounds up */
	CHECK_EQ_INT(tl_lag_units(827), 14);
	CHECK_EQ_INT(tl_lag_units(0x7fffffff), 33554433);
	CHECK_EQ_INT(tl_event_lag_ns(&e), 0);
	e.lag = tl_lag_units(827); /* 826 ns */
	CHECK_EQ_INT(tl_event_lag_ns(&e), 832);
	e.lag = 1;
	CHECK_EQ_INT(tl_event_lag_ns(&e), 0);
}

TEST(roundtrip_every_type)
{
	roundtrip_level(3);
}

TEST(roundtrip_uncompressed)
{
	roundtrip_level(0);
}

TEST(writer_rejects_bad_events)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("bad.tl"), &info);
	struct tl_event e = mk(1, 0, TL_EV__COUNT, 1);
	CHECK(tl_trace_writer_add(w, &e) == -1);
	CHECK(strstr(tl_error_msg(), "unknown type") != NULL);
	e = mk(1, -2, TL_EV_EXIT, 1);
	CHECK(tl_trace_writer_add(w, &e) == -1);
	e = mk(1, 4096, TL_EV_EXIT, 1);
	CHECK(tl_trace_writer_add(w, &e) == -1);
	e = mk(1, 4095, TL_EV_EXIT, 1);
	CHECK(tl_trace_writer_add(w, &e) == 0);
	CHECK(tl_trace_writer_set_level(w, 99) == -1);
	CHECK(tl_trace_writer_close(w, NULL) == 0);
	CHECK(tl_trace_writer_create("/nonexistent-dir/x.tl", &info) == NULL);
	CHECK_EQ_STR(tl_error_msg(), "cannot create '/nonexistent-dir/x.tl': No such file or directory");
}

/* ---- ordering ---- */

/*
 * Write a trace: events, with FLUSH(w) markers between them.  Returns the
 * file in memory (caller frees).
 */
#define FLUSH_MARK 0xffff
static void *build(const struct tl_event *evs, int n, int with_end, size_t *len)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("build.tl"), &info);
	struct tl_trace_end end = { .end_ns = 1, .ncpus = 0 };

	for (int i = 0; i < n; i++) {
		if (evs[i].type == FLUSH_MARK)
			tl_trace_writer_flush(w, evs[i].ts);
		else
			tl_trace_writer_add(w, &evs[i]);
	}
	tl_trace_writer_close(w, with_end ? &end : NULL);
	return read_all(tmp_path("build.tl"), len);
}

static struct tl_event flush_at(uint64_t watermark)
{
	return mk(watermark, 0, FLUSH_MARK, 0);
}

TEST(order_across_chunks)
{
	/*
	 * The recorder drained CPU0 further than CPU1 before the first flush:
	 * chunk 0 holds CPU0 up to 1200 with watermark 500, chunk 1 brings
	 * CPU1's older events.  The reader must hold CPU0's back.
	 */
	struct tl_event in[] = {
		mk(1000, 0, TL_EV_EXIT, 1),
		mk(1100, 0, TL_EV_EXIT, 2),
		mk(1200, 0, TL_EV_EXIT, 3),
		mk(400, 1, TL_EV_EXIT, 10),
		flush_at(500),
		mk(600, 1, TL_EV_EXIT, 11),
		mk(700, 1, TL_EV_EXIT, 12),
		mk(1050, 1, TL_EV_EXIT, 13),
		mk(1300, 0, TL_EV_EXIT, 4),
		flush_at(1250),
		mk(1250, 1, TL_EV_EXIT, 14),
		flush_at(2000),
	};
	const int want[] = { 10, 11, 12, 1, 13, 2, 3, 14, 4 };
	struct tl_event got[16];
	struct tl_trace_stats st;
	size_t len;
	void *buf = build(in, sizeof(in) / sizeof(in[0]), 1, &len);

	CHECK_EQ_INT(read_events(buf, len, got, 16, &st), 9);
	for (int i = 0; i < 9; i++)
		CHECK_EQ_INT(got[i].tid, want[i]);
	CHECK_EQ_INT(st.late_events, 0);
	CHECK_EQ_INT(st.chunks, 3);
	free(buf);
}

TEST(order_ties_clean)
{
	struct tl_event in[] = {
		mk(500, 1, TL_EV_EXIT, 30),
		mk(500, 0, TL_EV_EXIT, 20),
		mk(500, 0, TL_EV_EXIT, 21),
		mk(500, -1, TL_EV_THREAD, 10),
		flush_at(500),
		mk(500, 0, TL_EV_EXIT, 22),
		mk(500, -1, TL_EV_THREAD, 11),
		mk(500, 1, TL_EV_EXIT, 31),
		mk(600, 3, TL_EV_EXIT, 40),
	};
	const int want[] = { 10, 11, 20, 21, 22, 30, 31, 40 };
	struct tl_event got[16];
	struct tl_trace_stats st;
	size_t len;
	void *buf = build(in, sizeof(in) / sizeof(in[0]), 1, &len);

	CHECK_EQ_INT(read_events(buf, len, got, 16, &st), 8);
	for (int i = 0; i < 8; i++)
		CHECK_EQ_INT(got[i].tid, want[i]);
	CHECK_EQ_INT(st.late_events, 0);
	free(buf);
}

TEST(late_events_counted)
{
	/* Chunk 1 promises >= 1000, then CPU1 delivers 800 and 950: returned late. */
	struct tl_event in[] = {
		mk(900, 0, TL_EV_EXIT, 1), mk(1000, 0, TL_EV_EXIT, 2), mk(1100, 0, TL_EV_EXIT, 3), flush_at(1000),
		mk(800, 1, TL_EV_EXIT, 4), mk(950, 1, TL_EV_EXIT, 5),  mk(1200, 1, TL_EV_EXIT, 6), flush_at(1300),
	};
	struct tl_event got[16];
	struct tl_trace_stats st;
	size_t len;
	void *buf = build(in, sizeof(in) / sizeof(in[0]), 1, &len);

	CHECK_EQ_INT(read_events(buf, len, got, 16, &st), 6);
	CHECK_EQ_INT(got[0].tid, 1);
	CHECK_EQ_INT(got[1].tid, 4); /* as soon as it was seen: behind 900 */
	CHECK_EQ_INT(got[2].tid, 5); /* broke the promise too, but is not behind anything returned */
	CHECK_EQ_INT(got[3].tid, 2);
	CHECK_EQ_INT(st.late_events, 1);
	CHECK(has_warning(&st, "has 1 events out of time order (behind events already read): they were applied late"));
	free(buf);
}

TEST(backwards_within_cpu)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("back.tl"), &info);
	struct tl_event e1 = mk(2000, 0, TL_EV_EXIT, 1), e2 = mk(1500, 0, TL_EV_EXIT, 2);
	struct tl_event got[4];
	struct tl_trace_stats st;
	size_t len;

	tl_trace_writer_add(w, &e1);
	tl_trace_writer_add(w, &e2);
	CHECK_EQ_INT(tl_trace_writer_backwards(w), 1);
	tl_trace_writer_close(w, NULL);
	void *buf = read_all(tmp_path("back.tl"), &len);
	CHECK_EQ_INT(read_events(buf, len, got, 4, &st), 2);
	CHECK_EQ_INT(got[1].ts, 1500);
	CHECK_EQ_INT(st.late_events, 1);
	CHECK(has_warning(&st, "did not finish cleanly"));
	CHECK_EQ_INT(st.complete, 0);
	free(buf);
}

TEST(strings_across_blocks)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("str.tl"), &info);
	struct tl_event got[64];
	char name[32];
	size_t len;
	int n = 0;

	for (int chunk = 0; chunk < 5; chunk++) {
		for (int i = 0; i < 4; i++) {
			struct tl_event e = mk(100 * chunk + i, i % 2, TL_EV_RENAME, 100 + n);
			snprintf(name, sizeof(name), "name-%d-%d", chunk, i);
			e.name = tl_trace_writer_intern(w, name);
			CHECK_EQ_INT(e.name, n + 1);
			/* Re-interning an old name gives the old id. */
			CHECK_EQ_INT(tl_trace_writer_intern(w, "name-0-0"), 1);
			tl_trace_writer_add(w, &e);
			n++;
		}
		tl_trace_writer_flush(w, 100 * chunk + 99);
	}
	tl_trace_writer_intern(w, "never-used");
	tl_trace_writer_close(w, NULL);
	void *buf = read_all(tmp_path("str.tl"), &len);
	struct tl_trace *t = tl_trace_open_mem(buf, len);
	CHECK(t != NULL);
	for (int i = 0; t && i < n; i++) {
		CHECK_EQ_INT(tl_trace_next(t, &got[i]), 1);
		snprintf(name, sizeof(name), "name-%d-%d", i / 4, i % 4);
		CHECK_EQ_STR(tl_trace_string(t, got[i].name), name);
	}
	if (t) {
		CHECK_EQ_INT(tl_trace_next(t, &got[0]), 0);
		CHECK_EQ_STR(tl_trace_string(t, 21), "never-used");
		tl_trace_close(t);
	}
	free(buf);
}

/*
 * Call stacks (format 1.5): interned once per distinct list of frames,
 * written before the chunk that names them, over several blocks, read back
 * frame for frame; frames far apart (kernel, user) and going down code as
 * deltas round-trip; a stack longer than TL_STACK_MAX_FRAMES is cut.
 */
TEST(stacks_across_blocks)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("stk.tl"), &info);
	static uint64_t big[TL_STACK_MAX_FRAMES + 10];
	uint64_t f[4];
	struct tl_event e;
	size_t len;
	unsigned n;
	const uint64_t *got;

	for (int chunk = 0; chunk < 3; chunk++) {
		for (int i = 0; i < 4; i++) {
			f[0] = 0xffffffff81000000ull + (uint64_t)i; /* kernel */
			f[1] = 0x7f0000001000ull - (uint64_t)chunk; /* user, down */
			f[2] = 0x401000 + (uint64_t)(i * 16);
			e = mk(100 * chunk + i, i % 2, TL_EV_SAMPLE, 50 + i);
			e.arg = 50;
			e.a = tl_trace_writer_stack(w, f, 3);
			CHECK_EQ_INT(e.a, 4 * chunk + i + 1);
			CHECK_EQ_INT(tl_trace_writer_stack(w, f, 3), e.a); /* the same frames: the same id */
			e.b = (int64_t)f[0];
			e.c = 1003009;
			tl_trace_writer_add(w, &e);
		}
		tl_trace_writer_flush(w, 100 * chunk + 99);
	}
	for (unsigned i = 0; i < TL_STACK_MAX_FRAMES + 10; i++)
		big[i] = 0x400000 + i;
	CHECK_EQ_INT(tl_trace_writer_stack(w, big, TL_STACK_MAX_FRAMES + 10), 13);
	CHECK_EQ_INT(tl_trace_writer_stack(w, f, 0), 0);
	tl_trace_writer_close(w, NULL);
	void *buf = read_all(tmp_path("stk.tl"), &len);
	struct tl_trace *t = tl_trace_open_mem(buf, len);
	CHECK(t != NULL);
	for (int i = 0; t && i < 12; i++) {
		CHECK_EQ_INT(tl_trace_next(t, &e), 1);
		CHECK_EQ_INT(e.type, TL_EV_SAMPLE);
		CHECK_EQ_INT(e.a, i + 1);
		got = tl_trace_stack(t, (uint32_t)e.a, &n);
		CHECK_EQ_INT(n, 3);
		if (got && n == 3) {
			CHECK_EQ_INT(got[0], (int64_t)(0xffffffff81000000ull + (uint64_t)(i % 4)));
			CHECK_EQ_INT(got[1], (int64_t)(0x7f0000001000ull - (uint64_t)(i / 4)));
			CHECK_EQ_INT(got[2], 0x401000 + (i % 4) * 16);
		}
	}
	if (t) {
		CHECK_EQ_INT(tl_trace_next(t, &e), 0);
		got = tl_trace_stack(t, 13, &n);
		CHECK_EQ_INT(n, TL_STACK_MAX_FRAMES);
		CHECK(got && got[TL_STACK_MAX_FRAMES - 1] == 0x400000 + TL_STACK_MAX_FRAMES - 1);
		CHECK(tl_trace_stack(t, 0, &n) == NULL && n == 0);
		CHECK(tl_trace_stack(t, 14, &n) == NULL && n == 0);
		tl_trace_close(t);
	}
	free(buf);
}

TEST(auto_flush_large)
{
	/* Past the chunk limit the writer flushes by itself; order is kept. */
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("big.tl"), &info);
	struct tl_trace_end end = { 0 };
	struct tl_event ev;
	const int n = 400000;
	uint64_t prev = 0;
	int count = 0, ok = 1;

	for (int i = 0; i < n; i++) {
		struct tl_event e = mk(1000000 + (uint64_t)i * 1000, i % 4, TL_EV_SWITCH, 1000 + i % 97);
		e.arg = 2000 + i % 89;
		e.b = 120;
		e.c = 120;
		tl_trace_writer_add(w, &e);
	}
	CHECK(tl_trace_writer_close(w, &end) == 0);
	struct tl_trace *t = tl_trace_open(tmp_path("big.tl"));
	CHECK(t != NULL);
	while (t && tl_trace_next(t, &ev) == 1) {
		if (ev.ts < prev || ev.tid != 1000 + count % 97)
			ok = 0;
		prev = ev.ts;
		count++;
	}
	CHECK(ok);
	CHECK_EQ_INT(count, n);
	if (t) {
		CHECK(tl_trace_stats(t)->chunks > 1);
		tl_trace_close(t);
	}
}

/* ---- memory bounds, through a pipe ---- */

struct gen {
	uint64_t rng;
	uint64_t ts[4];
	int cur[4]; /* what runs on each CPU */
};

static uint32_t gen_rand(struct gen *g)
{
	g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(g->rng >> 33);
}

/*
 * A realistic event for cpu: switch/waking pairs 10-50 us apart among ~56
 * threads; a switch takes off what runs on the CPU, a waking comes from it.
 */
static struct tl_event gen_event(struct gen *g, int cpu, int i)
{
	static const int tids[] = { 1, 15, 18, 126, 3030, 4199, 4201, 4734, 4736, 4737, 4738, 12001, 12002, 12003 };
	struct tl_event e;
	int ntids = sizeof(tids) / sizeof(tids[0]);

	g->ts[cpu] += 10000 + gen_rand(g) % 40000;
	memset(&e, 0, sizeof(e));
	e.ts = g->ts[cpu];
	e.cpu = (int16_t)cpu;
	if (i % 2) {
		e.type = TL_EV_WAKING;
		e.tid = tids[gen_rand(g) % ntids] + (int)(gen_rand(g) % 4) * 40;
		e.arg = g->cur[cpu];
		e.a = gen_rand(g) % 2;
		e.b = 120;
	} else {
		e.type = TL_EV_SWITCH;
		e.tid = g->cur[cpu];
		e.arg = g->cur[cpu] = tids[gen_rand(g) % ntids] + (int)(gen_rand(g) % 4) * 40;
		e.a = gen_rand(g) % 3 ? TL_PS_S : 0;
		e.b = 120;
		e.c = gen_rand(g) % 8 ? 120 : 100;
	}
	return e;
}

TEST(bounded_memory_through_pipe)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("pipe.tl"), &info);
	struct tl_trace_end end = { 0 };
	struct gen g = { .rng = 42 };
	const int total = 2000000, per_round = 20000;
	int fds[2], count = 0, ok = 1;
	uint64_t prev = 0;
	struct tl_event ev;
	char path[64];

	/* Like the recorder: drain each CPU a little past the round's watermark. */
	for (int i = 0; i < total;) {
		uint64_t mark = g.ts[0] < g.ts[1] ? g.ts[0] : g.ts[1];
		for (int k = 0; k < per_round && i < total; k++, i++) {
			int cpu = (int)(gen_rand(&g) % 2);
			struct tl_event e = gen_event(&g, cpu, i);
			tl_trace_writer_add(w, &e);
		}
		(void)mark;
		tl_trace_writer_flush(w, g.ts[0] < g.ts[1] ? g.ts[0] : g.ts[1]);
	}
	CHECK(tl_trace_writer_close(w, &end) == 0);

	CHECK(pipe(fds) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		size_t len;
		close(fds[0]);
		char *buf = read_all(tmp_path("pipe.tl"), &len);
		for (size_t off = 0; off < len;) {
			ssize_t n = write(fds[1], buf + off, len - off > 65536 ? 65536 : len - off);
			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	struct tl_trace *t = tl_trace_open(path);
	CHECK(t != NULL);
	while (t && tl_trace_next(t, &ev) == 1) {
		if (ev.ts < prev)
			ok = 0;
		prev = ev.ts;
		count++;
	}
	CHECK(ok);
	CHECK_EQ_INT(count, total);
	if (t) {
		struct tl_trace_memstats m;
		const struct tl_trace_stats *st = tl_trace_stats(t);
		tl_trace_memstats(t, &m);
		CHECK_EQ_INT(st->file_bytes, 0);
		CHECK_EQ_INT(st->late_events, 0);
		CHECK_EQ_INT(st->complete, 1);
		CHECK_EQ_INT(st->nwarnings, 0);
		CHECK(st->chunks >= (uint64_t)(total / per_round));
		/* At most the chunk being read plus what the previous one held back. */
		CHECK(m.max_queued_events <= 2 * (uint64_t)per_round);
		CHECK(m.max_pending_bytes <= 2 * (uint64_t)TLF_CHUNK_LIMIT);
		CHECK_EQ_INT(m.queued_events, 0);
		CHECK_EQ_INT(m.pending_bytes, 0);
		tl_trace_close(t);
	}
	close(fds[0]);
	waitpid(pid, NULL, 0);
}

/* ---- extra modes ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Encode n realistic events at a zstd level; prints speed and size. */
static void bench_level(int n, int level)
{
	const char *path = "/dev/null";
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(path, &info);
	struct tl_trace_end end = { 0 };
	struct gen g = { .rng = 7 };
	uint64_t raw = 0;
	double t0, t1;

	if (!w || tl_trace_writer_set_level(w, level) < 0) {
		fprintf(stderr, "bench: %s\n", tl_error_msg());
		return;
	}
	/*
	 * Pre-generate a pool, so that only the writer is timed
	 * (the recorder hands over one hot struct at a time); replay it with
	 * the timestamps shifted on every pass (its coding is bigger than
	 * zstd's window, so the replay does not flatter the ratio).
	 */
	enum { POOL = 1 << 20 };
	struct tl_event *evs = malloc(POOL * sizeof(*evs)), e;
	for (int i = 0; i < POOL; i++)
		evs[i] = gen_event(&g, (int)(gen_rand(&g) % 4), i);
	uint64_t span = 0;
	for (int c = 0; c < 4; c++)
		span = g.ts[c] > span ? g.ts[c] : span;
	t0 = now_s();
	for (int i = 0; i < n; i++) {
		e = evs[i % POOL];
		e.ts += span * (uint64_t)(i / POOL);
		tl_trace_writer_add(w, &e);
		if (i % 50000 == 49999)
			tl_trace_writer_flush(w, e.ts - 2 * span / POOL * 4);
	}
	size_t len = tl_trace_writer_bytes(w);
	tl_trace_writer_close(w, &end);
	t1 = now_s();
	raw = (uint64_t)n * sizeof(struct tl_event);
	printf("write level %d: %d events in %.3f s: %.1f M events/s, %.0f MB/s of struct tl_event, %.2f bytes/event\n",
	       level, n, t1 - t0, n / (t1 - t0) / 1e6, raw / (t1 - t0) / 1e6, (double)len / n);
	free(evs);
}

static int bench(int n)
{
	const char *path = tmp_path("bench.tl");
	struct tl_event ev;
	double t0, t1;
	int count = 0;

	bench_level(n, 0);
	bench_level(n, 1);
	bench_level(n, 3);
	/* A file to read back. */
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(path, &info);
	struct gen g = { .rng = 7 };
	for (int i = 0; i < n; i++) {
		ev = gen_event(&g, (int)(gen_rand(&g) % 4), i);
		tl_trace_writer_add(w, &ev);
	}
	tl_trace_writer_close(w, NULL);
	t0 = now_s();
	struct tl_trace *t = tl_trace_open(path);
	while (t && tl_trace_next(t, &ev) == 1)
		count++;
	t1 = now_s();
	printf("read level 3: %d events in %.3f s: %.1f M events/s\n", count, t1 - t0, count / (t1 - t0) / 1e6);
	tl_trace_close(t);
	unlink(path);
	return 0;
}

/* Small valid traces for the fuzzer's seed corpus. */
static int write_seeds(const char *dir)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_end end = { .end_ns = 9999, .events = 3, .ncpus = 2 };
	struct tl_event evs[64];
	char path[512];
	int chunk_events[3], n;
	size_t len;

	for (int level = 0; level <= 3; level += 3) {
		snprintf(path, sizeof(path), "%s/seed-all-types-z%d", dir, level);
		struct tl_trace_writer *w = tl_trace_writer_create(path, &info);
		if (!w)
			return fprintf(stderr, "%s\n", tl_error_msg()), 1;
		tl_trace_writer_set_level(w, level);
		all_types(w, evs);
		tl_trace_writer_flush(w, 6000);
		struct tl_event late = mk(5500, 1, TL_EV_MIGRATE, 77);
		late.a = 1;
		tl_trace_writer_add(w, &late);
		tl_trace_writer_close(w, &end);
	}
	free(small_trace(&len, chunk_events, 3, evs, &n));
	snprintf(path, sizeof(path), "%s/seed-chunks", dir);
	write_all(path, read_all(tmp_path("small.tl"), &len), len);
	snprintf(path, sizeof(path), "%s/seed-empty", dir);
	struct tl_trace_writer *w = tl_trace_writer_create(path, &info);
	tl_trace_writer_close(w, &end);
	snprintf(path, sizeof(path), "%s/seed-unfinished", dir);
	w = tl_trace_writer_create(path, &info);
	tl_trace_writer_set_level(w, 0);
	struct tl_event e = mk(100, -1, TL_EV_THREAD, 5);
	e.name = tl_trace_writer_intern(w, "x");
	tl_trace_writer_add(w, &e);
	tl_trace_writer_close(w, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (!mkdtemp(tmpdir))
		return 1;
	if (argc >= 2 && !strcmp(argv[1], "--bench"))
		return bench(argc >= 3 ? atoi(argv[2]) : 5000000);
	if (argc >= 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	RUN_TESTS(crc32c_vectors, varint_roundtrip, strtab_intern, event_names, clock_lag_units, roundtrip_every_type,
	          roundtrip_uncompressed, writer_rejects_bad_events, order_across_chunks, order_ties_clean,
	          late_events_counted, backwards_within_cpu, strings_across_blocks, stacks_across_blocks,
	          auto_flush_large, bounded_memory_through_pipe);
}
