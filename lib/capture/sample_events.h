/*
 * sample_events.h - the events `record --sample` can sample, by their perf
 * names, and opening them: one perf event per CPU, in frequency mode,
 * whose overflows run the eBPF recorder's sampling program.
 *
 * Names are perf's (perf list): software events (cpu-clock, task-clock,
 * page-faults, context-switches, cpu-migrations, minor-faults,
 * major-faults) and the generic hardware ones (cycles, instructions,
 * cache-references, cache-misses, branch-instructions, branch-misses),
 * which a machine without a PMU (most virtual machines) does not have.
 */
#ifndef TL_SAMPLE_EVENTS_H
#define TL_SAMPLE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#define TL_SAMPLE_DEFAULT_EVENT "cpu-clock"
#define TL_SAMPLE_DEFAULT_HZ 997 /* prime: not in step with the scheduler tick or the program's own periods */
#define TL_SAMPLE_MAX_HZ 100000

struct tl_sample_event {
	const char *name;
	uint32_t type;   /* PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE */
	uint64_t config; /* PERF_COUNT_* */
};

#define TL_SAMPLE_MAX_EVENTS 8 /* events sampled at once (-e a,b,...) */

/* The event of a perf name; NULL with tl_error set ("unknown event 'x'; known: ..."). */
const struct tl_sample_event *tl_sample_event_find(const char *name);

/*
 * Open event e on `cpu` for all tasks, sampling about hz times a second,
 * enabled: the recorder program's own switch decides what is written.
 * The fd, or -1 with tl_error set; when the machine lacks the
 * event: "event 'cycles' is not supported here (perf_event_open: No such
 * file or directory); events this machine has: cpu-clock, task-clock, ..."
 */
int tl_sample_event_open(const struct tl_sample_event *e, unsigned hz, int cpu);

/*
 * The events of a comma-separated list ("cpu-clock,page-faults"), in its
 * order, each once, at most TL_SAMPLE_MAX_EVENTS: their number, or -1 with
 * tl_error set (an unknown name, an empty one, too many).
 */
int tl_sample_events_parse(const char *list, const struct tl_sample_event **out);

/* "cpu-clock, task-clock, ..." into buf: the known events this machine can open. */
const char *tl_sample_events_available(char *buf, size_t len);

#endif
