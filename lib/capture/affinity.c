/*
 * affinity.c - reading affinity masks and making AFFINITY events (see affinity.h).
 */
#include "capture/affinity.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

int tl_affinity_read(int tid, struct tl_affinity *a)
{
	memset(a, 0, sizeof(*a));
	/* Sized for the largest machine the kernel supports, not for 1024 CPUs. */
	for (int ncpu = 1024; ncpu <= 65536; ncpu *= 4) {
		cpu_set_t *set = CPU_ALLOC(ncpu);
		size_t size = CPU_ALLOC_SIZE(ncpu);

		if (!set)
			return -1;
		if (!sched_getaffinity(tid, size, set)) {
			a->count = CPU_COUNT_S(size, set);
			for (int c = 0; c < ncpu && c < 64 * TL_AFFINITY_WORDS; c++)
				if (CPU_ISSET_S(c, size, set)) {
					a->w[c / 64] |= 1ull << (c % 64);
					a->nwords = c / 64 + 1;
				}
			CPU_FREE(set);
			return 0;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			return -1;
	}
	return -1;
}

uint64_t tl_affinity_hash(const struct tl_affinity *a)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)a->count; /* FNV-1a over the words */

	if (!a->count)
		return 0;
	for (int i = 0; i < a->nwords; i++) {
		h ^= a->w[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

int tl_affinity_events(const struct tl_affinity *a, int32_t tid, uint64_t ts, int cpu, struct tl_event *out, int max)
{
	int n = 0;

	for (int i = 0; a->count && i < a->nwords && n < max; i++) {
		if (!a->w[i])
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].ts = ts;
		out[n].type = TL_EV_AFFINITY;
		out[n].cpu = (int16_t)cpu;
		out[n].tid = tid;
		out[n].a = i;
		out[n].b = (int64_t)a->w[i];
		out[n].c = a->count;
		n++;
	}
	return n;
}
