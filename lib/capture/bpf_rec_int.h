/*
 * bpf_rec_int.h - the eBPF back end's state, shared by its files:
 * bpf_rec.c (loading, reading the ring) and bpf_uprobe.c (the uprobes of
 * markers, OpenMP regions and --func).  Not for other users: bpf_rec.h is
 * the interface.
 */
#ifndef TL_BPF_REC_INT_H
#define TL_BPF_REC_INT_H

#include "capture/bpf_rec.h"
#include "capture/sample_events.h"

struct record;
struct ring_buffer;
struct bpf_link;

struct tl_bpf_rec {
	struct record *skel;
	struct ring_buffer *rb;
	int ncpus;
	int vectors;                             /* 1: the local timer's programs are loaded (trace META irq_vectors) */
	int nsample;                             /* record --sample: one perf event per event and CPU */
	char skipped[TL_SAMPLE_MAX_EVENTS][256]; /* why an event is not sampled; "" if it is */
	int *sample_fds;
	struct bpf_link **sample_links;
	struct bpf_link **mark_links; /* uprobes attached through perf events (markers, OpenMP, --func) */
	int nmark_links;
	int *multi_fds; /* the same as uprobe_multi links (kernel 6.6 and later): bpf_uprobe.c */
	int nmulti;
	int multi; /* 1: the uprobe programs were loaded for uprobe_multi links */
	/* during a drain */
	int (*fn)(void *ctx, const struct tl_bpf_event *ev);
	void *ctx;
	uint64_t *malformed;
	int failed;
};

/*
 * Before the skeleton is loaded: turn the uprobe programs on for `umarks`
 * (TL_BPF_UMARKS, TL_BPF_USPANS) and, when the kernel has uprobe_multi
 * links, load them for those (r->multi).
 */
void tl_bpf_rec_uprobes_prepare(struct tl_bpf_rec *r, int umarks);

/* Remove every uprobe (at close). */
void tl_bpf_rec_unlink_all(struct tl_bpf_rec *r);

#endif
