/*
 * dwunwind.h - a user stack unwound with the DWARF call-frame information
 * of the process's files (`record --stack dwarf`): code built without
 * frame pointers still gets its callers.
 *
 * The recorder copies, at each sample, the thread's user registers (ip,
 * sp, bp) and the top of its user stack (capture/bpf/sample.h); this walks
 * that copy with libdwfl: the process's modules are read from
 * /proc/PID/maps while it lives (once per process; again after
 * tl_unwinder_forget() if it still lives, else the modules read before
 * stay; again when a walk ends at an address of a file's code that none
 * of them holds: a library mapped after the reading), each module's CFI (.eh_frame, .debug_frame) from
 * its file, and every stack read the CFI asks for is answered from the
 * copy; an address outside it ends the walk.  x86-64 only: elsewhere
 * tl_unwind() returns the sampled address alone.
 *
 * Not thread-safe: one unwinder per recording.
 */
#ifndef TL_DWUNWIND_H
#define TL_DWUNWIND_H

#include <stddef.h>
#include <stdint.h>

struct tl_unwinder;

/* NULL with tl_error set (out of memory). */
struct tl_unwinder *tl_unwinder_new(void);

/*
 * The frames of thread tid of process pid, innermost first (regs[0], the
 * sampled address, then the return addresses), at most max: their number
 * (at least 1).  regs: ip, sp, bp; stack: len bytes copied from sp.
 */
unsigned tl_unwind(struct tl_unwinder *u, int32_t pid, int32_t tid, const uint64_t regs[3], const uint8_t *stack,
                   size_t len, uint64_t *frames, unsigned max);

/* Process pid's code changed (exec, a new mapping) or it ended: read its modules again next time. */
void tl_unwinder_forget(struct tl_unwinder *u, int32_t pid);

void tl_unwinder_free(struct tl_unwinder *u);

#endif
