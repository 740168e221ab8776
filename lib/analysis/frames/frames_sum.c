/*
 * frames_sum.c - the result side of the frames analysis (frames_int.h):
 * the table of steps, the sums over finished frames (counts, latency,
 * throughput per interval, per-step and per-thread totals), and the frames
 * kept in full (the K longest in a min-heap, and those asked for by id).
 *
 * Invariants: a frame is summed once, when it is finished; only complete
 * frames go into latency, throughput, per-step and per-thread sums (an
 * unfinished frame's steps count as `unframed`); kept frames are deep
 * copies whose step names point into the step table, which lives as long
 * as the result.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "analysis/frames/frames_int.h"

/* ---- steps ---- */

static size_t step_hash(uint32_t name, unsigned kind, size_t cap)
{
	uint64_t k = ((uint64_t)kind << 32 | name) * 0x9e3779b97f4a7c15ull;
	return (size_t)(k >> 20) & (cap - 1);
}

static void index_put(uint32_t *index, size_t cap, uint32_t name, unsigned kind, uint32_t i)
{
	size_t h = step_hash(name, kind, cap);

	while (index[h])
		h = (h + 1) & (cap - 1);
	index[h] = i + 1;
}

static int index_rebuild(struct tl_frames_acc *a, size_t cap)
{
	uint32_t *n = calloc(cap, sizeof(*n));

	if (!n)
		return -1;
	for (size_t i = 0; i < a->r->nsteps; i++)
		index_put(n, cap, a->step_keys[i], a->r->steps[i].kind, (uint32_t)i);
	free(a->step_index);
	a->step_index = n;
	a->index_cap = cap;
	return 0;
}

struct tl_frames_step *tl_frames_step_of(struct tl_frames_acc *a, unsigned kind, uint32_t name_id, const char *name,
                                         uint32_t *idx)
{
	struct tl_frames_result *r = a->r;
	struct tl_frames_step *s;

	if (a->index_cap)
		for (size_t h = step_hash(name_id, kind, a->index_cap); a->step_index[h];
		     h = (h + 1) & (a->index_cap - 1)) {
			uint32_t i = a->step_index[h] - 1;
			if (a->step_keys[i] == name_id && r->steps[i].kind == kind) {
				*idx = i;
				return &r->steps[i];
			}
		}
	/* kept at most half full, so that probes stay short */
	if (TL_GROW(r->steps, a->capsteps, r->nsteps + 1) || TL_GROW(a->step_keys, a->capkeys, r->nsteps + 1) ||
	    ((r->nsteps + 1) * 2 > a->index_cap && index_rebuild(a, a->index_cap ? a->index_cap * 2 : 64)))
		goto oom;
	s = &r->steps[r->nsteps];
	memset(s, 0, sizeof(*s));
	if (!(s->name = strdup(name ? name : "")))
		goto oom;
	s->kind = (uint16_t)kind;
	tl_dist_init(&s->per_frame);
	a->step_keys[r->nsteps] = name_id;
	*idx = (uint32_t)r->nsteps++;
	index_put(a->step_index, a->index_cap, name_id, kind, *idx);
	return s;
oom:
	a->oom = 1;
	return NULL;
}

void tl_frames_step_ran(struct tl_frames_step *s, int32_t tid, uint32_t row, uint64_t ns)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].row == row && s->threads[i].tid == tid) {
			s->threads[i].count++;
			s->threads[i].ns += ns;
			return;
		}
	if (s->nthreads == TL_FRAMES_STEP_THREADS) {
		s->other_threads_count++;
		return;
	}
	s->threads[s->nthreads++] = (struct tl_frames_step_thread){ .tid = tid, .row = row, .count = 1, .ns = ns };
}

/* ---- frames kept in full ---- */

static void frame_copy_release(struct tl_frame *f)
{
	free(f->steps);
	free(f->threads);
}

/* A deep copy of f into *dst; 0 or -1. */
static int frame_copy(struct tl_frame *dst, const struct tl_frame *f)
{
	*dst = *f;
	dst->steps = NULL;
	dst->threads = NULL;
	if ((f->nsteps && !(dst->steps = malloc(f->nsteps * sizeof(*f->steps)))) ||
	    (f->nthreads && !(dst->threads = malloc(f->nthreads * sizeof(*f->threads))))) {
		frame_copy_release(dst);
		return -1;
	}
	if (f->nsteps)
		memcpy(dst->steps, f->steps, f->nsteps * sizeof(*f->steps));
	if (f->nthreads)
		memcpy(dst->threads, f->threads, f->nthreads * sizeof(*f->threads));
	return 0;
}

/* 1 if a is longer than b (ties: the lower id counts as longer, so the order is total). */
static int longer(const struct tl_frame *a, const struct tl_frame *b)
{
	uint64_t la = a->end - a->begin, lb = b->end - b->begin;
	return la != lb ? la > lb : a->id < b->id;
}

static void heap_swap(struct tl_frame *v, size_t i, size_t k)
{
	struct tl_frame tmp = v[i];
	v[i] = v[k];
	v[k] = tmp;
}

/* Keep the K longest complete frames: a min-heap on length in r->worst. */
static void keep_worst(struct tl_frames_acc *a, const struct tl_frame *f)
{
	struct tl_frames_result *r = a->r;
	size_t i = r->nworst;

	if (!a->o->worst)
		return;
	if (r->nworst < a->o->worst) {
		if (TL_GROW(r->worst, a->capworst, r->nworst + 1) || frame_copy(&r->worst[i], f)) {
			a->oom = 1;
			return;
		}
		for (r->nworst++; i && longer(&r->worst[(i - 1) / 2], &r->worst[i]); i = (i - 1) / 2)
			heap_swap(r->worst, i, (i - 1) / 2);
		return;
	}
	if (!longer(f, &r->worst[0]))
		return;
	frame_copy_release(&r->worst[0]);
	if (frame_copy(&r->worst[0], f)) {
		r->worst[0] = r->worst[--r->nworst];
		a->oom = 1;
		return;
	}
	for (i = 0;;) { /* sift the new root down */
		size_t c = 2 * i + 1, m = i;
		if (c < r->nworst && longer(&r->worst[m], &r->worst[c]))
			m = c;
		if (c + 1 < r->nworst && longer(&r->worst[m], &r->worst[c + 1]))
			m = c + 1;
		if (m == i)
			break;
		heap_swap(r->worst, i, m);
		i = m;
	}
}

static void keep_picked(struct tl_frames_acc *a, const struct tl_frame *f)
{
	struct tl_frames_result *r = a->r;

	for (size_t i = 0; i < a->o->nframe_ids; i++) {
		if (a->o->frame_ids[i] != f->id)
			continue;
		if (TL_GROW(r->picked, a->cappicked, r->npicked + 1) < 0 || frame_copy(&r->picked[r->npicked], f)) {
			a->oom = 1;
			return;
		}
		r->npicked++;
		return;
	}
}

/* ---- sums ---- */

static void add_complete(struct tl_frames_acc *a, const struct tl_frame *f)
{
	struct tl_frames_result *r = a->r;
	uint64_t slot = (f->end - r->run->win_start) / r->interval_ns;

	r->completed++;
	if (tl_dist_add(&r->latency, f->end - f->begin) < 0)
		a->oom = 1;
	if (!r->first_end || f->end < r->first_end)
		r->first_end = f->end;
	if (f->end > r->last_end)
		r->last_end = f->end;
	if (slot >= TL_FRAMES_MAX_BUCKETS) {
		; /* millions of intervals: not bucketed (see --interval) */
	} else if (TL_GROW(r->buckets, a->capbuckets, (size_t)slot + 1)) {
		a->oom = 1;
	} else {
		if (slot >= r->nbuckets) {
			memset(r->buckets + r->nbuckets, 0, ((size_t)slot + 1 - r->nbuckets) * sizeof(*r->buckets));
			r->nbuckets = (size_t)slot + 1;
		}
		r->buckets[slot]++;
	}
	for (size_t i = 0; i < f->nsteps; i++) {
		struct tl_frames_step *s = &r->steps[f->steps[i].step];
		s->frames++;
		s->count += f->steps[i].count;
		s->ns += f->steps[i].ns;
		if (tl_dist_add(&s->per_frame, f->steps[i].ns) < 0)
			a->oom = 1;
	}
	for (size_t i = 0; i < f->nthreads; i++) {
		const struct tl_frame_thread *ft = &f->threads[i];
		struct tl_frames_thread *t;
		if (ft->row == TL_FRAMES_NO_ROW)
			continue;
		t = &r->threads[ft->row];
		t->frames++;
		t->began += !!(ft->roles & TL_FROLE_BEGAN);
		t->ended += !!(ft->roles & TL_FROLE_ENDED);
		t->stepped += !!(ft->roles & TL_FROLE_STEPS);
		for (int s = 0; s < TL_ST__COUNT; s++)
			t->state_ns[s] += ft->state_ns[s];
	}
	keep_worst(a, f);
}

void tl_frames_add(struct tl_frames_acc *a, const struct tl_frame *f)
{
	struct tl_frames_result *r = a->r;

	if (f->complete) {
		add_complete(a, f);
	} else {
		r->unfinished++;
		if (r->nunfinished_ids < TL_FRAMES_LIST)
			r->unfinished_ids[r->nunfinished_ids++] = f->id;
		for (size_t i = 0; i < f->nsteps; i++)
			r->steps[f->steps[i].step].unframed += f->steps[i].count;
	}
	keep_picked(a, f);
	if (a->o->on_frame)
		a->o->on_frame(a->o->ctx, f);
}

void tl_frames_totals(struct tl_frames_acc *a)
{
	struct tl_frames_result *r = a->r;
	uint64_t win = r->run->win_end - r->run->win_start, range;
	uint64_t need64 = win / r->interval_ns + (win % r->interval_ns != 0);
	size_t need = need64 > TL_FRAMES_MAX_BUCKETS ? TL_FRAMES_MAX_BUCKETS : (size_t)need64;

	if (need > r->nbuckets) {
		if (TL_GROW(r->buckets, a->capbuckets, need)) {
			a->oom = 1;
		} else {
			memset(r->buckets + r->nbuckets, 0, (need - r->nbuckets) * sizeof(*r->buckets));
			r->nbuckets = need;
		}
	}
	if (r->completed >= 2 && r->last_end > r->first_end)
		r->fps = (double)(r->completed - 1) * 1e9 / (double)(r->last_end - r->first_end);
	if (win)
		r->fps_window = (double)r->completed * 1e9 / (double)win;
	/*
	 * Consecutive integers: no id can have been begun twice (begun <= the
	 * range) and at least half of [min, max] was begun; sparse ids (hashes,
	 * timestamps) and reused ones (slot numbers) fail this (docs/FRAMES.md).
	 */
	range = (uint64_t)r->id_max - (uint64_t)r->id_min + 1;
	if (r->begun && range && range >= r->begun && range - r->begun <= r->begun) {
		r->ids_consecutive = 1;
		r->ids_skipped = range - r->begun;
	}
	/* the heap, longest first (K is small) */
	for (size_t i = 1; i < r->nworst; i++)
		for (size_t k = i; k > 0 && longer(&r->worst[k], &r->worst[k - 1]); k--)
			heap_swap(r->worst, k, k - 1);
}

void tl_frames_acc_release(struct tl_frames_acc *a)
{
	free(a->step_index);
	free(a->step_keys);
	a->step_index = NULL;
	a->step_keys = NULL;
	a->index_cap = 0;
}

static void frames_release(struct tl_frame *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		frame_copy_release(&v[i]);
	free(v);
}

void tl_frames_release(struct tl_frames_result *r)
{
	for (size_t i = 0; i < r->nsteps; i++) {
		free(r->steps[i].name);
		tl_dist_release(&r->steps[i].per_frame);
	}
	free(r->steps);
	free(r->threads);
	free(r->buckets);
	tl_dist_release(&r->latency);
	frames_release(r->worst, r->nworst);
	frames_release(r->picked, r->npicked);
	memset(r, 0, sizeof(*r));
}
