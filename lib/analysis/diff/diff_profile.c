/*
 * diff_profile.c - the profiles of `threadlens diff` (diff.h, "profile"):
 * each sampled recording's counts, then per function and per CPU the two
 * sides' means, spreads and changes.
 *
 * Functions are matched by name and module (tl_profile_key: an id per
 * function, one table for all recordings); a recording's self counts are
 * indexed by that id.  Sample counts are Poisson-like: with one
 * recording a side (no measured noise) a change is flagged only when it
 * passes the fixed bar (10%) and three times the standard deviation of
 * the difference of two counts, sqrt(a + b), so that a function with a few
 * samples does not flag on chance.
 */
#include "analysis/diff/diff_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile/profile.h"
#include "base/errors.h"
#include "base/grow.h"
#include "base/strtab.h"

struct tl_diff_psnap {
	char event[64];
	double samples, period;
	double unnamed;         /* samples with frames in files rebuilt since, or unreadable (profile.h) */
	char unnamed_file[256]; /* one of those files */
	double *cpu;            /* samples per CPU */
	int ncpus;
	struct tl_profile_func *funcs; /* name, module, self */
	size_t nfuncs;
};

struct tl_diff_psnap *tl_diff_psnap_read(const char *path)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_profile_opts o = { .cpu = -1 };
	struct tl_profile_result r;
	struct tl_diff_psnap *s;

	if (tl_profile_analyze(&run, &o, &r) < 0) {
		tl_run_release(&run);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s) {
		snprintf(s->event, sizeof(s->event), "%s", r.event);
		s->samples = (double)r.samples;
		s->period = (double)r.period;
		s->unnamed = (double)(r.rebuilt.samples + r.unreadable.samples);
		if (r.rebuilt.n || r.unreadable.n)
			snprintf(s->unnamed_file, sizeof(s->unnamed_file), "%s",
			         r.rebuilt.n ? r.rebuilt.paths[0] : r.unreadable.paths[0]);
		s->ncpus = run.ncpus;
		s->cpu = calloc((size_t)s->ncpus, sizeof(*s->cpu));
		s->funcs = r.funcs; /* taken over */
		s->nfuncs = r.nfuncs;
		r.funcs = NULL;
		r.nfuncs = 0;
		for (int c = 0; s->cpu && c < s->ncpus; c++)
			s->cpu[c] = (double)r.per_cpu[c];
	}
	if (s && !s->cpu) {
		tl_diff_psnap_free(s);
		s = NULL;
	}
	if (!s)
		tl_error("out of memory");
	tl_profile_release(&r);
	tl_run_release(&run);
	return s;
}

void tl_diff_psnap_free(struct tl_diff_psnap *s)
{
	if (!s)
		return;
	free(s->cpu);
	free(s->funcs);
	free(s);
}

/* The extra bar of one recording a side: the difference passes 3 sd of a difference of counts. */
static void poisson_bar(struct tl_diff_value *d, int noise)
{
	if (!noise)
		d->flagged = d->flagged && fabs(d->b - d->a) > 3 * sqrt(d->a + d->b);
}

static int cmp_func(const void *x, const void *y)
{
	const struct tl_diff_func *a = x, *b = y;
	double da = fabs(a->self.b - a->self.a), db = fabs(b->self.b - b->self.a);

	if (a->self.flagged != b->self.flagged)
		return b->self.flagged - a->self.flagged;
	if (da != db)
		return da < db ? 1 : -1;
	if (a->self.a + a->self.b != b->self.a + b->self.b) /* then the busiest */
		return a->self.a + a->self.b < b->self.a + b->self.b ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* Every function with a self share of TL_DIFF_MIN_SHARE on a side, matched by name and module. */
static int funcs(struct tl_diff_profile *out, struct tl_diff_psnap *const *s, size_t na, size_t nb, int noise)
{
	struct tl_strtab ids;
	double *self = NULL, va[TL_DIFF_MAX_RUNS], vb[TL_DIFF_MAX_RUNS], sa[TL_DIFF_MAX_RUNS], sb[TL_DIFF_MAX_RUNS];
	uint32_t n, *fid = NULL;
	size_t cap = 0, total = 0;
	int rc = -1;

	tl_strtab_init(&ids);
	/* each recording's functions by key id; the table's size is known once all are in */
	for (size_t i = 0; i < na + nb; i++)
		total += s[i]->nfuncs;
	if (!(fid = calloc(total ? total : 1, sizeof(*fid))))
		goto out;
	for (size_t i = 0, at = 0; i < na + nb; i++)
		for (size_t k = 0; k < s[i]->nfuncs; k++)
			if (!(fid[at++] = tl_profile_key(&ids, s[i]->funcs[k].name, s[i]->funcs[k].module)))
				goto out;
	n = tl_strtab_next_id(&ids);
	if (!(self = calloc((size_t)n * (na + nb), sizeof(*self))))
		goto out;
	for (size_t i = 0, at = 0; i < na + nb; i++)
		for (size_t k = 0; k < s[i]->nfuncs; k++)
			self[i * n + fid[at++]] = (double)s[i]->funcs[k].self;
	for (uint32_t id = 1; id < n; id++) {
		struct tl_diff_func f = { 0 };

		for (size_t i = 0; i < na + nb; i++) {
			double v = self[i * n + id], sh = s[i]->samples > 0 ? 100 * v / s[i]->samples : 0;
			if (i < na) {
				va[i] = v;
				sa[i] = sh;
			} else {
				vb[i - na] = v;
				sb[i - na] = sh;
			}
		}
		tl_diff_compare(&f.share, sa, na, sb, nb, 1, noise);
		if (f.share.a < TL_DIFF_MIN_SHARE && f.share.b < TL_DIFF_MIN_SHARE)
			continue;
		tl_diff_compare(&f.self, va, na, vb, nb, 0, noise);
		poisson_bar(&f.self, noise);
		tl_profile_key_split(&ids, id, f.name, sizeof(f.name), f.module, sizeof(f.module));
		if (TL_GROW(out->funcs, cap, out->nfuncs + 1) < 0)
			goto out;
		out->funcs[out->nfuncs++] = f;
	}
	if (out->nfuncs)
		qsort(out->funcs, out->nfuncs, sizeof(*out->funcs), cmp_func);
	rc = 0;
out:
	if (rc)
		tl_error("out of memory");
	free(self);
	free(fid);
	tl_strtab_release(&ids);
	return rc;
}

int tl_diff_profile_compare(struct tl_diff_profile *out, struct tl_diff_psnap *const *a, size_t na,
                            struct tl_diff_psnap *const *b, size_t nb, int noise)
{
	struct tl_diff_psnap *s[2 * TL_DIFF_MAX_RUNS];
	double va[TL_DIFF_MAX_RUNS], vb[TL_DIFF_MAX_RUNS];

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < na + nb; i++) {
		s[i] = i < na ? a[i] : b[i - na];
		if (s[i]->ncpus > out->ncpus)
			out->ncpus = s[i]->ncpus;
	}
	out->have = 1;
	snprintf(out->event, sizeof(out->event), "%s", a[0]->event);
	for (size_t i = 0; i < na + nb; i++) {
		int side = i >= na;
		out->unnamed[side] += s[i]->unnamed;
		if (s[i]->unnamed_file[0] && !out->unnamed_file[side][0])
			snprintf(out->unnamed_file[side], sizeof(out->unnamed_file[side]), "%s", s[i]->unnamed_file);
	}
	for (size_t i = 0; i < na + nb; i++)
		(i < na ? va : vb)[i < na ? i : i - na] = s[i]->samples;
	tl_diff_compare(&out->samples, va, na, vb, nb, 0, noise);
	poisson_bar(&out->samples, noise);
	for (size_t i = 0; i < na + nb; i++)
		(i < na ? va : vb)[i < na ? i : i - na] = s[i]->period;
	tl_diff_compare(&out->period, va, na, vb, nb, 0, noise);
	out->period.flagged = out->samples.flagged; /* a count of events, with the samples' noise */
	if (!(out->cpus = calloc((size_t)out->ncpus, sizeof(*out->cpus))))
		return tl_error("out of memory");
	for (int c = 0; c < out->ncpus; c++) {
		for (size_t i = 0; i < na + nb; i++)
			(i < na ? va : vb)[i < na ? i : i - na] = c < s[i]->ncpus ? s[i]->cpu[c] : 0;
		tl_diff_compare(&out->cpus[c], va, na, vb, nb, 0, noise);
		poisson_bar(&out->cpus[c], noise);
	}
	return funcs(out, s, na, nb, noise);
}

void tl_diff_profile_release(struct tl_diff_profile *p)
{
	free(p->cpus);
	free(p->funcs);
	memset(p, 0, sizeof(*p));
}
