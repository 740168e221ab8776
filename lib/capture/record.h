/*
 * record.h - the recorder: kernel scheduler events into a trace file.
 *
 * tl_record() opens one perf_event_open() tracepoint event per (event, CPU),
 * redirects all events of a CPU into a single mmap ring buffer on that CPU,
 * and drains the rings into a tl_trace_writer until the command exits, the
 * duration is over, or *stop becomes non-zero.  Timestamps are taken by the
 * kernel on CLOCK_MONOTONIC (perf's use_clockid), the clock that user-space
 * markers use too.  Field layouts come from the kernel's format files via
 * libtraceevent; nothing about a tracepoint's layout is hard-coded.
 *
 * The recorder never prints: progress goes through the callback, errors
 * through tl_error.  It does not install signal handlers; the caller points
 * `stop` at a flag that its SIGINT/SIGTERM handler sets.
 */
#ifndef TL_RECORD_H
#define TL_RECORD_H

#include <signal.h>
#include <stdint.h>

#include "capture/tp_decode.h" /* enum tl_record_groups */

struct tl_record_progress {
	double elapsed_s;
	uint64_t events;
	uint64_t lost;
	uint64_t bytes_written;
};

/* How the events leave the kernel (docs/RECORD.md, "Back ends"). */
enum tl_record_backend {
	TL_BACKEND_AUTO = 0, /* eBPF where it loads (and no --func), else perf, saying why */
	TL_BACKEND_BPF,      /* eBPF raw tracepoints and a ring buffer (capture/bpf_rec.h); fail if it cannot load */
	TL_BACKEND_PERF,     /* perf_event_open tracepoints, one ring per CPU (capture/perf_ring.h) */
};

struct tl_record_opts {
	const char *output; /* trace file path */
	int backend;        /* enum tl_record_backend */
	char *const *argv;  /* command to run (NULL-terminated), or NULL */
	const int *pids;    /* -p: processes to attach to */
	int npids;
	int system_wide;          /* -a */
	double duration_s;        /* stop after this long; 0 = no limit (needs argv or a stop flag) */
	unsigned ring_pages;      /* data pages per CPU ring (power of 2); 0 = default */
	unsigned groups;          /* enum tl_record_groups; 0 = TL_REC_ALL; TL_REC_EXPLICIT alone = none */
	const char *const *funcs; /* --func: functions to probe with uprobes, each "SYMBOL" (in the
				   * command's or the -p process's executable) or "FILE:SYMBOL", or
				   * a comma-separated list of those (lib/capture/uprobes.h) */
	int nfuncs;
	int sample;                  /* --sample: also profile (SAMPLE events; eBPF back end) */
	int no_omp;                  /* --no-omp: no regions from OpenMP outlined functions (capture/umarks.h) */
	int no_buildid_cache;        /* --no-buildid-cache: keep no copy of the sampled files (capture/buildids.h) */
	const char *sample_event;    /* -e: a perf event name (capture/sample_events.h); NULL = cpu-clock */
	unsigned sample_hz;          /* -F; 0 = TL_SAMPLE_DEFAULT_HZ */
	int sample_frames;           /* frames of each stack part, kernel and user; 0 = 64, 1 = no stack */
	int sample_dwarf;            /* --stack dwarf: user stacks unwound from a copy with DWARF CFI */
	volatile sig_atomic_t *stop; /* recording stops when *stop != 0; may be NULL.  If the
				      * value is SIGINT or SIGTERM it is the signal forwarded
				      * to a command still running (else SIGTERM) */
	void (*progress)(const struct tl_record_progress *p, void *ctx); /* may be NULL */
	void *progress_ctx;
};

struct tl_record_result {
	uint64_t events;
	uint64_t lost;
	uint64_t bytes;
	double elapsed_s;
	double recorder_cpu_s;  /* CPU time the recorder itself used (user + sys) */
	int child_status;       /* wait status of the command, if one was run */
	int child_ran;          /* 1 if a command was started */
	uint64_t marks;         /* user markers recorded (include/threadlens.h; -p: through uprobes) */
	uint64_t marks_lost;    /* markers the program dropped: its buffers were full */
	uint64_t kstat_threads; /* threads whose kernel counters were recorded (capture/kwatch.h) */
	uint64_t kstat_reads;   /* readings of them stored (start, exit, end) */
	char backend[16];       /* the back end used: "bpf" or "perf" */
	uint64_t left_out;      /* events about other processes the eBPF filter left in the kernel */
	uint64_t samples;       /* --sample: SAMPLE events recorded */
	uint64_t jit_functions; /* --sample: JIT functions they hit, named from perf maps (JSYM, capture/jitnames.h) */
	uint64_t kept_files;    /* --sample: sampled files added to the build-ID cache (capture/buildids.h) */
	int omp_functions;      /* OpenMP outlined functions probed as regions (capture/umarks.h) */
	uint64_t omp_regions;   /* their instances recorded: entries seen */
	int nwarnings;          /* things the user should know; the recording is still valid */
	char warnings[8][320];  /* e.g. "tracepoint 'block:block_rq_complete' is missing: ..." */
};

/*
 * Record until done.  Returns 0 on success (the trace file is complete and
 * valid), -1 with tl_error set on failure.  A missing privilege gives a
 * message that says what is needed.  If recording has started, the file is
 * closed properly even on errors.
 */
int tl_record(const struct tl_record_opts *opts, struct tl_record_result *res);

/* One tracepoint as tl_record_list_events() reports it. */
struct tl_record_tp_status {
	const char *system, *name;
	int id;         /* the kernel's tracepoint id, -1 if this kernel lacks it */
	int required;   /* recording fails without it */
	int used;       /* tl_record() with these groups would record it */
	unsigned group; /* enum tl_record_groups bit, 0 = always on */
};

/*
 * Look up every tracepoint the recorder knows in tracefs and call fn for
 * each, in a fixed order.  `groups` as in tl_record_opts.  If state_desc is
 * not NULL it receives the prev_state mapping derived from this kernel's
 * sched_switch format ("S=0x1 D=0x2 ... preempt=0x100 (...)").  Returns 0,
 * or -1 with tl_error set if tracefs cannot be read.
 */
int tl_record_list_events(unsigned groups, void (*fn)(const struct tl_record_tp_status *st, void *ctx), void *ctx,
                          char *state_desc, unsigned state_desc_len);

#endif
