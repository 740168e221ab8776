/*
 * jitnames.h - the names of the JIT-compiled code that a recording's
 * samples hit, written into the trace when the recording ends (JSYM
 * events, format 1.13).  A JIT's code sits in anonymous mappings, which no
 * file names; the program writes a perf map (/tmp/perf-PID.map: V8 and
 * Node.js with --perf-basic-prof, Python 3.12's -X perf, Java agents;
 * symbols/perfmap.h).  perf reads that file when it reports, so a report on
 * another machine, or after /tmp was cleaned, names nothing; the trace
 * keeps the functions its samples need instead.
 *
 * The recorder notes each sample's process, and the address of a sample
 * without a stack; at the end every process's map is read and each of its
 * functions that holds a user address of the samples (those addresses,
 * and every user frame of the trace's stacks) is written once.  The
 * processes are gone by then: their maps stay (no JIT removes its map).
 */
#ifndef TL_JITNAMES_H
#define TL_JITNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"
#include "trace/trace.h"

struct tl_jitnames;

/* An empty set; NULL with tl_error set. */
struct tl_jitnames *tl_jitnames_new(void);
void tl_jitnames_free(struct tl_jitnames *jn);

/* A sample of process pid (> 0), at user address ip when it has no stack (0: it has one).  0, or -1 with tl_error set. */
int tl_jitnames_sample(struct tl_jitnames *jn, int32_t pid, uint64_t ip);

/*
 * The user addresses of the samples: those noted, and every user frame of
 * w's stacks; sorted, one of each: *n of them at *a (NULL when none).  0,
 * or -1 with tl_error set when memory runs out.
 */
int tl_jitnames_addresses(struct tl_jitnames *jn, struct tl_trace_writer *w, const uint64_t **a, size_t *n);

/*
 * Write, through add(ctx, event) at time ts, a JSYM event for each
 * function of a noted process's perf map (in dir; NULL: /tmp) that holds
 * an address of its samples, or a user frame of w's stacks.  *named: how
 * many.  0, add's nonzero result, or -1 with tl_error set.
 */
int tl_jitnames_write(struct tl_jitnames *jn, struct tl_trace_writer *w, const char *dir, uint64_t ts,
                      int (*add)(void *ctx, const struct tl_event *ev), void *ctx, size_t *named);

#endif
