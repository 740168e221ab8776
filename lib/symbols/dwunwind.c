/*
 * dwunwind.c - user stacks unwound with libdwfl (see dwunwind.h).
 *
 * Invariants: procs[] holds one Dwfl per process, reported from its maps
 * and attached (dwfl_attach_state) to callbacks that read `cur`, the
 * sample being unwound; a Dwfl that failed to report or attach is kept
 * as NULL so that a process that cannot be read is not retried at every
 * sample.
 */
#include "symbols/dwunwind.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/tidmap.h"

struct proc {
	int32_t pid; /* the tidmap's key, first */
	Dwfl *dwfl;  /* NULL: cannot be unwound */
	int tried;
};

struct sample {
	int32_t tid;
	const uint64_t *regs;
	const uint8_t *stack;
	size_t len;
	uint64_t *frames;
	unsigned n, max;
};

struct tl_unwinder {
	struct tl_tidmap procs; /* pid -> struct proc */
	struct sample cur;
};

static char *debuginfo_path = NULL;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* dwfl's thread callbacks: one thread, the sample's */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct tl_unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->cur.tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* A word of the copied stack; anything else is unknown, which ends the walk. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct tl_unwinder *u = arg;
	uint64_t sp = u->cur.regs[1];

	(void)dwfl;
	if (addr < sp || addr - sp > u->cur.len || u->cur.len - (addr - sp) < sizeof(uint64_t))
		return false;
	memcpy(result, u->cur.stack + (addr - sp), sizeof(uint64_t));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct tl_unwinder *u = arg;
	/* x86-64 DWARF registers 6 and 7: rbp, rsp */
	Dwarf_Word bp_sp[2] = { u->cur.regs[2], u->cur.regs[1] };

	dwfl_thread_state_register_pc(thread, u->cur.regs[0]);
	return dwfl_thread_state_registers(thread, 6, 2, bp_sp);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct tl_unwinder *u = arg;
	struct sample *c = &u->cur;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || !pc || c->n >= c->max)
		return DWARF_CB_ABORT;
	if (c->n > 1 && c->frames[c->n - 1] == pc)
		return DWARF_CB_ABORT; /* no progress: a loop in bad CFI */
	c->frames[c->n++] = pc;
	return DWARF_CB_OK;
}

struct tl_unwinder *tl_unwinder_new(void)
{
	struct tl_unwinder *u = calloc(1, sizeof(*u));

	if (!u || tl_tidmap_init(&u->procs, sizeof(struct proc)) < 0) {
		free(u);
		tl_error("out of memory");
		return NULL;
	}
	return u;
}

/* The process's Dwfl, reported and attached on first use; NULL if it cannot be. */
static Dwfl *dwfl_of(struct tl_unwinder *u, int32_t pid)
{
	int created = 0;
	struct proc *p = tl_tidmap_put(&u->procs, pid, &created);

	if (!p)
		return NULL;
	if (p->tried)
		return p->dwfl;
	p->tried = 1;
	if (!(p->dwfl = dwfl_begin(&proc_callbacks)))
		return NULL;
	if (dwfl_linux_proc_report(p->dwfl, pid) != 0 || dwfl_report_end(p->dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(p->dwfl, NULL, pid, &thread_callbacks, u)) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
	}
	return p->dwfl;
}

unsigned tl_unwind(struct tl_unwinder *u, int32_t pid, int32_t tid, const uint64_t regs[3], const uint8_t *stack,
                   size_t len, uint64_t *frames, unsigned max)
{
	Dwfl *dwfl;

	if (!max)
		return 0;
	frames[0] = regs[0];
#if defined(__x86_64__)
	if (pid <= 0 || tid <= 0 || !(dwfl = dwfl_of(u, pid)))
		return 1;
	u->cur = (struct sample){ tid, regs, stack, len, frames, 0, max };
	dwfl_getthread_frames(dwfl, tid, on_frame, u);
	return u->cur.n ? u->cur.n : 1;
#else
	(void)dwfl;
	(void)u;
	(void)pid;
	(void)tid;
	(void)stack;
	(void)len;
	return 1;
#endif
}

void tl_unwinder_forget(struct tl_unwinder *u, int32_t pid)
{
	struct proc *p = tl_tidmap_get(&u->procs, pid);

	if (!p)
		return;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->tried = 0;
}

void tl_unwinder_free(struct tl_unwinder *u)
{
	size_t pos = 0;
	struct proc *p;

	if (!u)
		return;
	while ((p = tl_tidmap_next(&u->procs, &pos)))
		if (p->dwfl)
			dwfl_end(p->dwfl);
	tl_tidmap_release(&u->procs);
	free(u);
}
