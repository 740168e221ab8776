/*
 * trace.h - the threadlens trace file (.tl): writer and streaming reader.
 *
 * The format is documented in docs/FORMAT.md.  In short: a fixed header,
 * then a sequence of checksummed blocks (metadata, string-table additions,
 * zstd-compressed event chunks, an end block).  An event chunk holds one
 * section per CPU; within a CPU the events are in time order, and each chunk
 * carries a watermark: every event in later chunks has ts >= watermark.
 *
 * The reader merges the per-CPU streams into one stream in timestamp order.
 * It decodes one chunk at a time and holds back only the events at or above
 * the current watermark, so its memory depends on the chunk size, not on the
 * file size.  It reads sequentially, so pipes work too.
 *
 * A file that is truncated or has a corrupt chunk is read up to the last good
 * chunk; the reader then reports end of trace and leaves a warning that says
 * where the damage starts and how many bytes were skipped.
 */
#ifndef TL_TRACE_H
#define TL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"

#define TL_TRACE_MAX_TARGETS 64
#define TL_TRACE_MAX_WARNINGS 8

enum tl_target_mode {
	TL_TARGET_COMMAND = 0, /* record -- CMD: targets[0] is the command's pid */
	TL_TARGET_PIDS = 1,    /* record -p: targets are the given processes */
	TL_TARGET_SYSTEM = 2,  /* record -a: everything */
};

/* What a trace is about.  Stored as key/value pairs in the META block. */
struct tl_trace_info {
	char clock[16];   /* "monotonic" */
	char kernel[128]; /* uname -r of the recording host */
	char hostname[64];
	char cpu_model[128];
	char source[64];      /* "record", "import perf-script", ... */
	char backend[16];     /* record: "bpf" or "perf" (format 1.1 on); "" if not said */
	char filter[16];      /* "processes": other processes' events were left in the kernel (1.2); "" none */
	char irq_vectors[16]; /* "recorded": the local timer and IPIs are IRQ_ENTRY/EXIT events (1.4); "" not */
	char tool_version[32];
	char command[1024]; /* the recorded command line, or "-p 12,13: their command lines", "-a" */
	int ncpus;          /* CPUs online when recording (max cpu id + 1) */
	int target_mode;    /* enum tl_target_mode */
	int ntargets;
	int targets[TL_TRACE_MAX_TARGETS]; /* target process ids */
	uint64_t start_ns;                 /* CLOCK_MONOTONIC when tracing was switched on */
	uint64_t realtime_offset_ns;       /* CLOCK_REALTIME - CLOCK_MONOTONIC at start, for wall-clock display */
};

/* What the END block holds.  Written by the recorder on a clean stop. */
struct tl_trace_end {
	uint64_t end_ns; /* CLOCK_MONOTONIC when tracing was switched off */
	uint64_t events; /* events written */
	uint64_t lost;   /* events the kernel dropped (sum over CPUs) */
	int ncpus;
	const uint64_t *lost_per_cpu; /* ncpus entries, may be NULL */
};

/* Reading statistics and diagnostics; see tl_trace_stats(). */
struct tl_trace_stats {
	uint64_t events;         /* events returned so far */
	uint64_t chunks;         /* event chunks decoded */
	uint64_t file_bytes;     /* size of the file, 0 if unknown (pipe) */
	uint64_t bytes_read;     /* bytes of good blocks consumed */
	uint64_t bytes_skipped;  /* bytes of damaged blocks skipped, and after the last good block, not read */
	uint64_t blocks_skipped; /* damaged blocks skipped (a resync may count several as one) */
	uint64_t late_events;    /* events found below the watermark, returned late */
	int complete;            /* 1 once the END block was read */
	struct tl_trace_end end; /* valid if complete; lost_per_cpu points into the reader */
	int nwarnings;
	char warnings[TL_TRACE_MAX_WARNINGS][256];
};

/* ---- writing ---- */

struct tl_trace_writer;

/*
 * Create `path` (truncating it) and write the header and META block.
 * path "-" writes to stdout.  Returns NULL and sets tl_error on failure.
 * The caller finishes with tl_trace_writer_close(), or _abort() on error.
 */
struct tl_trace_writer *tl_trace_writer_create(const char *path, const struct tl_trace_info *info);

/*
 * Intern a string; returns its id (>= 1).  NULL or "" give 0.  The string is
 * written to the file before the first chunk that can reference it.
 * Returns 0 with tl_error set on allocation failure.
 */
uint32_t tl_trace_writer_intern(struct tl_trace_writer *w, const char *s);

/*
 * Intern a call stack (format 1.5): frames ips[0..n), innermost first, at
 * most TL_STACK_MAX_FRAMES (base/stacktab.h; more are cut).  Its id (>= 1)
 * for a SAMPLE event; n 0 gives 0.  Written, like strings, before the
 * first chunk that can reference it.  0 with tl_error set when out of memory.
 */
uint32_t tl_trace_writer_stack(struct tl_trace_writer *w, const uint64_t *ips, unsigned n);

/* The frames of stack id interned so far (ids 1 .. up), or NULL: what the recorder names at the end. */
const uint64_t *tl_trace_writer_stack_frames(const struct tl_trace_writer *w, uint32_t id, unsigned *n);

/*
 * Append an event to the section of ev->cpu (-1 allowed).  Events of one CPU
 * must be added in time order; a CPU's event that goes back in time is
 * stored as given and counted.  Returns 0, or -1 with tl_error set.
 */
int tl_trace_writer_add(struct tl_trace_writer *w, const struct tl_event *ev);

/*
 * Write the buffered events as one chunk, with the promise that every event
 * added afterwards has ts >= watermark.  A chunk with no events is not
 * written.  If the buffer grows past the writer's chunk limit, add() flushes
 * by itself, repeating the previous watermark (no new promise).
 * Returns 0, or -1 with tl_error set.
 */
int tl_trace_writer_flush(struct tl_trace_writer *w, uint64_t watermark);

/* Bytes written to the file so far (for progress display and benchmarks). */
uint64_t tl_trace_writer_bytes(const struct tl_trace_writer *w);

/*
 * Flush, write the END block, close the file and free the writer.
 * end may be NULL (no END block: the file then reads as incomplete).
 * Returns 0, or -1 with tl_error set (the writer is freed either way).
 */
int tl_trace_writer_close(struct tl_trace_writer *w, const struct tl_trace_end *end);

/*
 * Free the writer without finishing the file, for error paths: events not
 * yet flushed are dropped and no END block is written, so the file reads as
 * an interrupted recording.  w may be NULL.
 */
void tl_trace_writer_abort(struct tl_trace_writer *w);

/*
 * zstd level for the chunks that follow (default 3; 1 is faster, higher
 * packs tighter).  0 stores chunks uncompressed (tests, fuzz seeds).
 * Returns 0, or -1 with tl_error set if the level is out of range.
 */
int tl_trace_writer_set_level(struct tl_trace_writer *w, int level);

/* Events added so far that went back in time on their CPU (stored as given). */
uint64_t tl_trace_writer_backwards(const struct tl_trace_writer *w);

/* ---- reading ---- */

struct tl_trace;

/*
 * Open a trace for reading.  path "-" reads stdin.  Returns NULL and sets
 * tl_error if the file cannot be opened or does not start with a valid
 * threadlens header ("not a threadlens trace (bad magic at offset 0)").
 * Caller frees with tl_trace_close().
 */
struct tl_trace *tl_trace_open(const char *path);

/* The same on a memory buffer (not copied; it must outlive the reader). */
struct tl_trace *tl_trace_open_mem(const void *buf, size_t len);

const struct tl_trace_info *tl_trace_info(const struct tl_trace *t);

/*
 * Next event in timestamp order (ties: CPU order, then file order).
 * Returns 1 with *ev filled, 0 at the end of the trace (clean or at the
 * last good chunk: see tl_trace_stats()->warnings), -1 on a read error
 * with tl_error set.
 */
int tl_trace_next(struct tl_trace *t, struct tl_event *ev);

/* String for an id; "" for 0 or an unknown id.  Valid until tl_trace_close(). */
const char *tl_trace_string(const struct tl_trace *t, uint32_t id);

/*
 * The frames of stack id (format 1.5), innermost first, their number in
 * *n; NULL and 0 for 0, an unknown id, or a stack whose block was damaged.
 * Valid until the next tl_trace_next().
 */
const uint64_t *tl_trace_stack(const struct tl_trace *t, uint32_t id, unsigned *n);

/* Statistics so far.  After tl_trace_next() returned 0 they are final. */
const struct tl_trace_stats *tl_trace_stats(const struct tl_trace *t);

void tl_trace_close(struct tl_trace *t);

/*
 * What the reader holds in memory: events decoded from chunks but not yet
 * returned, and the bytes of the decompressed chunks they live in.  The
 * maxima show that memory depends on the chunk size, not the file size.
 */
struct tl_trace_memstats {
	uint64_t queued_events, max_queued_events;
	uint64_t pending_bytes, max_pending_bytes;
};
void tl_trace_memstats(const struct tl_trace *t, struct tl_trace_memstats *out);

#endif
