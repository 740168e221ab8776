/*
 * import.h - turning other tools' recordings into threadlens traces.
 *
 * tl_import_perf() converts a `perf sched record` perf.data (by running
 * `perf script` on it) or a text file that already holds such `perf script`
 * output.  The text is parsed line by line in bounded memory; each sample
 * line becomes at most one event plus a THREAD event when the line shows a
 * thread identity (tid, pid, comm) not seen before, as the recorder does.
 *
 * The line parser (perf_script.c) is exposed on its own (struct
 * tl_perf_parser) so that tests and the fuzzer can feed it text and collect
 * the events directly; the importer (import_perf.c) wires it to perf and to
 * a trace writer.
 */
#ifndef TL_IMPORT_H
#define TL_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"
#include "trace/trace.h"

#define TL_IMPORT_MAX_KINDS 16
#define TL_PERF_MAX_LINE 65536 /* longer lines are malformed */

struct tl_import_opts {
	const char *input;  /* perf.data, or perf script text; "-" reads text from stdin */
	const char *output; /* the .tl to write; "-" is stdout */
	const char *perf;   /* the perf executable; NULL means "perf" from PATH */
};

struct tl_import_kind {
	char name[48]; /* "sched:sched_stat_runtime" */
	uint64_t count;
};

struct tl_import_result {
	int from_perf_data;    /* 1 if perf script was run on a perf.data */
	uint64_t lines;        /* text lines read */
	uint64_t samples;      /* sample lines recognised */
	uint64_t header_lines; /* "# key : value" lines of perf's header understood */
	uint64_t events;       /* events written, THREAD events included */
	uint64_t threads;      /* distinct thread ids seen */
	uint64_t skipped;      /* samples of kinds that are not imported */
	int nkinds;            /* which kinds, first seen first; the last is "other" when full */
	struct tl_import_kind kinds[TL_IMPORT_MAX_KINDS];
	uint64_t malformed;       /* lines that looked like samples but did not parse */
	uint64_t first_malformed; /* line number (from 1) of the first of them */
	int ncpus;                /* max cpu + 1 seen, or perf's "nrcpus online" */
	uint64_t first_ts, last_ts;
	char clock[16]; /* "perf" or "monotonic" (perf record -k mono) */
};

/*
 * Convert opts->input into opts->output.  Returns 0 on success (also when
 * lines were skipped or malformed: see *res), -1 with tl_error set when the
 * input cannot be read, is neither perf.data nor perf script output, perf
 * is missing or fails, or the output cannot be written.  res is filled as
 * far as the import got, even on failure.
 */
int tl_import_perf(const struct tl_import_opts *opts, struct tl_import_result *res);

/* ---- the line parser ---- */

/* Where the parser's events go.  Both callbacks return -1 (tl_error set) to stop. */
struct tl_perf_sink {
	int (*event)(void *ctx, const struct tl_event *ev);
	uint32_t (*intern)(void *ctx, const char *s); /* string id, 0 on failure */
	void *ctx;
};

struct tl_perf_parser;

/* A parser feeding sink (copied).  NULL with tl_error set on allocation failure.  Free with tl_perf_parser_free(). */
struct tl_perf_parser *tl_perf_parser_new(const struct tl_perf_sink *sink);

/*
 * Parse one line (without its newline; need not be NUL-terminated).
 * Header comments ("# hostname : vm") fill the trace info; sample lines
 * produce events; anything else is counted as malformed.  Returns 0, or
 * -1 if the sink failed (its tl_error stands).
 */
int tl_perf_parser_line(struct tl_perf_parser *p, const char *line, size_t len);

/* The trace info gathered so far (source "import perf-script", clock, host...). */
const struct tl_trace_info *tl_perf_parser_info(const struct tl_perf_parser *p);

/* Counters so far (lines, samples, events, skipped kinds, malformed lines...). */
const struct tl_import_result *tl_perf_parser_result(const struct tl_perf_parser *p);

void tl_perf_parser_free(struct tl_perf_parser *p);

#endif
