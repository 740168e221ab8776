/*
 * diff.h - `threadlens diff`: two recordings of the same program, before
 * and after a change, side by side: frames/s, frame latency, CPU use and
 * duration; each thread's time per state (threads matched by name); and
 * the diagnose findings that went away or appeared.
 *
 * Each side may be several recordings of the same run (repeated runs):
 * then each number is their mean, their spread gives the run-to-run noise,
 * and a change is flagged when it exceeds three standard errors of the
 * difference.  With one recording on a side there is no noise estimate: a
 * change is flagged past a fixed bar (10% for the run's numbers, 5 points
 * for a state's share), and the result says so.
 *
 * Sampled recordings (record --sample) also compare their profiles: the
 * samples, per CPU and per function.
 *
 * Each recording is read twice (the report's walk with the diagnosis, and
 * the frames analysis), three times with samples; nothing of it is kept
 * but its numbers.
 */
#ifndef TL_DIFF_H
#define TL_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/profile/profile.h"
#include "timeline/state_machine.h"

#define TL_DIFF_MAX_RUNS 32
#define TL_DIFF_MIN_SHARE 0.5 /* a function's self share (%) on a side to be compared */

enum tl_diff_metric {
	TL_DM_FPS = 0, /* frames/s (frames analysis) */
	TL_DM_LAT_P50, /* frame latency percentiles, ns */
	TL_DM_LAT_P90,
	TL_DM_LAT_P99,
	TL_DM_FRAMES,   /* complete frames */
	TL_DM_CPU_PCT,  /* the recorded program's CPU time, % of the CPUs it may use (report's %avail) */
	TL_DM_DURATION, /* the recorded program's life, ns */
	TL_DM__COUNT
};

/* "frames/s", "latency p50", ...  Never NULL. */
const char *tl_diff_metric_name(unsigned m);

/* One number on both sides. */
struct tl_diff_value {
	int have;          /* both sides have it (no frames: no frame numbers) */
	double a, b;       /* means of the side's recordings */
	double sd_a, sd_b; /* their standard deviations (0 with one recording) */
	double change;     /* b - a, relative to a (metrics) or in points (state shares) */
	int flagged;       /* beyond the noise (or the fixed bar) */
};

/* A thread's share of its life in one state (%), on both sides. */
struct tl_diff_state_row {
	char thread[TL_NAME_MAX];
	uint16_t state;
	struct tl_diff_value v; /* a, b in %; change in points */
	double moved_ns;        /* the thread time that change is: points of the mean life (the order) */
};

/* A finding on one side only (in more than half of that side's recordings, fewer than half of the other's). */
struct tl_diff_finding {
	char kind[32];
	char thread[TL_NAME_MAX]; /* its first thread, or "" */
	char lock[96];            /* the named lock it is about (diagnose.h), or "": matched by it, not the thread */
	int gone;                 /* 1: before only (fixed); 0: after only (new) */
};

/* A function's samples on both sides (recordings with --sample), matched by name and module. */
struct tl_diff_func {
	char name[TL_PROFILE_NAME_MAX];
	char module[64];
	struct tl_diff_value self;  /* samples whose innermost frame it is; change relative */
	struct tl_diff_value share; /* the same, % of the side's samples; change in points */
};

/*
 * The profiles, when every recording of both sides has samples.  Counts
 * are Poisson-like: with one recording a side a count's change is flagged
 * past 10% and three standard deviations of a difference of two counts,
 * sqrt(before + after).
 */
struct tl_diff_profile {
	int have;
	char event[64];               /* the events sampled (before's first recording) */
	struct tl_diff_value samples; /* change relative */
	struct tl_diff_value period;  /* the event's count (ns of CPU time for cpu-clock) */
	struct tl_diff_value *cpus;   /* samples per CPU: ncpus entries (the most CPUs of a recording) */
	int ncpus;
	struct tl_diff_func *funcs; /* self share TL_DIFF_MIN_SHARE on a side: flagged first, then largest change */
	size_t nfuncs;
	/*
	 * Before's and after's samples (all recordings of a side) with frames
	 * in files named by offset: rebuilt since the recording with no copy
	 * kept, or unreadable (profile.h).  Those frames match no function of
	 * the other side.  And one such file of each side ("" none).
	 */
	double unnamed[2];
	char unnamed_file[2][256];
};

struct tl_diff_result {
	const char *const *a, *const *b; /* the recordings' paths (the caller's) */
	size_t na, nb;                   /* recordings per side */
	int noise;                       /* both sides have two or more: flags come from the noise */
	struct tl_diff_value m[TL_DM__COUNT];
	struct tl_diff_state_row *rows; /* every (thread, state) with 1% on a side, of threads on both sides */
	size_t nrows;                   /* flagged first, then the most thread time moved first */
	char (*only)[TL_NAME_MAX];      /* threads on one side only: the first `only_before` are before's */
	size_t nonly, only_before;
	struct tl_diff_finding *findings; /* gone first, then new */
	size_t nfindings;
	struct tl_diff_profile prof;
	/*
	 * The recorded programs' names when they differ between the sides and
	 * each side has one ("app-old" -> "app-new"; "" otherwise): threads
	 * named after the program (its main thread, workers that never set a
	 * name) are matched as one, under before's name.
	 */
	char program_before[TL_NAME_MAX], program_after[TL_NAME_MAX];
};

/* Read each recording; 0, or -1 with tl_error set (the first that cannot be read). */
int tl_diff_analyze(const char *const *a, size_t na, const char *const *b, size_t nb, struct tl_diff_result *out);
void tl_diff_release(struct tl_diff_result *r);

/*
 * Writers: they print, never compute.  0, or -1 with tl_error set.  The
 * text fits `width` columns from 80 (0: 100): its lists and prose wrap.
 */
int tl_diff_write_text(FILE *out, const struct tl_diff_result *r, size_t max_rows, int width);
int tl_diff_write_json(FILE *out, const struct tl_diff_result *r);

#endif
