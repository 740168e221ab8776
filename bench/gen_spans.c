/*
 * gen_spans.c - write a synthetic trace of N regions (REGION_BEGIN/END
 * pairs) through the real trace writer, for `threadlens hist` benchmarks.
 *
 *   gen_spans OUT.tl [N [SCALE_PCT]]     (N defaults to 10000000, SCALE_PCT to 100)
 *
 * The regions are named "work", run one after another on four threads of
 * one process (tids 1001-1004, named "gen-0".."gen-3"), and last a
 * deterministic pseudo-random time: mostly 20-80 us, one in 100 up to 2 ms
 * more, one in 100000 up to 50 ms more, so the distribution has a body, a
 * tail and far outliers like a real pipeline step; every duration is then
 * multiplied by SCALE_PCT / 100 (another "run" of the same program, faster
 * or slower).  After them come one region "other" of 1 us and one "work"
 * that never ends (it counts as incomplete).  The same arguments always
 * give the same file.  It prints the count, sum, min and max of the "work"
 * durations on stdout, and for N up to 1000000 their nearest-rank p50, p90,
 * p99 and p99.9, so a test can check the tool's numbers exactly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

static uint64_t next_rand(uint64_t *x)
{
	/* xorshift64: fast and reproducible everywhere */
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The nearest rank of the per_mille/10 percentile among n sorted values. */
static uint64_t pct(const uint64_t *v, uint64_t n, unsigned per_mille)
{
	uint64_t rank = (n * per_mille + 999) / 1000;
	return v[rank ? rank - 1 : 0];
}

static int add(struct tl_trace_writer *w, uint64_t ts, unsigned type, int32_t tid, int32_t arg, uint32_t name,
               int64_t a)
{
	struct tl_event e = {
		.ts = ts, .type = (uint16_t)type, .cpu = -1, .tid = tid, .arg = arg, .name = name, .a = a
	};
	return tl_trace_writer_add(w, &e);
}

int main(int argc, char **argv)
{
	struct tl_trace_info info = { .clock = "monotonic", .source = "gen_spans", .ncpus = 1, .start_ns = 1000000 };
	struct tl_trace_end end = { .ncpus = 1 };
	struct tl_trace_writer *w;
	uint64_t n = 10000000, scale = 100, ts = info.start_ns, x = 0x9e3779b97f4a7c15ull;
	uint64_t sum = 0, min = UINT64_MAX, max = 0;
	uint64_t *vals = NULL;
	uint32_t work, other, comm[4];
	char name[16];

	if (argc < 2 || argc > 4 || (argc >= 3 && !(n = strtoull(argv[2], NULL, 10))) ||
	    (argc == 4 && !(scale = strtoull(argv[3], NULL, 10)))) {
		fprintf(stderr, "usage: gen_spans OUT.tl [N [SCALE_PCT]]\n");
		return 2;
	}
	snprintf(info.command, sizeof(info.command), "gen_spans %" PRIu64 " %" PRIu64, n, scale);
	if (n <= 1000000 && !(vals = malloc(n * sizeof(*vals)))) {
		fprintf(stderr, "gen_spans: out of memory\n");
		return 1;
	}
	w = tl_trace_writer_create(argv[1], &info);
	if (!w || tl_trace_writer_set_level(w, 1)) {
		fprintf(stderr, "gen_spans: cannot write '%s'\n", argv[1]);
		return 1;
	}
	work = tl_trace_writer_intern(w, "work");
	other = tl_trace_writer_intern(w, "other");
	for (int t = 0; t < 4; t++) {
		snprintf(name, sizeof(name), "gen-%d", t);
		comm[t] = tl_trace_writer_intern(w, name);
		if (add(w, ts, TL_EV_THREAD, 1001 + t, 1001, comm[t], 0))
			goto fail;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t r = next_rand(&x), d = 20000 + r % 60000;
		int32_t tid = 1001 + (int32_t)(i & 3);
		if (r % 100 == 7)
			d += next_rand(&x) % 2000000;
		if (r % 100000 == 77)
			d += next_rand(&x) % 50000000;
		d = d * scale / 100;
		ts += 100 + (r >> 40) % 1000;
		if (add(w, ts, TL_EV_REGION_BEGIN, tid, 0, work, -1) ||
		    add(w, ts + d, TL_EV_REGION_END, tid, 0, work, 0))
			goto fail;
		ts += d;
		sum += d;
		if (vals)
			vals[i] = d;
		min = d < min ? d : min;
		max = d > max ? d : max;
		if (!(i & 0xffff) && tl_trace_writer_flush(w, ts))
			goto fail;
	}
	if (add(w, ts + 100, TL_EV_REGION_BEGIN, 1001, 0, other, -1) ||
	    add(w, ts + 1100, TL_EV_REGION_END, 1001, 0, other, 0) ||
	    add(w, ts + 1200, TL_EV_REGION_BEGIN, 1002, 0, work, -1))
		goto fail;
	ts += 1300;
	end.end_ns = ts + 1000;
	if (tl_trace_writer_close(w, &end)) {
		fprintf(stderr, "gen_spans: cannot write '%s'\n", argv[1]);
		return 1;
	}
	printf("spans=%" PRIu64 " sum_ns=%" PRIu64 " min_ns=%" PRIu64 " max_ns=%" PRIu64, n, sum, min, max);
	if (vals) {
		qsort(vals, n, sizeof(*vals), cmp_u64);
		printf(" p50_ns=%" PRIu64 " p90_ns=%" PRIu64 " p99_ns=%" PRIu64 " p99_9_ns=%" PRIu64, pct(vals, n, 500),
		       pct(vals, n, 900), pct(vals, n, 990), pct(vals, n, 999));
		free(vals);
	}
	printf("\n");
	return 0;
fail:
	free(vals);
	tl_trace_writer_abort(w);
	fprintf(stderr, "gen_spans: cannot write '%s'\n", argv[1]);
	return 1;
}
