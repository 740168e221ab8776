/*
 * test_export.c - lib/export: the protobuf encoder's exact bytes, and the
 * three formats written from a small hand-made trace whose thread and
 * marker names are hostile (a spreadsheet formula, HTML with a script).
 *
 * The trace (us): process 100 "app"; thread A (101) runs on CPU 0
 * 1000-1010, sleeps until B (102) wakes it at 1020, waits for CPU 0 until
 * 1021 and runs 1021-1050.
 * A's region R 1001-1005 holds its task T 1001-1003: they begin at the
 * same instant, so the Perfetto writer must still open R before T.
 * Frames 1 (1000-1030) and 2 (1010-1040) overlap: two frame lanes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "event_build.h"
#include "harness.h"
#include "export/export.h"
#include "export/pb.h"

#define A 101
#define B 102
#define NAME_A "=HYPERLINK(\"x\"),1"
#define NAME_B "<img src=x onerror=alert(1)>"

static struct tl_trace_writer *W;
static char path[] = "/tmp/tl-test-export-XXXXXX";

static void ev(uint64_t t, int cpu, unsigned type, int32_t tid, int32_t arg, int64_t a, const char *name)
{
	struct tl_event e = event_us(t, cpu, type, tid, arg, a, 120, 120, 0);

	e.name = name ? tl_trace_writer_intern(W, name) : 0;
	CHECK(tl_trace_writer_add(W, &e) == 0);
}

static void write_trace(void)
{
	W = program_trace_open(path, 100, 1000);
	CHECK(W != NULL);
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, "app");
	ev(1000, -1, TL_EV_THREAD, A, 100, 0, NAME_A);
	ev(1000, -1, TL_EV_THREAD, B, 100, 0, NAME_B);
	ev(1000, 0, TL_EV_SWITCH, 0, A, 0, NULL);
	ev(1000, 1, TL_EV_SWITCH, 0, B, 0, NULL);
	ev(1000, -1, TL_EV_FRAME_BEGIN, A, 0, 1, NULL);
	ev(1001, -1, TL_EV_REGION_BEGIN, A, 0, 1, "R");
	ev(1001, -1, TL_EV_TASK_BEGIN, A, 0, 1, "T<script>");
	ev(1003, -1, TL_EV_TASK_END, A, 0, 0, "T<script>");
	ev(1005, -1, TL_EV_REGION_END, A, 0, 0, "R");
	ev(1010, -1, TL_EV_FRAME_BEGIN, A, 0, 2, NULL);
	ev(1010, 0, TL_EV_SWITCH, A, 0, TL_PS_S, NULL);
	ev(1020, 1, TL_EV_WAKING, A, B, 0, NULL);
	ev(1020, 1, TL_EV_WAKEUP, A, B, 0, NULL);
	ev(1021, 0, TL_EV_SWITCH, 0, A, 0, NULL);
	ev(1030, -1, TL_EV_FRAME_END, A, 0, 1, NULL);
	ev(1040, -1, TL_EV_FRAME_END, A, 0, 2, NULL);
	ev(1050, 0, TL_EV_SWITCH, A, 0, TL_PS_S, NULL);
	ev(1050, 1, TL_EV_SWITCH, B, 0, TL_PS_S, NULL);
	CHECK(program_trace_close(W, 1100) == 0);
}

TEST(pb_bytes)
{
	static const uint8_t want[] = {
		0x08, 0xac, 0x02,                                                 /* 1: 300 */
		0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 2: -1, ten bytes */
		0x1a, 0x02, 'h',  'i',                                            /* 3: "hi" */
		0x22, 0x88, 0x80, 0x80, 0x00,                                     /* 4 { padded length 8 */
		0x2a, 0x83, 0x80, 0x80, 0x00, 0x08, 0x01, 0x00,                   /*   5 { 1: 1, raw 0x00 } */
		                                                                  /* } */
	};
	struct tl_pb b = { 0 };

	tl_pb_varint(&b, 1, 300);
	tl_pb_int(&b, 2, -1);
	tl_pb_string(&b, 3, "hi");
	tl_pb_begin(&b, 4);
	tl_pb_begin(&b, 5);
	tl_pb_varint(&b, 1, 1);
	tl_pb_raw(&b, "", 1);
	tl_pb_end(&b);
	tl_pb_end(&b);
	CHECK_EQ_INT(b.bad, 0);
	CHECK_EQ_INT(b.len, sizeof(want));
	CHECK(b.len == sizeof(want) && !memcmp(b.buf, want, sizeof(want)));
	tl_pb_end(&b); /* one end too many */
	CHECK_EQ_INT(b.bad, 1);
	tl_pb_release(&b);
}

static char *export_to_string(int format, size_t *len, struct tl_export_counts *n)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_export_opts o = { .format = format };
	char *buf = NULL;

	o.out = open_memstream(&buf, len);
	CHECK(o.out != NULL);
	CHECK_EQ_INT(tl_export(&run, &o, n), 0);
	fclose(o.out);
	tl_run_release(&run);
	return buf;
}

/* A TrackEvent as the Perfetto writer put it in the file. */
struct te {
	uint64_t ts, track;
	int type;
	char name[40];
};

static uint64_t get_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* Walk one message; a callback for each field (len fields: data and size). */
static void fields(const uint8_t *p, const uint8_t *end, void (*fn)(void *, unsigned, uint64_t, const uint8_t *),
                   void *ctx)
{
	while (p < end) {
		uint64_t key = get_varint(&p, end), v = 0;
		const uint8_t *data = NULL;

		if ((key & 7) == 0) {
			v = get_varint(&p, end);
		} else if ((key & 7) == 2) {
			v = get_varint(&p, end);
			data = p;
			p += v;
		} else {
			CHECK(!"a wire type the writer never uses");
			return;
		}
		fn(ctx, (unsigned)(key >> 3), v, data);
	}
}

static void te_field(void *ctx, unsigned f, uint64_t v, const uint8_t *data)
{
	struct te *t = ctx;

	if (f == 9)
		t->type = (int)v;
	else if (f == 11)
		t->track = v;
	else if (f == 23)
		snprintf(t->name, sizeof(t->name), "%.*s", (int)v, (const char *)data);
}

struct packets {
	struct te ev[64];
	int n;
	int bundles, ftrace_events;
	struct te cur;
};

static void bundle_field(void *ctx, unsigned f, uint64_t v, const uint8_t *data)
{
	struct packets *ps = ctx;

	if (f == 2)
		ps->ftrace_events++;
}

static void packet_field(void *ctx, unsigned f, uint64_t v, const uint8_t *data)
{
	struct packets *ps = ctx;

	if (f == 8)
		ps->cur.ts = v;
	else if (f == 11)
		fields(data, data + v, te_field, &ps->cur);
	else if (f == 1) {
		ps->bundles++;
		fields(data, data + v, bundle_field, ps);
	}
}

static void trace_field(void *ctx, unsigned f, uint64_t v, const uint8_t *data)
{
	struct packets *ps = ctx;

	CHECK_EQ_INT(f, 1);
	memset(&ps->cur, 0, sizeof(ps->cur));
	fields(data, data + v, packet_field, ps);
	if (ps->cur.type && ps->n < 64)
		ps->ev[ps->n++] = ps->cur;
}

TEST(perfetto)
{
	struct tl_export_counts n;
	struct packets ps = { 0 };
	size_t len;
	uint8_t *buf = (uint8_t *)export_to_string(TL_EXPORT_PERFETTO, &len, &n);
	const char *want[] = { "+R", "+T<script>", "-", "-" };
	int k = 0, frames = 0;
	uint64_t marks_track = (uint64_t)2 << 40 | A;

	fields(buf, buf + len, trace_field, &ps);
	/* 6 switches and 2 wakeups on CPUs 0 and 1: one bundle each */
	CHECK_EQ_INT(n.sched_events, 8);
	CHECK_EQ_INT(ps.ftrace_events, 8);
	CHECK_EQ_INT(ps.bundles, 2);
	CHECK_EQ_INT(n.frame_lanes, 2);
	CHECK_EQ_INT(n.spans, 4);
	/* A's markers, in file order: R opens before T although both begin at 1001 us */
	for (int i = 0; i < ps.n; i++) {
		if (ps.ev[i].track == marks_track && k < 4) {
			char got[48];

			snprintf(got, sizeof(got), "%s%s", ps.ev[i].type == 1 ? "+" : "-", ps.ev[i].name);
			CHECK_EQ_STR(got, want[k]);
			CHECK_EQ_INT(ps.ev[i].ts, (uint64_t)(k == 0 || k == 1 ? 1001000 : k == 2 ? 1003000 : 1005000));
			k++;
		}
		if (ps.ev[i].type == 1 && !strncmp(ps.ev[i].name, "frame ", 6))
			frames++;
	}
	CHECK_EQ_INT(k, 4);
	CHECK_EQ_INT(frames, 2);
	free(buf);
}

TEST(chrome_names_are_data)
{
	struct tl_export_counts n;
	size_t len;
	char *s = export_to_string(TL_EXPORT_CHROME, &len, &n);

	CHECK(strstr(s, "<") == NULL); /* every < of a name is \u003c */
	CHECK(strstr(s, "\\u003cimg src=x onerror=alert(1)\\u003e") != NULL);
	CHECK(strstr(s, "\"name\":\"=HYPERLINK(\\\"x\\\"),1\"") != NULL);
	CHECK(strstr(s, "{\"ph\":\"b\",\"cat\":\"frame\",\"name\":\"frame "
	                "2\",\"pid\":100,\"tid\":101,\"ts\":10.000,\"id\":2}") != NULL);
	/* A executing 1021-1050 us, on CPU 0; times count from the trace start (1000 us) */
	CHECK(strstr(s, "{\"ph\":\"X\",\"cat\":\"state\",\"name\":\"EXECUTING\",\"pid\":100,\"tid\":101,\"ts\":21.000,"
	                "\"dur\":29.000,\"args\":{\"cpu\":0}}") != NULL);
	free(s);
}

static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	static char buf[8192];
	size_t n;

	CHECK(f != NULL);
	if (!f)
		return "";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

TEST(csv_tables)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	char prefix[] = "/tmp/tl-test-export-csv-XXXXXX", file[64];
	struct tl_export_opts o = { .format = TL_EXPORT_CSV, .prefix = prefix };
	struct tl_export_counts n;
	int fd = mkstemp(prefix);

	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_INT(tl_export(&run, &o, &n), 0);
	tl_run_release(&run);
	snprintf(file, sizeof(file), "%s-intervals.csv", prefix);
	/* the formula is quoted and defused with a leading ', its quotes doubled */
	CHECK(strstr(slurp(file), "101,100,\"'=HYPERLINK(\"\"x\"\"),1\",SLEEPING,10000,20000,10000,-1,102,0\n") !=
	      NULL);
	unlink(file);
	snprintf(file, sizeof(file), "%s-spans.csv", prefix);
	CHECK(strstr(slurp(file), "task,T<script>,101,100,\"'=HYPERLINK(\"\"x\"\"),1\",1,1000,3000,2000,1,1\n") !=
	      NULL);
	unlink(file);
	snprintf(file, sizeof(file), "%s-threads.csv", prefix);
	CHECK(strstr(slurp(file),
	             "102,100,<img src=x onerror=alert(1)>,0,100000,0,0,0,0,0,50000,0,0,50000,0,0,0,0\n") != NULL);
	unlink(file);
	unlink(prefix);
}

TEST(csv_unwritable)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_export_opts o = { .format = TL_EXPORT_CSV, .prefix = "/nonexistent-dir/x" };
	struct tl_export_counts n;

	CHECK_EQ_INT(tl_export(&run, &o, &n), -1);
	CHECK(strstr(tl_error_msg(), "cannot create /nonexistent-dir/x-intervals.csv") != NULL);
	tl_run_release(&run);
}

int main(void)
{
	write_trace();
	RUN_TESTS(pb_bytes, perfetto, chrome_names_are_data, csv_tables, csv_unwritable);
	if (!getenv("TL_KEEP"))
		unlink(path);
}
