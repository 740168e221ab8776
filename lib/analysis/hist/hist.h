/*
 * hist.h - `threadlens hist` as library calls: the durations of one kind
 * of span in a trace, binned (one mode, or all three to compare them), with
 * exact statistics, and the writers that print the result.
 *
 * tl_hist_analyze() reads the trace several times through the walk (walk.h):
 * pass 1 finds count, min, max, sum and the first value, and counts the
 * values into log-linear buckets that locate each percentile within 1/256
 * of its value; pass 2 fills the histograms, whose bins need min and max,
 * and collects the values of the buckets that hold the percentiles, which
 * usually settles them exactly; only when one such bucket holds more than
 * TL_SELECT_COLLECT values do further passes narrow it down (tl_select).
 * So memory does not grow with the number of spans (under 20 MB at most), and
 * every number printed is exact; the price is reading the file two (rarely
 * up to six) times, which is why the trace must be a file, not a pipe.
 *
 * Which spans count: those named query->span (a region, task or probed
 * function name; "frame" for frames, "@burst" for on-CPU bursts,
 * "@latency" for scheduling latencies) that are complete and lie wholly
 * inside the window, of the threads that the filters keep.  Spans still
 * open at the end of the window, or begun before it, are counted as left
 * out (`incomplete`), never binned.
 */
#ifndef TL_HIST_H
#define TL_HIST_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/hist/hist_binning.h"
#include "timeline/run.h"
#include "trace/trace.h"

#define TL_HIST_NPCT 4       /* p50, p90, p99, p99.9 */
#define TL_HIST_SMALL 1000   /* up to this many values the ETP is also given at every observed value */
#define TL_HIST_MAX_NAMES 16 /* other span names remembered, to say what the trace has */

/* The percentiles, in thousandths: 500, 900, 990, 999. */
extern const unsigned tl_hist_pct_per_mille[TL_HIST_NPCT];

/*
 * What to histogram and how to bin it.  The window, the thread filters
 * (--pid, --tid, --comm; --all lets @burst and @latency reach threads
 * outside the recorded program) and the preemption window are the run's.
 */
struct tl_hist_query {
	const char *span; /* what to histogram (see above) */
	uint32_t k;       /* bins; 0: the saved k, else TL_HIST_K_DEFAULT */
	int compare;      /* bin with all three modes */
	unsigned mode;    /* enum tl_hist_mode, when !compare */
	uint64_t step;    /* linear step (also the centered fallback); 0: tl_hist_linear_step(k, max) */
	int has_ref;
	uint64_t ref; /* centered reference; default: the first value (as the seed) */
	int has_below;
	uint32_t below;                    /* centered k_l; default k * 100 / 128 (the seed's 100 of 128) */
	uint64_t factor;                   /* centered f; 0 means 1 */
	const struct tl_bins_entry *saved; /* iterative: the range of earlier runs; NULL: this run's min/max */
};

struct tl_hist_result {
	/*
	 * The run it was analysed in, with the first pass's summary: trace,
	 * window, reader statistics, lost events (they blur @burst and
	 * @latency), markers the program dropped (spans.marks_lost: spans may
	 * be missing).  The caller's; it must outlive the result.
	 */
	const struct tl_run *run;
	unsigned kinds;             /* bit (1 << enum tl_span_kind) for every kind of span that counted */
	uint64_t max_at;            /* when the longest span began (absolute ns; the first of equals) */
	int32_t max_tid;            /* and its thread */
	uint64_t incomplete;        /* matching spans left out: open at the window's end or begun before it */
	uint64_t filtered;          /* complete matching spans of threads the filters left out */
	struct tl_hist_stats stats; /* the spans that count */
	uint64_t pct[TL_HIST_NPCT]; /* exact, nearest rank */
	unsigned passes;            /* times the trace was read */
	int step_given, ref_given, below_given; /* the linear step, centered r and k_l came from the query */
	uint64_t *values;                       /* sorted, when stats.count <= TL_HIST_SMALL, else NULL */
	unsigned nhists;                        /* 1, or TL_HIST__MODES to compare */
	struct tl_hist hists[TL_HIST__MODES];   /* compare: in enum tl_hist_mode order */
	/* iterative: where the range came from and what to save for the next run */
	int iter_saved; /* 1: the range came from query->saved */
	uint32_t next_k;
	uint64_t next_min, next_max; /* the saved range widened by this run's min and max */
	/* compare: the exact ETP on the union of all modes' bin boundaries inside [min - 1, max] */
	uint64_t *grid, *grid_above; /* ngrid thresholds (ascending) and the values above each */
	size_t ngrid;
	/* when nothing counted: the names of the other spans in the trace */
	char *names[TL_HIST_MAX_NAMES];
	unsigned nnames, names_more;
	unsigned other_kinds; /* bits of the kinds seen with other names (frames, bursts...) */
};

/*
 * Read the trace of `run` (a file: it is read several times, the first
 * time with tl_run_start(), then reopened; run->passes counts the passes
 * for progress) and fill r, keeping the first pass's summary in the run.
 * Returns 0 (also when no span counted: then r->stats.count is 0 and
 * r->names lists others), or -1 with tl_error set (unreadable trace, a
 * binning the options make impossible, out of memory).  Release r with
 * tl_hist_result_release() either way.
 */
int tl_hist_analyze(struct tl_run *run, const struct tl_hist_query *q, struct tl_hist_result *r);

void tl_hist_result_release(struct tl_hist_result *r);

/* ---- writers (hist_write.c) ---- */

struct tl_hist_write_opts {
	const char *span;     /* the span name, as given */
	const char *bins_in;  /* --bins FILE or NULL */
	const char *bins_out; /* --save-bins FILE or NULL */
	int etp;              /* text: the full ETP table */
	int width;            /* text: columns to fit, 80 or more; 0: 100 */
};

enum tl_hist_csv {
	TL_HIST_CSV_ETP = 0, /* t_ns, values above, ETP; compare: the side-by-side grid */
	TL_HIST_CSV_BINS,    /* one row per bin (and mode) */
};

/* Parse "etp" or "bins"; -1 if neither. */
int tl_hist_csv_parse(const char *s);

/* Each returns 0, or -1 with tl_error set (a write error on out). */
int tl_hist_write_text(FILE *out, const struct tl_hist_result *r, const struct tl_hist_write_opts *o);
int tl_hist_write_json(FILE *out, const struct tl_hist_result *r, const struct tl_hist_write_opts *o);
int tl_hist_write_csv(FILE *out, const struct tl_hist_result *r, int table);

#endif
