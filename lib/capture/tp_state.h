/*
 * tp_state.h - sched_switch's prev_state: the kernel's task-state bits in
 * the portable TL_PS_* terms (event.h), derived from the tracepoint's print
 * fmt.  Internal to the tracepoint decoder (tp_decode.c); split from it to
 * keep each file one job.
 *
 * The kernel's bits and letters changed between releases (docs/RECORD.md,
 * "prev_state"), so nothing here assumes them: the mapping is read from the
 * __print_flags() and the "+" ternary of the print fmt, with the table of
 * Linux 4.14+ as the fallback when the print fmt is not understood.
 */
#ifndef TL_TP_STATE_H
#define TL_TP_STATE_H

#include <stddef.h>
#include <stdint.h>

#define TL_TP_MAX_STATE_BITS 24

struct tl_tp_state_map {
	int n;
	uint64_t kval[TL_TP_MAX_STATE_BITS];
	int64_t tl[TL_TP_MAX_STATE_BITS];
	uint64_t mask;    /* bits __print_flags() looks at */
	uint64_t preempt; /* the "+" bit (TASK_REPORT_MAX, or TASK_STATE_MAX on old kernels) */
	int fallback;
	int noload; /* the map has an "N" (TASK_NOLOAD) letter: D|N is TASK_IDLE */
};

struct tep_event;

/* The built-in mapping of Linux 4.14 and later, with fallback = 1. */
void tl_tp_state_default(struct tl_tp_state_map *m);

/*
 * Derive the mapping from sched_switch's parsed print fmt.  Returns 0 with
 * *m set (fallback = 0), or -1 (m untouched) if the print fmt does not
 * show the prev_state flags in a form this code understands.
 */
int tl_tp_state_derive(struct tl_tp_state_map *m, const struct tep_event *ev);

/* The mapping as text, e.g. "S=0x1 D=0x2 ... preempt=0x100 (from print fmt)", into buf. */
const char *tl_tp_state_desc(const struct tl_tp_state_map *m, char *buf, size_t len);

#endif
