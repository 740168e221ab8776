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
#include "analysis/report/report.h"
#include "export/export.h"
#include "export/html_timeline.h"
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

/* ---- the HTML timeline's encoding (html_timeline.h), decoded here independently ---- */

static size_t unbase64(const char *s, size_t n, uint8_t *out)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t v = 0;
	size_t o = 0;
	int bits = 0;

	for (size_t i = 0; i < n && s[i] != '='; i++) {
		const char *d = strchr(digits, s[i]);

		CHECK(d != NULL);
		if (!d)
			return o;
		v = v << 6 | (uint32_t)(d - digits);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(v >> bits);
		}
	}
	return o;
}

/* The base64 string after `"key":"` at or after p; its bytes into out. */
static size_t field_bytes(const char *p, const char *key, uint8_t *out)
{
	char pat[16];
	const char *q;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	q = strstr(p, pat);
	CHECK(q != NULL);
	if (!q)
		return 0;
	q += strlen(pat);
	return unbase64(q, strcspn(q, "\""), out);
}

struct piece {
	uint64_t s, e;
	int kind, cont, more;
	int64_t a, b;
};

/* A row's records from block b0 on, with their times from the window's start; pieces joined back into intervals. */
static int decode_row(const uint8_t *p, size_t n, const uint8_t *lens, size_t nlens, uint64_t b0, uint64_t block_ns,
                      int is_cpu, struct piece *iv, int max)
{
	const uint8_t *end = p + n, *lend = lens + nlens;
	int k = 0;

	for (uint64_t blk = b0; lens < lend; blk++) {
		const uint8_t *bend = p + get_varint(&lens, lend);
		uint64_t pos = blk * block_ns;

		CHECK(bend <= end);
		while (p < bend) {
			struct piece x = { 0 };
			uint64_t by;

			x.s = pos + get_varint(&p, bend);
			x.e = pos = x.s + get_varint(&p, bend);
			x.kind = *p & 0x3f;
			x.cont = !!(*p & 0x80);
			x.more = !!(*p++ & 0x40);
			x.a = (int64_t)get_varint(&p, bend);
			by = get_varint(&p, bend);
			x.b = is_cpu ? (int64_t)by - 1 : (by & 1 ? -(int64_t)(by >> 1) - 1 : (int64_t)(by >> 1));
			if (!is_cpu)
				x.a -= 1;                   /* cpu + 1 -> cpu; a CPU's record has the tid there */
			CHECK(x.e <= (blk + 1) * block_ns); /* a piece never crosses its block's end */
			if (x.cont) {
				CHECK(k > 0 && iv[k - 1].more && iv[k - 1].e == x.s && iv[k - 1].kind == x.kind);
				if (k > 0) {
					iv[k - 1].e = x.e;
					iv[k - 1].more = x.more;
				}
				continue;
			}
			if (k < max)
				iv[k++] = x;
		}
	}
	CHECK(p == end);
	return k;
}

/* The row's first block written ("b0"), -1 if the row has none. */
static long row_b0(const char *row)
{
	const char *q = strstr(row, "\"b0\":");

	CHECK(q != NULL);
	return q ? strtol(q + 5, NULL, 10) : -1;
}

/* Row `key` (e.g. "\"tid\":101,") of the JSON: its records, from the block its "iv" names. */
static int decode_named(const char *json, const char *page, const char *key, int is_cpu, struct piece *iv, int max)
{
	const char *row = strstr(json, key), *q;
	uint8_t *bytes = malloc(1 << 20), *lens = malloc(1 << 16);
	char want[64];
	size_t n, nl;
	int k = 0;

	CHECK(row != NULL && bytes && lens);
	if (row && bytes && lens) {
		nl = field_bytes(row, "lens", lens);
		q = strstr(row, "\"iv\":\"");
		CHECK(q != NULL);
		snprintf(want, sizeof(want), "id=\"%.*s\">", q ? (int)strcspn(q + 6, "\"") : 0, q ? q + 6 : "");
		q = strstr(page, want);
		CHECK(q != NULL);
		if (q) {
			q += strlen(want);
			n = unbase64(q, strcspn(q, "<"), bytes);
			k = decode_row(bytes, n, lens, nl, (uint64_t)row_b0(row), 98, is_cpu, iv, max);
		}
	}
	free(bytes);
	free(lens);
	return k;
}

/* The timeline's JSON and its interval blocks, each in a string the caller frees. */
static void write_timeline(const struct tl_timeline *t, char **json, char **blocks)
{
	size_t len;
	FILE *f = open_memstream(json, &len);

	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_INT(tl_timeline_write_json(f, t), 0);
		fclose(f);
	}
	f = open_memstream(blocks, &len);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_INT(tl_timeline_write_blocks(f, t), 0);
		fclose(f);
	}
}

TEST(timeline_encoding)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_model m = { 0 };
	struct tl_timeline *t;
	struct piece iv[16];
	uint8_t *bytes = malloc(1 << 20);
	char *json = NULL, *blocks = NULL;
	size_t n;
	const char *row;
	static const struct {
		uint64_t s, e;
		int state;
		int64_t cpu, by;
	} want[] = {
		{ 0, 10000, TL_ST_EXECUTING, 0, 0 },      { 10000, 20000, TL_ST_SLEEPING, -1, B },
		{ 20000, 21000, TL_ST_RUNNABLE, 0, B },   { 21000, 50000, TL_ST_EXECUTING, 0, 0 },
		{ 50000, 100000, TL_ST_SLEEPING, -1, 0 },
	};

	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	t = tl_timeline_build(&run, &m, &(struct tl_timeline_opts){ .ids = "tl-iv" });
	CHECK(t != NULL);
	if (!t || !bytes)
		return;
	write_timeline(t, &json, &blocks);
	/* 100 us in 1024 blocks: 98 ns each */
	CHECK(strstr(json, "\"blocks\":1024,\"block_ns\":98,") != NULL);
	n = (size_t)decode_named(json, blocks, "\"tid\":101,", 0, iv, 16);
	CHECK_EQ_INT(n, 5);
	for (size_t i = 0; i < n && i < 5; i++) {
		CHECK_EQ_INT(iv[i].s, want[i].s);
		CHECK_EQ_INT(iv[i].e, want[i].e);
		CHECK_EQ_INT(iv[i].kind, want[i].state);
		CHECK_EQ_INT(iv[i].a, want[i].cpu);
		CHECK_EQ_INT(iv[i].b, want[i].by);
		CHECK_EQ_INT(iv[i].more, 0);
	}
	/* the summary of block 0 (0-98 ns): all EXECUTING, 255 of 255 */
	row = strstr(json, "\"tid\":101,");
	n = row ? field_bytes(row, "lod", bytes) : 0;
	CHECK(n > 3 && bytes[0] == 1 && bytes[1] == TL_ST_EXECUTING && bytes[2] == 255);
	/* CPU 0: A 0-10 us, idle 10-21 us, A 21-50 us, idle to the end */
	n = (size_t)decode_named(json, blocks, "\"cpu\":0,", 1, iv, 16);
	CHECK_EQ_INT(n, 4);
	CHECK(n == 4 && iv[0].kind == TL_CPU_THREAD && iv[0].a == A && iv[0].e == 10000 && iv[1].kind == TL_CPU_IDLE &&
	      iv[1].e == 21000 && iv[2].a == A && iv[2].e == 50000 && iv[3].kind == TL_CPU_IDLE && iv[3].e == 100000);
	free(json);
	free(blocks);
	free(bytes);
	tl_timeline_free(t);
	tl_report_release(&m);
	tl_run_release(&run);
}

/* Past the byte budget the exact records stop, the summaries go on, and the JSON says from when. */
TEST(timeline_truncated)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_model m = { 0 };
	struct tl_timeline *t;
	char *json = NULL;
	uint8_t lod[8192];
	const char *row, *p;
	struct piece iv[16];
	size_t n;
	char *blocks = NULL;

	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	t = tl_timeline_build(&run, &m, &(struct tl_timeline_opts){ .ids = "x", .max_bytes = 200 });
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_INT(tl_timeline_truncated(t), 1);
	write_timeline(t, &json, &blocks);
	p = strstr(json, "\"detail_until_ns\":");
	CHECK(p != NULL);
	/* thread A's records stop early: its first interval (0-10 us) is cut short */
	n = (size_t)decode_named(json, blocks, "\"tid\":101,", 0, iv, 16);
	CHECK(n >= 1 && iv[0].s == 0 && iv[0].e < 10000);
	/* its summary goes on to the end: block 1000 (98.0-98.1 us) is all SLEEPING */
	row = strstr(json, "\"tid\":101,");
	n = row ? field_bytes(row, "lod", lod) : 0;
	p = (const char *)lod;
	for (int b = 0, k = 0; b < 1000 && (size_t)k < n; b++)
		k += 1 + 2 * lod[k], p = (const char *)lod + k;
	CHECK((const uint8_t *)p < lod + n && p[0] == 1 && p[1] == TL_ST_SLEEPING && (uint8_t)p[2] == 255);
	free(json);
	free(blocks);
	tl_timeline_free(t);
	tl_report_release(&m);
	tl_run_release(&run);
}

/*
 * A thread of 5 us in a 100 us trace (born at 60 us, runs 61-65 us; not its
 * process's leader, so its life ends at its last switch-out, docs/STATES.md):
 * its row starts at its first block ("b0": 60000 / 98 = 612) and stops
 * after its last (65000 / 98: 663), instead of writing all 1024.
 */
TEST(timeline_short_thread)
{
	static char path2[] = "/tmp/tl-test-export-short-XXXXXX";
	struct tl_run run = { .to_ns = -1, .path = path2 };
	struct tl_model m = { 0 };
	struct tl_timeline *t = NULL;
	struct piece iv[8];
	char *json = NULL, *blocks = NULL;
	uint8_t lens[2048];
	const char *row;
	size_t n;

	W = program_trace_open(path2, 100, 1000);
	CHECK(W != NULL);
	if (!W)
		return;
	ev(1000, -1, TL_EV_THREAD, 100, 100, 0, "app");
	ev(1000, 0, TL_EV_SWITCH, 0, 100, 0, NULL);
	ev(1060, 0, TL_EV_FORK, 103, 100, 0, "short");
	ev(1060, 0, TL_EV_THREAD, 103, 100, 0, "short");
	ev(1060, 0, TL_EV_WAKEUP_NEW, 103, 100, 1, NULL);
	ev(1061, 1, TL_EV_SWITCH, 0, 103, 0, NULL);
	ev(1065, 1, TL_EV_EXIT, 103, 0, 0, NULL);
	ev(1065, 1, TL_EV_SWITCH, 103, 0, TL_PS_Z, NULL);
	ev(1066, -1, TL_EV_FREE, 103, 0, 0, NULL);
	CHECK(program_trace_close(W, 1100) == 0);
	CHECK_EQ_INT(tl_report_analyze(&run, &m), 0);
	if (m.nthreads)
		t = tl_timeline_build(&run, &m, &(struct tl_timeline_opts){ .ids = "s" });
	CHECK(t != NULL);
	if (t) {
		write_timeline(t, &json, &blocks);
		row = strstr(json, "\"tid\":103,");
		CHECK(row != NULL);
		if (row) {
			CHECK_EQ_INT(row_b0(row), 612);
			/* one length per block from 612 to 663, each a byte */
			CHECK_EQ_INT(field_bytes(row, "lens", lens), 663 - 612 + 1);
		}
		n = (size_t)decode_named(json, blocks, "\"tid\":103,", 0, iv, 8);
		CHECK_EQ_INT(n, 2);
		CHECK(n == 2 && iv[0].s == 60000 && iv[0].kind == TL_ST_RUNNABLE && iv[0].e == 61000 &&
		      iv[1].kind == TL_ST_EXECUTING && iv[1].e == 65000);
		/* the app's row spans the trace: from block 0 */
		row = strstr(json, "\"tid\":100,");
		CHECK(row && row_b0(row) == 0);
	}
	free(json);
	free(blocks);
	tl_timeline_free(t);
	tl_report_release(&m);
	tl_run_release(&run);
	if (!getenv("TL_KEEP"))
		unlink(path2);
}

int main(void)
{
	write_trace();
	RUN_TESTS(pb_bytes, perfetto, chrome_names_are_data, csv_tables, csv_unwritable, timeline_encoding,
	          timeline_truncated, timeline_short_thread);
	if (!getenv("TL_KEEP"))
		unlink(path);
}
