/*
 * frames_int.h - what the two halves of the frames analysis share: the pass
 * (frames.c: threads, open frames, walk callbacks) and the result side
 * (frames_sum.c: the step table, summing finished frames, keeping the
 * longest and the picked ones).  Not a public interface: only frames*.c
 * include it.
 */
#ifndef TL_FRAMES_INT_H
#define TL_FRAMES_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/frames/frames.h"

#define TL_FRAMES_NO_ROW UINT32_MAX

/* The result being built, with the capacities of its arrays and the step index. */
struct tl_frames_acc {
	struct tl_frames_result *r;
	const struct tl_frames_opts *o;
	size_t capthreads, capsteps, capkeys, capbuckets, capworst, cappicked;
	uint32_t *step_index; /* open addressing on (kind, name id) -> step index + 1 */
	uint32_t *step_keys;  /* name id of each step */
	size_t index_cap;     /* a power of two, or 0 */
	int oom;
};

/*
 * The step (kind, name id), made on first sight with a copy of `name`; its
 * index in *idx.  NULL (and a->oom set) when out of memory.
 */
struct tl_frames_step *tl_frames_step_of(struct tl_frames_acc *a, unsigned kind, uint32_t name_id, const char *name,
                                         uint32_t *idx);

/* Count one occurrence of step s, `ns` long, run by thread tid (row: its thread row or TL_FRAMES_NO_ROW). */
void tl_frames_step_ran(struct tl_frames_step *s, int32_t tid, uint32_t row, uint64_t ns);

/*
 * Sum a finished frame into the result (counts, latency, throughput,
 * steps, threads), keep a copy if it is among the longest or was asked
 * for, then hand it to on_frame.  Sets a->oom when out of memory.
 */
void tl_frames_add(struct tl_frames_acc *a, const struct tl_frame *f);

/* After the last frame: bucket count, rates, the id rule, the longest frames in order. */
void tl_frames_totals(struct tl_frames_acc *a);

/* Free the step index (not the result). */
void tl_frames_acc_release(struct tl_frames_acc *a);

#endif
