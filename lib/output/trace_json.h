/*
 * trace_json.h - the "trace" and "window" objects that every JSON document
 * of threadlens shares (docs/JSON.md), written from one tl_run.
 *
 * One writer for all commands, so the description of the trace cannot
 * drift between them.  The objects may only gain fields: scripts read them
 * by key, and a field once written keeps its name, type and meaning.
 */
#ifndef TL_TRACE_JSON_H
#define TL_TRACE_JSON_H

#include "output/json.h"
#include "timeline/run.h"

/*
 * "trace": {path, source, kernel, hostname, cpu_model, ncpus, command,
 * target_mode, targets, start_ns, duration_ns, events, complete, warnings,
 * lost_events}: start_ns is absolute (CLOCK_MONOTONIC), duration_ns runs to
 * the last instant of the trace, events counts those read, complete says
 * the file ended cleanly, warnings are the reader's, lost_events the
 * kernel's drops.  path is the trace as the user gave it ("" if NULL).
 */
void tl_json_trace(struct tl_json *j, const struct tl_run *run);

/* "window": {from_ns, to_ns}, both relative to the trace start. */
void tl_json_window(struct tl_json *j, const struct tl_run *run);

#endif
