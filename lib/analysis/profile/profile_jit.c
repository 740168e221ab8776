/*
 * profile_jit.c - the names of JIT-compiled code for profile (see
 * profile_int.h, struct pmap): the trace's JSYM events of a process
 * (format 1.13, capture/jitnames.h), else its perf map file.
 */
#include <string.h>

#include "analysis/profile/profile_int.h"
#include "base/grow.h"
#include "symbols/perfmap.h"

/*
 * Process pid's JIT functions (struct pmap): a new entry is read from its
 * perf map file unless the trace's JSYM events are to fill it.  NULL out
 * of memory.
 */
static struct pmap *pmap_of(struct pass *p, int32_t pid, int from_trace)
{
	size_t i = 0;

	while (i < p->npmaps && p->pmaps[i].pid != pid)
		i++;
	if (i < p->npmaps)
		return &p->pmaps[i];
	if (TL_GROW_ZERO(p->pmaps, p->cappmaps, p->npmaps + 1) < 0) {
		p->oom = 1;
		return NULL;
	}
	p->pmaps[i].pid = pid;
	p->pmaps[i].sorted = 1;
	if (!from_trace && tl_perfmap_load(&p->pmaps[i].m, p->o->perfmap_dir, pid) < 0)
		p->oom = 1;
	p->npmaps++;
	return &p->pmaps[i];
}

/*
 * A JIT's name for ip in process pid, or NULL: from the trace's JSYM
 * events of the process if it has any (a trace recorded here or not),
 * else from its perf map (perfmap.h), read once, the first time one of
 * its addresses is in no mapping (JIT code sits in anonymous ones).
 */
const char *tl_profile_jit_name(struct pass *p, int32_t pid, uint64_t ip)
{
	struct pmap *pm = pid > 0 ? pmap_of(p, pid, 0) : NULL;

	if (!pm)
		return NULL;
	if (!pm->sorted) {
		tl_perfmap_done(&pm->m);
		pm->sorted = 1;
	}
	return tl_perfmap_lookup(&pm->m, ip);
}

void tl_profile_jsym(struct pass *p, const struct tl_event *ev)
{
	struct pmap *pm = ev->tid > 0 && ev->b > ev->a ? pmap_of(p, ev->tid, 1) : NULL;
	const char *s = tl_trace_string(p->run->trace, ev->name);

	if (pm && tl_perfmap_add(&pm->m, (uint64_t)ev->a, (uint64_t)(ev->b - ev->a), s, strlen(s)) < 0)
		p->oom = 1;
	else if (pm)
		pm->sorted = 0;
}
