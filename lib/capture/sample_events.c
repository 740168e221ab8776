/*
 * sample_events.c - sampled events by name, and their perf events (see
 * sample_events.h).
 */
#include "capture/sample_events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "base/errors.h"

static const struct tl_sample_event events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

const struct tl_sample_event *tl_sample_event_find(const char *name)
{
	char known[512];
	size_t n = 0;

	for (size_t i = 0; i < NEVENTS; i++)
		if (!strcmp(events[i].name, name))
			return &events[i];
	for (size_t i = 0; i < NEVENTS && n < sizeof(known); i++)
		n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s", i ? ", " : "", events[i].name);
	tl_error("unknown event '%s'; known: %s", name, known);
	return NULL;
}

int tl_sample_events_parse(const char *list, const struct tl_sample_event **out)
{
	int n = 0;

	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		char name[64];
		const struct tl_sample_event *e;

		if (!len || len >= sizeof(name))
			return tl_error("invalid event list '%s': an empty or too long name", list);
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		if (!(e = tl_sample_event_find(name)))
			return -1;
		for (int i = 0; i < n; i++)
			if (out[i] == e)
				return tl_error("invalid event list '%s': '%s' twice", list, name);
		if (n == TL_SAMPLE_MAX_EVENTS)
			return tl_error("invalid event list '%s': at most %d events", list, TL_SAMPLE_MAX_EVENTS);
		out[n++] = e;
		p += len;
		if (!*p)
			return n;
	}
}

static int open_raw(const struct tl_sample_event *e, unsigned hz, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = e->type;
	attr.config = e->config;
	attr.freq = 1;
	attr.sample_freq = hz;
	attr.sample_type = PERF_SAMPLE_IP; /* the program reads its own; the event must sample */
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

const char *tl_sample_events_available(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < NEVENTS && n < len; i++) {
		int fd = open_raw(&events[i], 1, 0);

		if (fd < 0)
			continue;
		close(fd);
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", events[i].name);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

int tl_sample_event_open(const struct tl_sample_event *e, unsigned hz, int cpu)
{
	char avail[512];
	int fd = open_raw(e, hz, cpu), err;

	if (fd >= 0)
		return fd;
	err = errno;
	if (err == EACCES || err == EPERM)
		return tl_error("cannot sample '%s': %s (sampling needs root, or CAP_PERFMON)", e->name, strerror(err));
	if (err == EINVAL && hz > 1)
		return tl_error("cannot sample '%s' at %u Hz: %s (kernel.perf_event_max_sample_rate is lower?)",
		                e->name, hz, strerror(err));
	return tl_error("event '%s' is not supported here (perf_event_open: %s); events this machine has: %s", e->name,
	                strerror(err), tl_sample_events_available(avail, sizeof(avail)));
}
