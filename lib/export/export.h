/*
 * export.h - `threadlens export`: a trace in other tools' formats.
 *
 *   perfetto  a Perfetto protobuf trace (ui.perfetto.dev, trace_processor):
 *             the recorded scheduler and interrupt events as ftrace events,
 *             from which Perfetto draws its CPU tracks and its own thread
 *             states; a "states" track per thread with threadlens's states
 *             as slices (they hold what ftrace alone cannot say: lock waits,
 *             I/O waits, quantum ends, inferred switch-ins); the markers as
 *             slices: regions, tasks and functions on their thread, frames
 *             on per-process "frames" tracks (one lane per frame in flight);
 *             the CPU samples (record --sample) as Perfetto's perf samples
 *             with their call stacks, named as `threadlens profile` names
 *             them (perfetto_samples.c).
 *   chrome    Chrome trace-event JSON (chrome://tracing, Perfetto, Speedscope):
 *             the states and markers as complete ("X") events on their
 *             thread, frames as async events, and one pseudo-process
 *             "CPUs" with a row per CPU showing who ran.
 *   csv       three tables: PREFIX-intervals.csv (every state interval),
 *             PREFIX-spans.csv (frames, regions, tasks, functions) and
 *             PREFIX-threads.csv (each thread's time per state).
 *   sqlite    an SQLite database (sqlite.c; docs/SQL.md): the state
 *             intervals (UNKNOWN too), what each CPU did, the markers, the
 *             threads and processes, as tables `threadlens sql` queries.
 *
 * One streaming walk (timeline/walk.h): memory grows with the threads and
 * CPUs, not the events, except that each CPU keeps up to a bundle of
 * pending ftrace events.  Everything the trace holds is exported, every
 * thread (as perf script and trace-cmd do): the run's window applies,
 * its thread filters do not.  Times: Perfetto gets the trace's own
 * CLOCK_MONOTONIC nanoseconds (left in Perfetto's default clock, so all
 * tracks line up; the absolute value is the recording host's); Chrome JSON
 * and CSV count from the trace start.
 *
 * Strings from the trace (thread, marker, IRQ names) are written as data:
 * JSON-escaped, CSV-quoted (a field starting with = + - @ gets a leading '
 * so a spreadsheet does not run it as a formula).
 */
#ifndef TL_EXPORT_H
#define TL_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "timeline/run.h"

enum tl_export_format { TL_EXPORT_PERFETTO, TL_EXPORT_CHROME, TL_EXPORT_CSV, TL_EXPORT_SQLITE };

struct tl_export_opts {
	int format;          /* enum tl_export_format */
	FILE *out;           /* perfetto, chrome: where to write (not closed) */
	const char *prefix;  /* csv: the tables go to PREFIX-intervals.csv, ... */
	int intervals_only;  /* csv: only the intervals table, to `out` (report --csv=intervals) */
	const char *db_path; /* sqlite: the database to make (it must not exist) */
	int db_indexes;      /* sqlite: also index thread_state(tid, ts), sched(cpu, ts), spans(name, ts) */
};

/* What was written. */
struct tl_export_counts {
	uint64_t sched_events;  /* perfetto: ftrace events (switches, wakeups, interrupts) */
	uint64_t intervals;     /* state intervals (UNKNOWN ones are not written) */
	uint64_t cpu_intervals; /* chrome: CPU rows' slices */
	uint64_t spans;         /* frames, regions, tasks, functions */
	uint64_t threads;
	uint64_t frame_lanes; /* perfetto: the most frames in flight at once in one process */
	uint64_t samples;     /* perfetto: CPU samples (PerfSample packets) */
};

/* "perfetto", "chrome", "csv", "sqlite" -> the format; -1 if none of them. */
int tl_export_format_from_name(const char *name);

/*
 * Read run's trace once and write it.  0, or -1 with tl_error set (a read
 * or write error, out of memory; csv: a table that cannot be created --
 * the tables already made are removed).
 */
int tl_export(struct tl_run *run, const struct tl_export_opts *o, struct tl_export_counts *n);

#endif
