/*
 * event.c - names and small predicates of the event model (see event.h).
 *
 * The type names are part of the user interface (dump output, --type
 * filters, JSON), so they never change once released; a new type gets a
 * new name.  They are lowercase versions of the enum names.
 */
#include "trace/event.h"

#include <stdio.h>
#include <string.h>

static const char *const type_names[TL_EV__COUNT] = {
	[TL_EV_NONE] = "none",
	[TL_EV_SWITCH] = "switch",
	[TL_EV_WAKING] = "waking",
	[TL_EV_WAKEUP] = "wakeup",
	[TL_EV_WAKEUP_NEW] = "wakeup_new",
	[TL_EV_FORK] = "fork",
	[TL_EV_EXEC] = "exec",
	[TL_EV_EXIT] = "exit",
	[TL_EV_FREE] = "free",
	[TL_EV_MIGRATE] = "migrate",
	[TL_EV_RENAME] = "rename",
	[TL_EV_IRQ_ENTRY] = "irq_entry",
	[TL_EV_IRQ_EXIT] = "irq_exit",
	[TL_EV_SOFTIRQ_ENTRY] = "softirq_entry",
	[TL_EV_SOFTIRQ_EXIT] = "softirq_exit",
	[TL_EV_FUTEX_ENTER] = "futex_enter",
	[TL_EV_FUTEX_EXIT] = "futex_exit",
	[TL_EV_BLOCK_ISSUE] = "block_issue",
	[TL_EV_BLOCK_COMPLETE] = "block_complete",
	[TL_EV_THREAD] = "thread",
	[TL_EV_LOST] = "lost",
	[TL_EV_RUNTIME] = "runtime",
	[TL_EV_YIELD_ENTER] = "yield_enter",
	[TL_EV_YIELD_EXIT] = "yield_exit",
	[TL_EV_FRAME_BEGIN] = "frame_begin",
	[TL_EV_FRAME_END] = "frame_end",
	[TL_EV_REGION_BEGIN] = "region_begin",
	[TL_EV_REGION_END] = "region_end",
	[TL_EV_TASK_BEGIN] = "task_begin",
	[TL_EV_TASK_END] = "task_end",
	[TL_EV_INSTANT] = "instant",
	[TL_EV_FUNC_ENTRY] = "func_entry",
	[TL_EV_FUNC_EXIT] = "func_exit",
	[TL_EV_MARKS_LOST] = "marks_lost",
	[TL_EV_KSTAT] = "kstat",
	[TL_EV_KSTAT_CSW] = "kstat_csw",
	[TL_EV_KSTAT_CPU] = "kstat_cpu",
	[TL_EV_FILTERED] = "filtered",
	[TL_EV_AFFINITY] = "affinity",
	[TL_EV_SAMPLE] = "sample",
	[TL_EV_MAP] = "map",
	[TL_EV_KSYM] = "ksym",
	[TL_EV_YIELD_SPIN] = "yield_spin",
	[TL_EV_FUTEX_WAIT] = "futex_wait",
	[TL_EV_FUTEX_NAME] = "futex_name",
	[TL_EV_JSYM] = "jsym",
	[TL_EV_CLOCK_TAKEN] = "clock_taken",
};

const char *tl_softirq_name(int64_t vec)
{
	/* the kernel's enum in include/linux/interrupt.h, stable since 2.6.36 */
	static const char *const names[] = { "HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
		                             "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU" };

	return vec >= 0 && vec < (int64_t)(sizeof(names) / sizeof(names[0])) ? names[vec] : "?";
}

const char *tl_vector_name(int64_t kind)
{
	static const char *const names[TL_VEC__COUNT] = {
		[TL_VEC_OTHER] = "vector",
		[TL_VEC_LOCAL_TIMER] = "local_timer",
		[TL_VEC_RESCHEDULE] = "reschedule",
		[TL_VEC_CALL_FUNCTION] = "call_function",
		[TL_VEC_CALL_FUNCTION_SINGLE] = "call_function_single",
		[TL_VEC_PLATFORM_IPI] = "x86_platform_ipi",
	};

	return kind > 0 && kind < TL_VEC__COUNT ? names[kind] : names[TL_VEC_OTHER];
}

const char *tl_event_type_name(unsigned type)
{
	if (type >= TL_EV__COUNT || !type_names[type])
		return "?";
	return type_names[type];
}

int tl_futex_wait_locks(int64_t op, int64_t val)
{
	switch (op & TL_FUTEX_CMD_MASK) {
	case TL_FUTEX_WAIT:
	case TL_FUTEX_LOCK_PI:
	case TL_FUTEX_LOCK_PI2: return 1;
	case TL_FUTEX_WAIT_BITSET: return (uint32_t)val == 2 || (uint32_t)val == 3;
	default: return 0;
	}
}

int tl_futex_op_waits(int64_t op)
{
	switch (op & TL_FUTEX_CMD_MASK) {
	case TL_FUTEX_WAIT:
	case TL_FUTEX_WAIT_BITSET:
	case TL_FUTEX_LOCK_PI:
	case TL_FUTEX_LOCK_PI2:
	case TL_FUTEX_WAIT_REQUEUE_PI:
	case TL_FUTEX_WAITV: return 1;
	default:
		/* WAKE*, UNLOCK_PI, TRYLOCK_PI (never sleeps), REQUEUE, ... */
		return 0;
	}
}

const char *tl_prev_state_str(int64_t state, char *buf, unsigned len)
{
	/* The kernel's order and letters (sched_switch's print fmt). */
	static const struct {
		int64_t bit;
		char letter;
	} letters[] = {
		{ TL_PS_S, 'S' }, { TL_PS_D, 'D' }, { TL_PS_T, 'T' }, { TL_PS_TRACED, 't' },
		{ TL_PS_X, 'X' }, { TL_PS_Z, 'Z' }, { TL_PS_P, 'P' }, { TL_PS_I, 'I' },
	};
	char tmp[32];
	unsigned n = 0;

	if (!buf || !len)
		return "";
	for (unsigned i = 0; i < sizeof(letters) / sizeof(letters[0]); i++) {
		if (!(state & letters[i].bit))
			continue;
		if (n)
			tmp[n++] = '|';
		tmp[n++] = letters[i].letter;
	}
	if (!n)
		tmp[n++] = 'R';
	if (state & TL_PS_PREEMPT)
		tmp[n++] = '+';
	tmp[n] = 0;
	snprintf(buf, len, "%s", tmp);
	return buf;
}
