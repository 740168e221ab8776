/*
 * predict_int.h - the task tree shared by predict.c (which builds it and
 * simulates it) and unmark.c (which takes the marker calls' cost out of
 * it).  Not an API: only lib/analysis/predict/ includes it.
 *
 * Invariants: nodes[0] is the root; a node's children are in begin order
 * and lie inside it, and siblings do not overlap, so a depth-first walk
 * (begin, the children, end) meets the times in order.
 */
#ifndef TL_PREDICT_INT_H
#define TL_PREDICT_INT_H

#include "analysis/predict/predict.h"

struct node {
	uint64_t begin, end;
	const struct tl_directive *dir;
	int32_t region;       /* index in result regions for a `parallel` task, else -1 */
	uint32_t child, next; /* first child, next sibling: node indices, 0 = none */
};

/*
 * Take the markers' own cost out of the tree of `ntasks` tasks (o->marker_ns:
 * -1 estimate it, 0 leave the times, N ns a call) and say so in r->markers.
 * The times are remapped in order, each gap between two consecutive
 * marker times losing min(gap, cost).
 */
void tl_predict_unmark(struct node *nodes, size_t ntasks, const struct tl_predict_opts *o, struct tl_predict_result *r);

#endif
