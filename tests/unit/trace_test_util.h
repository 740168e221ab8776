/*
 * trace_test_util.h - helpers shared by the trace format's unit tests
 * (test_trace.c, test_trace_damage.c), header only like harness.h: temp
 * files, event constructors and comparison, reading a whole trace from
 * memory, and two small reference traces.
 */
#ifndef TL_TRACE_TEST_UTIL_H
#define TL_TRACE_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "trace/trace.h"
#include "trace/trace_format.h"

/* Each test program makes its own with mkdtemp() in main. */
static char tmpdir[] = "/tmp/tl-test-trace-XXXXXX";

static inline const char *tmp_path(const char *name)
{
	static char buf[8][256];
	static int n;
	char *p = buf[n++ % 8];
	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

static inline void *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? (size_t)n : 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static inline void write_all(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(buf, 1, len, f);
	fclose(f);
}

static inline struct tl_trace_info test_info(void)
{
	struct tl_trace_info info;
	memset(&info, 0, sizeof(info));
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	snprintf(info.source, sizeof(info.source), "test");
	info.ncpus = 2;
	info.start_ns = 1000;
	return info;
}

static inline struct tl_event mk(uint64_t ts, int cpu, int type, int tid)
{
	struct tl_event e;
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.cpu = (int16_t)cpu;
	e.type = (uint16_t)type;
	e.tid = tid;
	return e;
}

static inline int ev_equal(const struct tl_event *a, const struct tl_event *b)
{
	return a->ts == b->ts && a->type == b->type && a->cpu == b->cpu && a->flags == b->flags &&
	       a->lag_end == b->lag_end && a->tid == b->tid && a->arg == b->arg && a->name == b->name &&
	       a->lag == b->lag && a->a == b->a && a->b == b->b && a->c == b->c;
}

/* Read every event of a trace in memory; returns the count (-1 if open failed). */
static inline int read_events(const void *buf, size_t len, struct tl_event *out, int max, struct tl_trace_stats *stats)
{
	struct tl_trace *t = tl_trace_open_mem(buf, len);
	struct tl_event ev;
	int n = 0, r;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!t)
		return -1;
	while ((r = tl_trace_next(t, &ev)) == 1) {
		if (n < max)
			out[n] = ev;
		n++;
	}
	if (r < 0)
		n = -2;
	if (stats) {
		*stats = *tl_trace_stats(t);
		stats->end.lost_per_cpu = NULL; /* points into the reader */
	}
	tl_trace_close(t);
	return n;
}

static inline int has_warning(const struct tl_trace_stats *s, const char *needle)
{
	for (int i = 0; i < s->nwarnings; i++)
		if (strstr(s->warnings[i], needle))
			return 1;
	return 0;
}

/* One event of every type, every used field set, some to extreme values. */
static inline int all_types(struct tl_trace_writer *w, struct tl_event *evs)
{
	int n = 0;
	uint32_t comm = tl_trace_writer_intern(w, "worker-1"), file = tl_trace_writer_intern(w, "/usr/bin/app");
	uint32_t irq = tl_trace_writer_intern(w, "virtio0-input.0");
	uint64_t ts = 5000;

	for (int type = 0; type < TL_EV__COUNT; type++) {
		struct tl_event e = mk(ts += 777, type % 3 - 1, type, 1000 + type);
		uint8_t m = tlf_default_mask[type];
		if (m & TLF_F_ARG)
			e.arg = type == TL_EV_SWITCH ? 0 : -7 - type;
		if (m & TLF_F_NAME)
			e.name = type == TL_EV_EXEC ? file : type == TL_EV_IRQ_ENTRY ? irq : comm;
		if (m & TLF_F_A)
			e.a = type == TL_EV_SWITCH ? (TL_PS_S | TL_PS_PREEMPT) : INT64_MIN + type;
		if (m & TLF_F_B)
			e.b = type == TL_EV_FUTEX_ENTER ? 0x7fdc651f8990 : INT64_MAX - type;
		if (m & TLF_F_C)
			e.c = -120;
		if (type == TL_EV_WAKING)
			e.flags = TL_EVF_HARDIRQ | TL_EVF_SOFTIRQ;
		if (type == TL_EV_LOST)
			e.tid = 0;
		evs[n++] = e;
	}
	/* Fields a type does not use survive too (explicit field mask). */
	struct tl_event odd = mk(ts + 1, 1, TL_EV_EXIT, INT32_MIN);
	odd.arg = INT32_MAX;
	odd.name = comm;
	odd.a = 1;
	odd.b = -1;
	odd.c = 42;
	odd.lag_end = 7;
	odd.lag = 0xdeadbeef;
	odd.flags = 0xffff;
	evs[n++] = odd;
	for (int i = 0; i < n; i++)
		tl_trace_writer_add(w, &evs[i]);
	return n;
}

/* Chunks partitioned in time (tight watermarks), so any prefix of the file reads as a prefix of the events. */
static inline void *small_trace(size_t *len, int *chunk_events, int nchunks, struct tl_event *all, int *nall)
{
	struct tl_trace_info info = test_info();
	struct tl_trace_writer *w = tl_trace_writer_create(tmp_path("small.tl"), &info);
	struct tl_trace_end end = { .end_ns = 99, .ncpus = 2 };
	char name[16];
	int n = 0;

	for (int c = 0; c < nchunks; c++) {
		chunk_events[c] = 0;
		for (int i = 0; i < 6; i++) {
			struct tl_event e = mk(1000 * (c + 1) + 100 * i + (i % 2), i % 2 ? 1 : (i == 4 ? -1 : 0),
			                       TL_EV_FORK, 100 + n);
			snprintf(name, sizeof(name), "c%d", n % 5 + c);
			e.arg = 50;
			e.name = tl_trace_writer_intern(w, name);
			tl_trace_writer_add(w, &e);
			chunk_events[c]++;
			n++;
		}
		tl_trace_writer_flush(w, 1000 * (c + 2));
	}
	tl_trace_writer_close(w, &end);
	void *buf = read_all(tmp_path("small.tl"), len);
	*nall = read_events(buf, *len, all, 64, NULL);
	return buf;
}

#endif
