/*
 * profile.h - where the sampled CPU time went (record --sample): the top
 * functions, self and total, per thread, per CPU and per second, and the
 * folded stacks for flame graphs.  One walk; samples are resolved at its
 * end, when every mapping of every process is known.
 *
 * A sample's frames are its stack (innermost first), or its address alone
 * when the stack was not recorded.  A user address finds the mapping of
 * its process that holds it (MAP events read since the process's last
 * EXEC: trace/event.h; with none, its parent's at the FORK), then the
 * function in that file (symbols/symfile.h)
 * or, when no symbol covers it, "file+0xoffset"; an address in no mapping
 * is "[unknown]" and counted in `unresolved`.  A kernel address takes the
 * name of the KSYM that holds it (the recorder named the kernel functions
 * its samples hit), else "[kernel]"; their module is "[kernel]".
 *
 * Events: a recording may sample several (record -e a,b).  One is
 * counted (opts.event, else the first the recording named); the others
 * give, per function, their periods where it is the innermost frame, so
 * that ratios (IPC...) can be had per function (tl_profile_ratios).
 *
 * Counts: a function's self count is the samples whose innermost frame it
 * is; its total count the samples that have it anywhere in their stack
 * (once per sample, however deep the recursion).  Per second (the seed's
 * Step 5 says "average" where its code sums; we sum): the samples in each
 * second of the window, from its start.
 *
 * Cells (opts.cells, for the page's heatmap, timeline and flame graph of
 * any selection): the counts by time bin, CPU, thread and stack, from which
 * every other count here can be summed again.  Bins are finer than seconds
 * so that a run of a few seconds still shows its shape (docs/PROFILE.md).
 */
#ifndef TL_PROFILE_H
#define TL_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "timeline/run.h"

#define TL_PROFILE_NAME_MAX 160
#define TL_PROFILE_BINS 300
#define TL_PROFILE_MAX_EVENTS 8

struct tl_profile_opts {
	int cpu;                 /* only samples taken on this CPU; -1: all */
	const char *event;       /* the event counted (its perf name); NULL: the first the recording named */
	unsigned top;            /* functions the text lists; 0: 20 */
	int cells;               /* also fill stacks[] and cells[] (the HTML dashboard) */
	int each;                /* with cells: also each[], every sample counted (export's Perfetto samples) */
	const char *perfmap_dir; /* where JITs' perf-PID.map files are (symbols/perfmap.h); NULL: /tmp */
};

struct tl_profile_func {
	char name[TL_PROFILE_NAME_MAX]; /* "decode_frame", "libc.so.6+0x9a2b0", "[kernel]" */
	char module[64];                /* the file's base name, "[kernel]", or "" */
	uint64_t self, total;           /* samples */
	uint32_t rank;                  /* internal: its id before the sort */
};

struct tl_profile_thread {
	int32_t tid, pid;
	char name[TL_NAME_MAX];
	uint64_t samples;
	size_t top; /* index in funcs of its most sampled innermost function; SIZE_MAX if none */
};

struct tl_profile_folded {
	char *stack; /* "thread;outer;...;inner" */
	uint64_t count;
};

/* A distinct stack: indices in funcs, outermost first (the innermost is frames[n - 1]). */
struct tl_profile_stack {
	uint32_t *frames;
	uint32_t n;
};

/* The samples of one stack, thread and CPU in one time bin. */
struct tl_profile_cell {
	uint32_t stack; /* index in stacks */
	uint32_t bin;   /* [win_start + bin * bin_ns, + bin_ns) */
	int32_t tid;
	int32_t cpu;
	uint64_t count;
};

/* A sample counted (opts.each): when, where, whose, and its stack. */
struct tl_profile_each {
	uint64_t ts;
	int32_t tid, pid;
	int32_t cpu;
	uint32_t stack; /* index in stacks */
};

/* One sampled event: its samples and their periods summed (its count: ns for cpu-clock). */
struct tl_profile_event {
	char name[64];
	uint64_t samples, period;
};

/* A ratio of two events' counts, where both were sampled: "IPC" = instructions / cycles. */
struct tl_profile_ratio {
	const char *name; /* "IPC", "cache misses per 1000 instructions", ... */
	const char *num, *den;
	double scale;
};

/* The ratios threadlens knows, n of them. */
const struct tl_profile_ratio *tl_profile_ratios(size_t *n);

/* A file the samples' frames lie in (a path: not the vDSO), as profile found it (profile_files.c). */
struct tl_profile_module {
	char *path;
	char *build_id; /* hex, "" if the trace has none for it */
	char *code;     /* the file that holds the build that ran: path, or a copy in the build-ID cache; NULL none */
};

/* Sampled files profile could not read symbols from, and the samples with a frame in one. */
struct tl_profile_files {
	uint64_t samples;
	char **paths;
	size_t n, cap;
};

struct tl_profile_result {
	const struct tl_run *run;
	char event[64];      /* the event counted: every count below but events[] and fperiod is of its samples */
	uint64_t samples;    /* in the window, on kept threads */
	uint64_t period;     /* their periods summed (ns for cpu-clock) */
	uint64_t kernel;     /* samples whose innermost frame is in the kernel */
	uint64_t unresolved; /* samples whose innermost user frame is in no mapping */
	/* Files no name came from: their frames are named file+offset (profile_files.c) */
	struct tl_profile_files rebuilt;    /* another build at the path (format 1.14's build IDs tell) */
	struct tl_profile_files unreadable; /* gone, or not ELF (another machine's path, a container's) */
	struct tl_profile_module *modules;  /* every file a frame lies in (archive: the files to take) */
	size_t nmodules, capmodules;
	uint64_t no_stack;   /* samples without a stack (record --no-stack) */
	uint64_t stacks_cut; /* samples whose stack was cut at a caller that is no return address (profile.c) */
	int no_maps;         /* the trace has no MAP event (recorded before they existed): user code is unnamed */
	struct tl_profile_func *funcs;
	size_t nfuncs; /* sorted by self, then total, descending */
	struct tl_profile_thread *threads;
	size_t nthreads;   /* sorted by samples, descending */
	uint64_t *per_cpu; /* run->ncpus entries */
	uint64_t *per_second;
	size_t nseconds;
	struct tl_profile_folded *folded;
	size_t nfolded; /* sorted by stack */
	/* With opts.cells: the samples by (bin, CPU, thread, stack), in that order */
	uint64_t bin_ns; /* 10 ms, 20, 50, 100... the first that makes at most TL_PROFILE_BINS bins */
	size_t nbins;
	struct tl_profile_stack *stacks;
	size_t nstacks;
	struct tl_profile_cell *cells;
	size_t ncells;
	struct tl_profile_each *each; /* with opts.each: in time order */
	size_t neach;
	uint64_t *ebins; /* nevents x nbins x ncpus: each event's periods by bin and CPU */
	struct tl_profile_event events[TL_PROFILE_MAX_EVENTS]; /* every event sampled, the counted one first */
	size_t nevents;
	uint64_t *fperiod; /* nfuncs x nevents: per function, each event's periods of the samples it is innermost in */
	unsigned top;
};

/*
 * A function as one string-table key, "name\001module": profiles, their
 * runs and diff match functions by it.  tl_profile_key(): its id (0 when
 * the table is full or memory ran out); tl_profile_key_split(): an id's
 * name and module back, each cut to its buffer.
 */
struct tl_strtab;
uint32_t tl_profile_key(struct tl_strtab *t, const char *name, const char *module);
void tl_profile_key_split(const struct tl_strtab *t, uint32_t id, char *name, size_t nlen, char *module, size_t mlen);

/* Walk run's trace and fill *r.  0, or -1 with tl_error set (r is empty and may be released). */
int tl_profile_analyze(struct tl_run *run, const struct tl_profile_opts *o, struct tl_profile_result *r);

/* Text for a terminal, the JSON document (docs/JSON.md "profile"), the folded stacks (flamegraph.pl, speedscope). */
int tl_profile_write_text(FILE *f, const struct tl_profile_result *r);
int tl_profile_write_json(FILE *f, const struct tl_profile_result *r);
int tl_profile_write_folded(FILE *f, const struct tl_profile_result *r);

void tl_profile_release(struct tl_profile_result *r);

#endif
