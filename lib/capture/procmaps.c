/*
 * procmaps.c - code mappings of sampled processes (see procmaps.h).
 *
 * Invariants: p[] holds each followed process once, with the hash of its
 * maps' executable lines as last reported (0 before the first reading),
 * their ranges as last read, and whether a sample named it since its last
 * reading; a process whose maps cannot be read is removed.
 */
#include "capture/procmaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/hex.h"
#include "base/grow.h"

#define MAX_PROCS 4096
#define MAX_MAPS 4096           /* executable mappings of one process taken */
#define MISS_GAP_NS 50000000ull /* a process's maps re-read for a sample outside them: at most this often */

struct proc {
	int32_t pid;
	int sampled; /* since its last reading: only those are read again at a flush */
	uint64_t hash;
	uint64_t *rng; /* [start, end) pairs of its executable mappings as last read */
	size_t nrng, caprng;
	uint64_t miss_ts; /* the sample time of its last reading for a miss, 0 none */
};

struct tl_procmaps {
	struct proc *p;
	size_t n, cap;
};

/* Past the next run of spaces after a field. */
static const char *next_field(const char *p, const char *end)
{
	while (p < end && *p != ' ')
		p++;
	while (p < end && *p == ' ')
		p++;
	return p;
}

int tl_procmaps_parse_line(const char *line, size_t len, struct tl_map *out)
{
	const char *p = line, *end = line + len;

	if (len && end[-1] == '\n')
		end--;
	memset(out, 0, sizeof(*out));
	if (!(p = tl_hex_u64(p, end, &out->start)) || p >= end || *p != '-' ||
	    !(p = tl_hex_u64(p + 1, end, &out->end)) || p >= end || *p != ' ' || out->end <= out->start)
		return 0;
	p++;
	if (end - p < 4)
		return 0;
	out->exec = p[2] == 'x';
	p = next_field(p, end); /* offset */
	if (!(p = tl_hex_u64(p, end, &out->pgoff)) || p >= end || *p != ' ')
		return 0;
	p = next_field(p, end); /* at dev */
	p = next_field(p, end); /* at inode */
	if (p >= end || *p < '0' || *p > '9')
		return 0;
	p = next_field(p, end); /* at the path, or the end: anonymous */
	out->path = p;
	out->path_len = (size_t)(end - p);
	return 1;
}

struct tl_procmaps *tl_procmaps_new(void)
{
	struct tl_procmaps *pm = calloc(1, sizeof(*pm));

	if (!pm)
		tl_error("out of memory");
	return pm;
}

void tl_procmaps_free(struct tl_procmaps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->n; i++)
		free(pm->p[i].rng);
	free(pm->p);
	free(pm);
}

static int covered(const struct proc *pr, uint64_t ip)
{
	for (size_t i = 0; i + 1 < pr->nrng; i += 2)
		if (ip >= pr->rng[i] && ip < pr->rng[i + 1])
			return 1;
	return 0;
}

int tl_procmaps_note(struct tl_procmaps *pm, int32_t pid, uint64_t ip, uint64_t ts)
{
	for (size_t i = 0; i < pm->n; i++)
		if (pm->p[i].pid == pid) {
			struct proc *pr = &pm->p[i];

			pr->sampled = 1;
			/* outside its code as last read: a library mapped since (the loader's, a dlopen) */
			if (!ip || covered(pr, ip) || (pr->miss_ts && ts < pr->miss_ts + MISS_GAP_NS))
				return 0;
			pr->miss_ts = ts ? ts : 1;
			return 1;
		}
	if (pid <= 0 || pm->n >= MAX_PROCS)
		return 0;
	if (TL_GROW(pm->p, pm->cap, pm->n + 1) < 0)
		return -1;
	pm->p[pm->n++] = (struct proc){ .pid = pid, .sampled = 1 };
	return 1;
}

/* FNV-1a, never 0 (0 means "not read yet"). */
static uint64_t hash_more(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

/* Read one process; report its mappings if they changed.  1 if it is gone. */
static int scan_one(struct proc *pr, int (*fn)(void *ctx, int32_t pid, const struct tl_map *m), void *ctx, int *rc)
{
	char path[64], *line = NULL;
	size_t cap = 0, n = 0, nmaps = 0;
	uint64_t h = 1469598103934665603ull;
	struct tl_map *maps = NULL, m;
	char **paths = NULL;
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pr->pid);
	if (!(f = fopen(path, "re")))
		return 1;
	while ((len = getline(&line, &cap, f)) > 0 && nmaps < MAX_MAPS) {
		if (!tl_procmaps_parse_line(line, (size_t)len, &m) || !m.exec || !m.path_len)
			continue;
		h = hash_more(h, line, (size_t)len);
		if (TL_GROW(maps, n, nmaps + 1) < 0 || !(paths = realloc(paths, (nmaps + 1) * sizeof(*paths))) ||
		    !(paths[nmaps] = strndup(m.path, m.path_len)))
			break;
		m.path = paths[nmaps];
		maps[nmaps++] = m;
	}
	fclose(f);
	free(line);
	if (!nmaps && !pr->hash) {
		free(maps);
		free(paths);
		return 1; /* a kernel thread, or gone before its first reading: nothing to map */
	}
	if (h != pr->hash) {
		pr->hash = h;
		pr->nrng = 0;
		if (TL_GROW(pr->rng, pr->caprng, 2 * nmaps) == 0)
			for (size_t i = 0; i < nmaps; i++) {
				pr->rng[pr->nrng++] = maps[i].start;
				pr->rng[pr->nrng++] = maps[i].end;
			}
		for (size_t i = 0; i < nmaps && !*rc; i++)
			*rc = fn(ctx, pr->pid, &maps[i]);
	}
	for (size_t i = 0; i < nmaps; i++)
		free(paths[i]);
	free(paths);
	free(maps);
	return 0;
}

int tl_procmaps_scan(struct tl_procmaps *pm, int32_t pid, int (*fn)(void *ctx, int32_t pid, const struct tl_map *m),
                     void *ctx)
{
	int rc = 0;

	for (size_t i = 0; i < pm->n && !rc;) {
		if (pid ? pm->p[i].pid != pid : !pm->p[i].sampled) {
			i++;
			continue;
		}
		pm->p[i].sampled = 0;
		if (scan_one(&pm->p[i], fn, ctx, &rc)) {
			free(pm->p[i].rng);
			pm->p[i] = pm->p[--pm->n]; /* gone: its last mappings stay in the trace */
		} else {
			i++;
		}
	}
	return rc;
}
