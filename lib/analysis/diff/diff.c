/*
 * diff.c - before and after (diff.h).
 *
 * Each recording becomes a `snap`: its numbers, each of its program's
 * thread names with its time per state, and its findings.  The sides are
 * then reduced to means and spreads.  Invariants: a snap's thread names
 * are unique (threads of the same name are summed); a side's finding
 * counts how many of its recordings have it.  A program renamed between
 * the sides (one name a side) has its threads of that name renamed to
 * before's in the after snaps, so "only before: app-old / only after:
 * app-new" becomes one thread compared.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose/diagnose.h"
#include "analysis/diff/diff.h"
#include "analysis/diff/diff_profile.h"
#include "analysis/frames/frames.h"
#include "analysis/report/report.h"
#include "base/dist.h"
#include "base/errors.h"
#include "base/grow.h"

struct snap_thread {
	char name[TL_NAME_MAX];
	uint64_t state_ns[TL_ST__COUNT];
	uint64_t life;
};

struct snap {
	double m[TL_DM__COUNT];
	int have[TL_DM__COUNT];
	struct snap_thread *threads;
	size_t nthreads, cap;
	struct tl_diff_finding *found; /* kind + first thread, `gone` unused */
	size_t nfound;
	int sampled;               /* the trace has samples */
	char program[TL_NAME_MAX]; /* the recorded program: the first target process to start, "" none */
	struct tl_diff_psnap *prof;
};

static const char *const metric_names[TL_DM__COUNT] = {
	[TL_DM_FPS] = "frames/s",
	[TL_DM_LAT_P50] = "frame latency p50",
	[TL_DM_LAT_P90] = "frame latency p90",
	[TL_DM_LAT_P99] = "frame latency p99",
	[TL_DM_FRAMES] = "frames",
	[TL_DM_CPU_PCT] = "CPU use, % of its CPUs",
	[TL_DM_DURATION] = "duration",
};

const char *tl_diff_metric_name(unsigned m)
{
	return m < TL_DM__COUNT ? metric_names[m] : "?";
}

static void snap_release(struct snap *s)
{
	free(s->threads);
	free(s->found);
	tl_diff_psnap_free(s->prof);
	memset(s, 0, sizeof(*s));
}

static int add_thread(struct snap *s, const struct tl_thread_stats *t)
{
	struct snap_thread *x = NULL;

	for (size_t i = 0; i < s->nthreads && !x; i++)
		if (!strcmp(s->threads[i].name, t->name))
			x = &s->threads[i];
	if (!x) {
		if (TL_GROW_ZERO(s->threads, s->cap, s->nthreads + 1) < 0)
			return -1;
		x = &s->threads[s->nthreads++];
		memcpy(x->name, t->name, TL_NAME_MAX);
	}
	for (unsigned k = 0; k < TL_ST__COUNT; k++)
		x->state_ns[k] += t->state_ns[k];
	x->life += t->end > t->start ? t->end - t->start : 0;
	return 0;
}

/* The model's numbers, threads and findings (one read). */
static int snap_report(const char *path, struct snap *s)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_model m;
	struct tl_findings f;
	uint64_t start = UINT64_MAX, end = 0;
	double cpu = 0;
	int rc = -1;

	if (tl_report_analyze(&run, &m) < 0) {
		tl_run_release(&run);
		return -1;
	}
	for (size_t i = 0, first = SIZE_MAX; i < m.nprocs; i++)
		if (m.procs[i].is_target) {
			if (first == SIZE_MAX || m.procs[i].start < m.procs[first].start ||
			    (m.procs[i].start == m.procs[first].start && m.procs[i].pid < m.procs[first].pid)) {
				first = i;
				memcpy(s->program, m.procs[i].name, TL_NAME_MAX);
			}
			cpu += m.procs[i].cpu_pct_available;
			start = m.procs[i].start < start ? m.procs[i].start : start;
			end = m.procs[i].end > end ? m.procs[i].end : end;
		}
	s->sampled = run.sched.samples > 0;
	s->m[TL_DM_CPU_PCT] = cpu;
	s->have[TL_DM_CPU_PCT] = 1;
	s->m[TL_DM_DURATION] = end > start ? (double)(end - start) : 0;
	s->have[TL_DM_DURATION] = end > start;
	for (size_t i = 0; i < m.nthreads; i++)
		if (m.threads[i].is_target && add_thread(s, &m.threads[i]) < 0)
			goto out;
	if (tl_diagnose_model(&m, NULL, &f) < 0)
		goto out;
	s->found = calloc(f.n ? f.n : 1, sizeof(*s->found));
	if (s->found) {
		for (size_t i = 0; i < f.n; i++) {
			snprintf(s->found[i].kind, sizeof(s->found[i].kind), "%s",
			         tl_finding_kind_name(f.items[i].kind));
			snprintf(s->found[i].thread, sizeof(s->found[i].thread), "%s",
			         f.items[i].nthreads ? f.items[i].threads[0].name : "");
			snprintf(s->found[i].lock, sizeof(s->found[i].lock), "%s", f.items[i].lock);
		}
		s->nfound = f.n;
		rc = 0;
	}
	tl_findings_release(&f);
out:
	if (rc)
		tl_error("out of memory");
	tl_report_release(&m);
	tl_run_release(&run);
	return rc;
}

/* Frames/s and latency (a second read). */
static int snap_frames(const char *path, struct snap *s)
{
	struct tl_run run = { .to_ns = -1, .path = path };
	struct tl_frames_opts o = { 0 };
	struct tl_frames_result r;

	if (tl_frames_analyze(&run, &o, &r) < 0) {
		tl_run_release(&run);
		return -1;
	}
	if (r.completed >= 2) {
		s->m[TL_DM_FPS] = r.fps;
		s->m[TL_DM_LAT_P50] = (double)tl_dist_percentile(&r.latency, 50);
		s->m[TL_DM_LAT_P90] = (double)tl_dist_percentile(&r.latency, 90);
		s->m[TL_DM_LAT_P99] = (double)tl_dist_percentile(&r.latency, 99);
		s->m[TL_DM_FRAMES] = (double)r.completed;
		s->have[TL_DM_FPS] = s->have[TL_DM_LAT_P50] = s->have[TL_DM_LAT_P90] = s->have[TL_DM_LAT_P99] = 1;
		s->have[TL_DM_FRAMES] = 1;
	}
	tl_frames_release(&r);
	tl_run_release(&run);
	return 0;
}

void tl_diff_compare(struct tl_diff_value *d, const double *a, size_t na, const double *b, size_t nb, int points,
                     int noise)
{
	double se;

	tl_mean_sd(a, na, &d->a, &d->sd_a);
	tl_mean_sd(b, nb, &d->b, &d->sd_b);
	d->have = 1;
	d->change = points ? d->b - d->a : d->a != 0 ? (d->b - d->a) / fabs(d->a) : 0;
	if (noise) {
		se = sqrt(d->sd_a * d->sd_a / (double)na + d->sd_b * d->sd_b / (double)nb);
		d->flagged = fabs(d->b - d->a) > 3 * se && d->b != d->a;
	} else {
		d->flagged = points ? fabs(d->change) >= 5 : fabs(d->change) >= 0.10;
	}
}

/* The thread's life in one recording (its threads of that name together), ns; 0 if it has none. */
static double life_of(const struct snap *s, const char *thread)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (!strcmp(s->threads[i].name, thread))
			return (double)s->threads[i].life;
	return 0;
}

static double share(const struct snap *s, const char *thread, unsigned state)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (!strcmp(s->threads[i].name, thread))
			return s->threads[i].life
			               ? 100.0 * (double)s->threads[i].state_ns[state] / (double)s->threads[i].life
			               : 0;
	return 0;
}

/* Flagged first, then by the thread time the change moved (a share of a long life before one of a short one). */
static int cmp_rows(const void *x, const void *y)
{
	const struct tl_diff_state_row *a = x, *b = y;
	double da = a->moved_ns, db = b->moved_ns;

	if (a->v.flagged != b->v.flagged)
		return b->v.flagged - a->v.flagged;
	return da > db ? -1 : da < db;
}

static int has_thread(const struct snap *s, size_t n, const char *name)
{
	for (size_t k = 0; k < n; k++)
		for (size_t t = 0; t < s[k].nthreads; t++)
			if (!strcmp(s[k].threads[t].name, name))
				return 1;
	return 0;
}

/* The thread names of one side that the other side never has. */
static int only_on(struct tl_diff_result *r, size_t *cap, const struct snap *s, size_t n, const struct snap *o,
                   size_t no)
{
	for (size_t k = 0; k < n; k++)
		for (size_t t = 0; t < s[k].nthreads; t++) {
			const char *name = s[k].threads[t].name;
			int dup = 0;

			if (has_thread(o, no, name))
				continue;
			for (size_t i = 0; i < r->nonly && !dup; i++)
				dup = !strcmp(r->only[i], name);
			if (dup)
				continue;
			if (TL_GROW(r->only, *cap, r->nonly + 1) < 0)
				return -1;
			memcpy(r->only[r->nonly++], name, TL_NAME_MAX);
		}
	return 0;
}

/* Every (thread, state) with 1% on some recording of either side, for threads both sides have. */
static int state_rows(struct tl_diff_result *r, const struct snap *sa, size_t na, const struct snap *sb, size_t nb)
{
	size_t cap = 0, ocap = 0;

	if (only_on(r, &ocap, sa, na, sb, nb) < 0)
		return -1;
	r->only_before = r->nonly;
	if (only_on(r, &ocap, sb, nb, sa, na) < 0)
		return -1;
	double va[TL_DIFF_MAX_RUNS], vb[TL_DIFF_MAX_RUNS];

	for (size_t side = 0; side < 2; side++)
		for (size_t k = 0; k < (side ? nb : na); k++) {
			const struct snap *s = side ? &sb[k] : &sa[k];

			for (size_t t = 0; t < s->nthreads; t++)
				for (unsigned st = 0; st < TL_ST__COUNT; st++) {
					int seen = 0;

					if (share(s, s->threads[t].name, st) < 1 ||
					    !has_thread(side ? sa : sb, side ? na : nb, s->threads[t].name))
						continue;
					for (size_t i = 0; i < r->nrows && !seen; i++)
						seen = r->rows[i].state == st &&
						       !strcmp(r->rows[i].thread, s->threads[t].name);
					if (seen)
						continue;
					if (TL_GROW_ZERO(r->rows, cap, r->nrows + 1) < 0)
						return -1;
					memcpy(r->rows[r->nrows].thread, s->threads[t].name, TL_NAME_MAX);
					r->rows[r->nrows++].state = (uint16_t)st;
				}
		}
	for (size_t i = 0; i < r->nrows; i++) {
		struct tl_diff_state_row *row = &r->rows[i];

		for (size_t k = 0; k < na; k++)
			va[k] = share(&sa[k], row->thread, row->state);
		for (size_t k = 0; k < nb; k++)
			vb[k] = share(&sb[k], row->thread, row->state);
		tl_diff_compare(&row->v, va, na, vb, nb, 1, r->noise);
		/*
		 * The thread time that moved: the change in points of the mean
		 * life.  Without the noise, a change of under 1 ms (what the
		 * self-check tolerates of any window) is not marked: a 5 ms
		 * process's 80 points are 4 ms, a shell's `tr` more or less.
		 */
		double life = 0;
		for (size_t k = 0; k < na; k++)
			life += life_of(&sa[k], row->thread) / (double)(2 * na);
		for (size_t k = 0; k < nb; k++)
			life += life_of(&sb[k], row->thread) / (double)(2 * nb);
		row->moved_ns = fabs(row->v.change) / 100.0 * life;
		if (!r->noise && row->moved_ns < 1e6)
			row->v.flagged = 0;
	}
	if (r->nrows > 1)
		qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_rows);
	return 0;
}

/* The same finding: its kind and what it is about, a named lock (its waiters vary), else its first thread. */
static int same_finding(const struct tl_diff_finding *a, const struct tl_diff_finding *b)
{
	return !strcmp(a->kind, b->kind) && !strcmp(a->lock, b->lock) && (a->lock[0] || !strcmp(a->thread, b->thread));
}

static size_t runs_with(const struct snap *s, size_t n, const struct tl_diff_finding *x)
{
	size_t c = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < s[k].nfound; i++)
			if (same_finding(&s[k].found[i], x)) {
				c++;
				break;
			}
	return c;
}

/*
 * Findings on one side only: in more than half of its recordings and in
 * fewer than half of the other side's (with two a side: both and neither),
 * so that a detector near its threshold in one recording is not a change.
 */
static int findings(struct tl_diff_result *r, const struct snap *sa, size_t na, const struct snap *sb, size_t nb)
{
	size_t cap = 0;

	for (int gone = 1; gone >= 0; gone--) {
		const struct snap *s = gone ? sa : sb, *o = gone ? sb : sa;
		size_t n = gone ? na : nb, no = gone ? nb : na;

		for (size_t k = 0; k < n; k++)
			for (size_t i = 0; i < s[k].nfound; i++) {
				const struct tl_diff_finding *x = &s[k].found[i];
				int dup = 0;

				for (size_t j = 0; j < r->nfindings && !dup; j++)
					dup = same_finding(&r->findings[j], x);
				if (dup || 2 * runs_with(s, n, x) <= n || 2 * runs_with(o, no, x) >= no)
					continue;
				if (TL_GROW(r->findings, cap, r->nfindings + 1) < 0)
					return -1;
				r->findings[r->nfindings] = *x;
				r->findings[r->nfindings++].gone = gone;
			}
	}
	return 0;
}

/* Every snap of s[0..n) records one program: its name, else NULL. */
static const char *one_program(const struct snap *s, size_t n)
{
	for (size_t k = 1; k < n; k++)
		if (strcmp(s[k].program, s[0].program))
			return NULL;
	return s[0].program[0] ? s[0].program : NULL;
}

/* A program renamed between the sides: its threads of its name in the after snaps take before's name. */
static void match_programs(struct tl_diff_result *r, struct snap *sa, size_t na, struct snap *sb, size_t nb)
{
	const char *a = one_program(sa, na), *b = one_program(sb, nb);

	if (!a || !b || !strcmp(a, b))
		return;
	memcpy(r->program_before, a, TL_NAME_MAX);
	memcpy(r->program_after, b, TL_NAME_MAX);
	for (size_t k = 0; k < nb; k++) {
		struct snap *s = &sb[k];
		struct snap_thread *to = NULL, *from = NULL;

		for (size_t t = 0; t < s->nthreads; t++) {
			if (!strcmp(s->threads[t].name, r->program_before))
				to = &s->threads[t];
			else if (!strcmp(s->threads[t].name, r->program_after))
				from = &s->threads[t];
		}
		if (from && to) { /* a thread of before's name too: one name, summed */
			for (unsigned st = 0; st < TL_ST__COUNT; st++)
				to->state_ns[st] += from->state_ns[st];
			to->life += from->life;
			*from = s->threads[--s->nthreads];
		} else if (from) {
			memcpy(from->name, r->program_before, TL_NAME_MAX);
		}
		for (size_t i = 0; i < s->nfound; i++)
			if (!strcmp(s->found[i].thread, r->program_after))
				memcpy(s->found[i].thread, r->program_before, TL_NAME_MAX);
	}
}

/* The profiles, when every recording has samples (a read more of each). */
static int profiles(struct tl_diff_result *out, struct snap *s, size_t na, size_t nb)
{
	struct tl_diff_psnap *p[2 * TL_DIFF_MAX_RUNS];

	for (size_t i = 0; i < na + nb; i++)
		if (!s[i].sampled)
			return 0;
	for (size_t i = 0; i < na + nb; i++) {
		const char *path = i < na ? out->a[i] : out->b[i - na];
		if (!(s[i].prof = tl_diff_psnap_read(path)))
			return -1;
		p[i] = s[i].prof;
	}
	return tl_diff_profile_compare(&out->prof, p, na, p + na, nb, out->noise);
}

int tl_diff_analyze(const char *const *a, size_t na, const char *const *b, size_t nb, struct tl_diff_result *out)
{
	struct snap *s = NULL;
	double va[TL_DIFF_MAX_RUNS], vb[TL_DIFF_MAX_RUNS];
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!na || !nb || na > TL_DIFF_MAX_RUNS || nb > TL_DIFF_MAX_RUNS)
		return tl_error("diff needs 1 to %d recordings on each side", TL_DIFF_MAX_RUNS);
	if (!(s = calloc(na + nb, sizeof(*s))))
		return tl_error("out of memory");
	for (size_t i = 0; i < na + nb; i++) {
		const char *path = i < na ? a[i] : b[i - na];

		if (snap_report(path, &s[i]) < 0 || snap_frames(path, &s[i]) < 0)
			goto done;
	}
	out->a = a;
	out->b = b;
	out->na = na;
	out->nb = nb;
	out->noise = na >= 2 && nb >= 2;
	for (unsigned m = 0; m < TL_DM__COUNT; m++) {
		int have = 1;

		for (size_t i = 0; i < na + nb; i++) {
			have &= s[i].have[m];
			if (i < na)
				va[i] = s[i].m[m];
			else
				vb[i - na] = s[i].m[m];
		}
		if (have)
			tl_diff_compare(&out->m[m], va, na, vb, nb, m == TL_DM_CPU_PCT, out->noise);
	}
	match_programs(out, s, na, s + na, nb);
	if (state_rows(out, s, na, s + na, nb) < 0 || findings(out, s, na, s + na, nb) < 0) {
		tl_error("out of memory");
		goto done;
	}
	if (profiles(out, s, na, nb) < 0)
		goto done;
	rc = 0;
done:
	for (size_t i = 0; i < na + nb; i++)
		snap_release(&s[i]);
	free(s);
	if (rc)
		tl_diff_release(out);
	return rc;
}

void tl_diff_release(struct tl_diff_result *r)
{
	free(r->rows);
	free(r->only);
	free(r->findings);
	tl_diff_profile_release(&r->prof);
	memset(r, 0, sizeof(*r));
}
