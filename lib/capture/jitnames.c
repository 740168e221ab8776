/*
 * jitnames.c - JIT functions' names for the trace (see jitnames.h).
 *
 * Invariant: ips holds the user addresses of samples without a stack, at
 * most MAX_IPS (more are left out: their functions may go unnamed); the
 * stacks' own user frames are read from the writer at the end.
 */
#include "capture/jitnames.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/tidmap.h"
#include "symbols/perfmap.h"

#define MAX_IPS (1u << 20)
#define NAME_MAX_BYTES 1024 /* a longer name (V8 puts the script's URL in it) is cut */

struct noted {
	int32_t pid;
};

struct tl_jitnames {
	struct tl_tidmap pids; /* struct noted: the sampled processes */
	uint64_t *ips;
	size_t nips, capips;
	int gathered; /* ips holds the stacks' frames too, sorted, one of each */
};

struct tl_jitnames *tl_jitnames_new(void)
{
	struct tl_jitnames *jn = calloc(1, sizeof(*jn));

	if (!jn || tl_tidmap_init_room(&jn->pids, sizeof(struct noted), 16) < 0) {
		free(jn);
		tl_error("out of memory");
		return NULL;
	}
	return jn;
}

void tl_jitnames_free(struct tl_jitnames *jn)
{
	if (!jn)
		return;
	tl_tidmap_release(&jn->pids);
	free(jn->ips);
	free(jn);
}

int tl_jitnames_sample(struct tl_jitnames *jn, int32_t pid, uint64_t ip)
{
	if (pid > 0 && !tl_tidmap_get(&jn->pids, pid) && !tl_tidmap_put(&jn->pids, pid, NULL))
		return -1;
	if (!ip || ip >> 63 || jn->nips >= MAX_IPS)
		return 0;
	if (TL_GROW(jn->ips, jn->capips, jn->nips + 1) < 0)
		return -1;
	jn->ips[jn->nips++] = ip;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Add the user frames of w's stacks to jn->ips, then sort them, one of each (once).  0 or -1. */
static int all_addresses(struct tl_jitnames *jn, struct tl_trace_writer *w)
{
	const uint64_t *f;
	unsigned n;
	size_t k = 0;

	if (jn->gathered++)
		return 0;
	for (uint32_t id = 1; (f = tl_trace_writer_stack_frames(w, id, &n)); id++)
		for (unsigned i = 0; i < n; i++)
			if (f[i] && !(f[i] >> 63) && jn->nips < MAX_IPS) {
				if (TL_GROW(jn->ips, jn->capips, jn->nips + 1) < 0)
					return -1;
				jn->ips[jn->nips++] = f[i];
			}
	if (jn->nips)
		qsort(jn->ips, jn->nips, sizeof(*jn->ips), cmp_u64);
	for (size_t i = 0; i < jn->nips; i++)
		if (!k || jn->ips[i] != jn->ips[k - 1])
			jn->ips[k++] = jn->ips[i];
	jn->nips = k;
	return 0;
}

/* The JSYM events of one process's map m: each function that holds an address (sorted), once. */
static int write_map(struct tl_jitnames *jn, const struct tl_perfmap *m, int32_t pid, struct tl_trace_writer *w,
                     uint64_t ts, int (*add)(void *ctx, const struct tl_event *ev), void *ctx, size_t *named)
{
	const struct tl_perfmap_sym *last = NULL;
	char name[NAME_MAX_BYTES];
	int rc;

	/* each address, and the byte before it (a caller is named where its call is: profile.c) */
	for (size_t k = 0; k < 2 * jn->nips; k++) {
		const struct tl_perfmap_sym *s = tl_perfmap_find(m, jn->ips[k / 2] - !(k & 1));
		struct tl_event e = { .ts = ts, .type = TL_EV_JSYM, .cpu = -1, .tid = pid };

		if (!s || s == last)
			continue;
		last = s;
		snprintf(name, sizeof(name), "%s", m->names + s->name);
		e.a = (int64_t)s->start;
		e.b = (int64_t)(s->start + s->size);
		if (!(e.name = tl_trace_writer_intern(w, name)))
			return -1;
		if ((rc = add(ctx, &e)))
			return rc;
		(*named)++;
	}
	return 0;
}

int tl_jitnames_addresses(struct tl_jitnames *jn, struct tl_trace_writer *w, const uint64_t **a, size_t *n)
{
	if (all_addresses(jn, w) < 0)
		return -1;
	*a = jn->ips;
	*n = jn->nips;
	return 0;
}

int tl_jitnames_write(struct tl_jitnames *jn, struct tl_trace_writer *w, const char *dir, uint64_t ts,
                      int (*add)(void *ctx, const struct tl_event *ev), void *ctx, size_t *named)
{
	const struct noted *p;
	size_t pos = 0;
	int rc = 0;

	*named = 0;
	while (!rc && (p = tl_tidmap_next(&jn->pids, &pos))) {
		struct tl_perfmap m;

		if (tl_perfmap_load(&m, dir, p->pid) < 0)
			return tl_error("out of memory");
		/* the addresses are gathered for the first process that has a map: most have none */
		if (m.nsyms && all_addresses(jn, w) < 0)
			rc = tl_error("out of memory");
		if (!rc && m.nsyms)
			rc = write_map(jn, &m, p->pid, w, ts, add, ctx, named);
		tl_perfmap_release(&m);
	}
	return rc;
}
