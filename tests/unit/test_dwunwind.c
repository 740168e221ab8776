/*
 * test_dwunwind.c - symbols/dwunwind.h on this very process: a function
 * takes its own registers and a copy of its stack, as the recorder's
 * --stack dwarf program does for a sampled thread, and unwinds them.  The
 * frames must be its own address, then exactly the return addresses the
 * compiler gives (__builtin_return_address) into its caller and the
 * caller's caller: the CFI of this binary (built without caring for frame
 * pointers), read by libdwfl from /proc/self/maps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#include "symbols/dwunwind.h"

/* The end of the [stack] mapping that holds addr, from /proc/self/maps; 0 if not found. */
static uint64_t stack_end(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t lo, hi, end = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= addr && addr < hi)
			end = hi;
	if (f)
		fclose(f);
	return end;
}

/* A copy of raw stack memory, redzones and all: not checked by AddressSanitizer. */
static __attribute__((noinline, no_sanitize_address)) void copy_raw(uint8_t *to, const volatile uint8_t *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
}

static uint64_t ret1, ret2; /* the return addresses into level1 and into the test */
static pid_t unwind_pid;    /* whose modules unwind it: 0, this process */

static __attribute__((noinline)) unsigned level2(struct tl_unwinder *u, uint64_t *frames, unsigned max)
{
	uint64_t regs[3], end;
	static uint8_t copy[16384];
	size_t len;

#if defined(__x86_64__)
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
	                 : "=r"(regs[0]), "=r"(regs[1]), "=r"(regs[2]));
#else
	return 0;
#endif
	ret1 = (uint64_t)__builtin_return_address(0);
	end = stack_end(regs[1]);
	len = end > regs[1] ? end - regs[1] : 0;
	if (len > sizeof(copy))
		len = sizeof(copy);
	copy_raw(copy, (const volatile uint8_t *)regs[1], len);
	return tl_unwind(u, unwind_pid ? unwind_pid : getpid(), gettid(), regs, copy, len, frames, max);
}

static __attribute__((noinline)) unsigned level1(struct tl_unwinder *u, uint64_t *frames, unsigned max)
{
	unsigned n;

	ret2 = (uint64_t)__builtin_return_address(0);
	n = level2(u, frames, max);
	__asm__ volatile("" ::: "memory"); /* no tail call: level1 keeps its frame */
	return n;
}

TEST(unwind_self)
{
	struct tl_unwinder *u = tl_unwinder_new();
	uint64_t frames[64];
	unsigned n;

	CHECK(u != NULL);
	if (!u)
		return;
	n = level1(u, frames, 64);
#if defined(__x86_64__)
	CHECK(n >= 3);
	if (n >= 3) {
		CHECK(frames[1] == ret1);
		CHECK(frames[2] == ret2);
	}
	/* at most max frames */
	CHECK_EQ_INT(level1(u, frames, 2), 2);
	/* a process that is not there: the sampled address alone */
	{
		uint64_t regs[3] = { 0x401000, 0, 0 };
		CHECK_EQ_INT(tl_unwind(u, 999999999, 999999999, regs, NULL, 0, frames, 64), 1);
		CHECK(frames[0] == 0x401000);
	}
#endif
	tl_unwinder_forget(u, getpid());
	tl_unwinder_forget(u, 12345); /* never seen: nothing to do */
	tl_unwinder_free(u);
}

/*
 * A process gone when its samples are unwound (a recording reads its last
 * ones after its exit): the modules read while it lived still unwind them
 * after tl_unwinder_forget(), which re-reads them only if it is there.  A
 * forked child runs this image at the same addresses, so this stack
 * unwinds with its modules as with ours.
 */
TEST(unwind_after_exit)
{
	struct tl_unwinder *u = tl_unwinder_new();
	uint64_t frames[64];
	pid_t child;
	unsigned n;

	CHECK(u != NULL);
	if (!u)
		return;
#if defined(__x86_64__)
	if ((child = fork()) == 0) {
		pause();
		_exit(0);
	}
	CHECK(child > 0);
	unwind_pid = child;
	CHECK(level1(u, frames, 64) >= 3);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	tl_unwinder_forget(u, child);
	n = level1(u, frames, 64);
	CHECK(n >= 3);
	if (n >= 3)
		CHECK(frames[1] == ret1 && frames[2] == ret2);
	unwind_pid = 0;
#endif
	tl_unwinder_free(u);
}

int main(void)
{
	RUN_TESTS(unwind_self, unwind_after_exit);
}
