/*
 * states.c - names of the thread states (see states.h).
 */
#include "timeline/states.h"

#include <strings.h>

static const char *const state_names[TL_ST__COUNT] = {
	[TL_ST_NEW] = "NEW",
	[TL_ST_RUNNABLE] = "RUNNABLE",
	[TL_ST_READY_PREEMPT] = "READY_PREEMPT",
	[TL_ST_READY_QUANTUM] = "READY_QUANTUM",
	[TL_ST_READY_YIELD] = "READY_YIELD",
	[TL_ST_EXECUTING] = "EXECUTING",
	[TL_ST_INTERRUPTED] = "INTERRUPTED",
	[TL_ST_SYNC_WAIT] = "SYNC_WAIT",
	[TL_ST_SLEEPING] = "SLEEPING",
	[TL_ST_IO_WAIT] = "IO_WAIT",
	[TL_ST_BLOCKED] = "BLOCKED",
	[TL_ST_STOPPED] = "STOPPED",
	[TL_ST_ZOMBIE] = "ZOMBIE",
	[TL_ST_UNKNOWN] = "UNKNOWN",
};

/* The report's column labels (at most 5 characters). */
static const char *const short_names[TL_ST__COUNT] = {
	[TL_ST_NEW] = "NEW",
	[TL_ST_RUNNABLE] = "RUNBL",
	[TL_ST_READY_PREEMPT] = "PREEM",
	[TL_ST_READY_QUANTUM] = "QUANT",
	[TL_ST_READY_YIELD] = "YIELD",
	[TL_ST_EXECUTING] = "EXEC",
	[TL_ST_INTERRUPTED] = "INTR",
	[TL_ST_SYNC_WAIT] = "SYNC",
	[TL_ST_SLEEPING] = "SLEEP",
	[TL_ST_IO_WAIT] = "IO",
	[TL_ST_BLOCKED] = "BLOCK",
	[TL_ST_STOPPED] = "STOP",
	[TL_ST_ZOMBIE] = "ZOMB",
	[TL_ST_UNKNOWN] = "UNKN",
};

const char *tl_state_short_name(unsigned state)
{
	return state < TL_ST__COUNT ? short_names[state] : "?";
}

const char *tl_state_name(unsigned state)
{
	return state < TL_ST__COUNT ? state_names[state] : "?";
}

int tl_state_from_name(const char *name)
{
	for (int i = 0; i < TL_ST__COUNT; i++)
		if (!strcasecmp(name, state_names[i]) || !strcasecmp(name, short_names[i]))
			return i;
	return -1;
}
