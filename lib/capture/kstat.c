/*
 * kstat.c - a thread's counters from /proc, and the delay-accounting switch
 * (see kstat.h).  Every file is read whole with one read() into a stack
 * buffer (tl_read_small), so a value is never torn between two reads.
 */
#include "capture/kstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"
#include "capture/procsnap.h"

#define DELAYACCT "/proc/sys/kernel/task_delayacct"

/* The decimal after "key:" at the start of a line of buf, or -1. */
static int status_field(const char *buf, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);

	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;

		if (strncmp(l, key, kl) || l[kl] != ':')
			continue;
		errno = 0;
		*out = strtoull(l + kl + 1, &end, 10);
		return errno || end == l + kl + 1 ? -1 : 0;
	}
	return -1;
}

int tl_kstat_parse_stat(const char *line, uint64_t *ticks)
{
	/* fields from 3 on follow the last ')': the name may hold spaces and parentheses */
	const char *p = strrchr(line, ')');
	char *end;
	int field = 2;

	while (p && field < 42) {
		p = strchr(p + 1, ' ');
		field++;
	}
	if (!p)
		return -1;
	errno = 0;
	*ticks = strtoull(p + 1, &end, 10);
	return errno || end == p + 1 ? -1 : 0;
}

int tl_kstat_read(int32_t pid, int32_t tid, struct tl_kstat *k)
{
	char path[96], buf[4096];
	unsigned long long run, wait;
	long tick = sysconf(_SC_CLK_TCK);

	memset(k, 0, sizeof(*k));
	k->tid = tid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (tl_read_small(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return tl_error_errno("cannot read '%s'", path);
	if (sscanf(buf, "%llu %llu", &run, &wait) == 2) {
		k->run_ns = run;
		k->wait_ns = wait;
		k->have |= TL_KSTAT_SCHED;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (!tl_read_small(AT_FDCWD, path, buf, sizeof(buf)) && tick > 0) {
		uint64_t ticks;

		if (!tl_kstat_parse_stat(buf, &ticks)) {
			k->blkio_ns = ticks * (1000000000ull / (uint64_t)tick);
			k->have |= TL_KSTAT_BLKIO;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (!tl_read_small(AT_FDCWD, path, buf, sizeof(buf)) &&
	    !status_field(buf, "voluntary_ctxt_switches", &k->vol) &&
	    !status_field(buf, "nonvoluntary_ctxt_switches", &k->invol))
		k->have |= TL_KSTAT_SWITCHES;
	return 0;
}

int tl_kstat_parse_steal(const char *text, uint64_t tick_ns, uint64_t *steal_ns, int max)
{
	int ncpu = -1;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long long v[8];
		int cpu, n = 0;

		if (strncmp(l, "cpu", 3) || l[3] < '0' || l[3] > '9')
			continue;
		if (sscanf(l, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu%n", &cpu, &v[0], &v[1], &v[2], &v[3],
		           &v[4], &v[5], &v[6], &v[7], &n) != 9 ||
		    cpu < 0 || cpu >= 65536)
			continue; /* a kernel before steal (2.6.11) or a damaged line */
		if (cpu < max)
			steal_ns[cpu] = (uint64_t)v[7] * tick_ns;
		if (cpu + 1 > ncpu)
			ncpu = cpu + 1;
	}
	return ncpu;
}

int tl_kstat_steal(uint64_t *steal_ns, int max, uint64_t *tick_ns)
{
	FILE *f = fopen("/proc/stat", "re");
	char *text = NULL;
	size_t cap = 0, len = 0;
	long hz = sysconf(_SC_CLK_TCK);
	int n;

	if (!f)
		return tl_error_errno("cannot read /proc/stat");
	*tick_ns = hz > 0 ? 1000000000ull / (uint64_t)hz : 10000000ull;
	/* whole, with stdio: the "intr" line can be long, so not tl_read_small's one buffer */
	for (;;) {
		size_t got;

		if (TL_GROW(text, cap, len + 4096 + 1) < 0) {
			free(text);
			fclose(f);
			return -1;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (!got)
			break;
	}
	fclose(f);
	text[len] = 0;
	for (int i = 0; i < max; i++)
		steal_ns[i] = 0;
	n = tl_kstat_parse_steal(text, *tick_ns, steal_ns, max);
	free(text);
	if (n < 0)
		return tl_error("/proc/stat has no per-CPU lines");
	return n;
}

int tl_delayacct_get(void)
{
	char buf[16];

	if (tl_read_small(AT_FDCWD, DELAYACCT, buf, sizeof(buf)) < 0)
		return tl_error_errno("cannot read '%s'", DELAYACCT);
	return buf[0] == '1';
}

int tl_delayacct_set(int on)
{
	int fd = open(DELAYACCT, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, on ? "1\n" : "0\n", 2) != 2) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		errno = e;
		return tl_error_errno("cannot set kernel.task_delayacct to %d", on ? 1 : 0);
	}
	close(fd);
	return 0;
}
