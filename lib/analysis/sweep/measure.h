/*
 * measure.h - what `threadlens sweep` keeps of one run's trace: per module
 * span its net CPU time (util's statistics, docs/UTIL.md) and its length's
 * histogram summary (hist's percentiles), the frames' latency and rate,
 * and each thread's time per state (report's), as plain numbers for the
 * results database (db.h).
 *
 * Each figure is the one the matching command prints for the same trace:
 * `threadlens util --module SPAN=HZ --json`, `hist SPAN --json`, `frames
 * --json` and `report --json` (the program's threads).  The trace is read
 * four times, once per analysis, as those commands do.
 */
#ifndef TL_SWEEP_MEASURE_H
#define TL_SWEEP_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/sweep/spec.h"
#include "timeline/state_machine.h"
#include "timeline/states.h"

struct tl_sweep_module {
	char span[TL_SPEC_NAME_MAX];
	double rate_hz;
	/* util: the net CPU time P of each instance */
	uint64_t count;
	double cpu_mean_ns, cpu_sd_ns;
	int has_ci;
	double ci_low_ns, ci_high_ns;         /* 95% confidence interval of the mean */
	uint64_t range_low_ns, range_high_ns; /* the central 95% of single values (2.5-97.5%) */
	uint64_t cpu_p50_ns, cpu_p99_ns;
	double elapsed_mean_ns, irq_mean_ns;
	double utilization; /* rate x mean P, as a fraction of one CPU */
	/* hist: the instances' lengths */
	uint64_t len_min_ns, len_max_ns;
	uint64_t len_pct_ns[4]; /* p50, p90, p99, p99.9 */
};

struct tl_sweep_thread {
	int32_t tid, pid;
	char name[TL_NAME_MAX];
	uint64_t state_ns[TL_ST__COUNT];
};

struct tl_sweep_measure {
	struct tl_sweep_module *modules; /* one per MODULE line, in order */
	size_t nmodules;
	uint64_t frames; /* completed frames */
	double fps;
	uint64_t latency_mean_ns; /* of complete frames; 0 when none */
	uint64_t latency_p50_ns, latency_p99_ns, latency_max_ns;
	struct tl_sweep_thread *threads; /* the program's threads */
	size_t nthreads;
	uint64_t lost;       /* events the kernel dropped */
	uint64_t marks_lost; /* markers the program dropped */
};

/* Measure the trace at path for the specification's modules.  0, or -1 with tl_error set. */
int tl_sweep_measure(const char *path, const struct tl_spec *s, struct tl_sweep_measure *m);
void tl_sweep_measure_release(struct tl_sweep_measure *m);

#endif
