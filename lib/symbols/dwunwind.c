/*
 * dwunwind.c - user stacks unwound with libdwfl (see dwunwind.h).
 *
 * Invariants: procs[] holds one Dwfl per process, reported from its maps
 * and attached (dwfl_attach_state) to callbacks that read `cur`, the
 * sample being unwound; a Dwfl that failed to report or attach is kept
 * as NULL so that a process that cannot be read is not retried at every
 * sample.  A forgotten process's modules are read again at its next
 * sample; if it is gone by then (its last samples are read after its
 * exit), the Dwfl read while it lived is kept.  A walk that ends at an address in none of a Dwfl's modules
 * looks the address up in the process's maps (at most every CHECK_NS):
 * in a file's executable mapping, the modules were reported before that
 * library was mapped, and are read again.
 */
#include "symbols/dwunwind.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "base/tidmap.h"

struct proc {
	int32_t pid; /* the tidmap's key, first */
	Dwfl *dwfl;  /* NULL: cannot be unwound */
	int tried;
	int stale;           /* tl_unwinder_forget(): read its modules again at the next sample, if it still lives */
	uint64_t checked_ns; /* CLOCK_MONOTONIC of its last look at its maps for an address in no module */
};

#define CHECK_NS 10000000ull /* 10 ms: a JIT's code is in no module at every sample */

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

	Dwfl *d;

	if (!p)
		return NULL;
	if (p->tried && !p->stale)
		return p->dwfl;
	p->tried = 1;
	p->stale = 0;
	if (!(d = dwfl_begin(&proc_callbacks)))
		return p->dwfl;
	if (dwfl_linux_proc_report(d, pid) != 0 || dwfl_report_end(d, NULL, NULL) != 0 ||
	    !dwfl_attach_state(d, NULL, pid, &thread_callbacks, u)) {
		dwfl_end(d);
		return p->dwfl; /* gone: the modules read while it lived still unwind its last samples */
	}
	if (p->dwfl)
		dwfl_end(p->dwfl);
	return p->dwfl = d;
}

/* 1 if address a of process pid lies in an executable mapping of a file (its maps line has 'x' and a path). */
static int in_file_code(int32_t pid, uint64_t a)
{
	char path[64], line[4096];
	FILE *f;
	int yes = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perms[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &lo, &hi, perms, &n) < 3 || a < lo || a >= hi)
			continue;
		yes = strchr(perms, 'x') && n > 0 && line[n] == '/';
		break;
	}
	fclose(f);
	return yes;
}

/*
 * 1 if the walk just made ended at an address in none of dwfl's modules
 * that the process's maps show in a file's code (looked at most every
 * CHECK_NS): its modules are then forgotten, to be read again.
 */
static int stale(struct tl_unwinder *u, int32_t pid, Dwfl *dwfl)
{
	struct proc *p = tl_tidmap_get(&u->procs, pid);
	uint64_t last = u->cur.n ? u->cur.frames[u->cur.n - 1] : u->cur.regs[0], now;
	struct timespec ts;

	if (!p || dwfl_addrmodule(dwfl, last))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (p->checked_ns && now - p->checked_ns < CHECK_NS)
		return 0;
	p->checked_ns = now;
	if (!in_file_code(pid, last))
		return 0;
	tl_unwinder_forget(u, pid);
	return 1;
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
	if (stale(u, pid, dwfl) && (dwfl = dwfl_of(u, pid))) {
		u->cur = (struct sample){ tid, regs, stack, len, frames, 0, max };
		dwfl_getthread_frames(dwfl, tid, on_frame, u);
	}
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

	if (p)
		p->stale = 1;
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
