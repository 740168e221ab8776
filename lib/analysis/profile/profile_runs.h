/*
 * profile_runs.h - the profiles of repeated runs of one command (record
 * --runs N writes a trace per run; `threadlens profile` given several
 * reads them all): how much each function's share of the samples varies
 * from run to run.
 *
 * Functions are matched by name and module.  A function's share in a run
 * is its self samples over that run's samples (0 in a run without it); the
 * summary is the mean, the standard deviation (n - 1), the minimum and the
 * maximum of the shares.  Add each run's result as it is analysed: nothing
 * of the result is kept but its numbers.
 */
#ifndef TL_PROFILE_RUNS_H
#define TL_PROFILE_RUNS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/profile/profile.h"

#define TL_PROFILE_MAX_RUNS 100

struct tl_profile_run {
	const char *path; /* the caller's */
	uint64_t samples, period;
};

struct tl_profile_run_func {
	char name[TL_PROFILE_NAME_MAX];
	char module[64];
	double *share;             /* per run: self samples, % of the run's samples */
	double mean, sd, min, max; /* of share[], once finished */
};

struct tl_profile_runs {
	char event[64]; /* the first run's counted event */
	struct tl_profile_run runs[TL_PROFILE_MAX_RUNS];
	size_t nruns;
	double samples_mean, samples_sd;
	struct tl_profile_run_func *funcs; /* by mean share, descending, once finished */
	size_t nfuncs, cap;
	void *index; /* internal: name\001module -> index in funcs */
};

/* Add one run's profile (r->run still open).  0, or -1 with tl_error set (out of memory, too many runs). */
int tl_profile_runs_add(struct tl_profile_runs *R, const char *path, const struct tl_profile_result *r);

/* After the last run: the summaries, and the functions sorted. */
void tl_profile_runs_finish(struct tl_profile_runs *R);

/* Text (the top `top` functions) and JSON (docs/JSON.md "profile, several runs").  0, or -1. */
int tl_profile_runs_write_text(FILE *f, const struct tl_profile_runs *R, unsigned top);
int tl_profile_runs_write_json(FILE *f, const struct tl_profile_runs *R);

void tl_profile_runs_release(struct tl_profile_runs *R);

#endif
