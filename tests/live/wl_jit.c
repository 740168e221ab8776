/*
 * wl_jit.c - a workload for `threadlens profile` of JIT-compiled code:
 * it writes two functions' machine code into an anonymous executable
 * mapping, names them in /tmp/perf-PID.map as a JIT does (V8's
 * --perf-basic-prof), and spends N ms of CPU time in one of them.
 *
 *   wl_jit [--ms N]
 *
 * "jit_spin" (count a register down to zero) runs for N ms of the thread's
 * CPU time (default 400); "jit_idle", mapped beside it, never runs.  The
 * map file is left behind, as a JIT leaves it (the recorder reads it when
 * the recording ends; the test removes it).  It prints its truth as one
 * JSON line: its pid, the map's path, the two functions' addresses.
 * x86-64 only: elsewhere it exits 77 (WL_EXIT_SKIP).  Exit status: 0, 1 on
 * a failure (said on stderr), 2 for bad usage.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

#if defined(__x86_64__)
/* long f(long n): mov %rdi,%rax; 1: sub $1,%rax; jnz 1b; ret */
static const unsigned char spin_code[] = { 0x48, 0x89, 0xf8, 0x48, 0x83, 0xe8, 0x01, 0x75, 0xfa, 0xc3 };
#define IDLE_OFFSET 64 /* jit_idle's code: the same, elsewhere in the mapping */

int main(int argc, char **argv)
{
	long ms = 400;
	char path[64];
	unsigned char *code;
	long (*spin)(long);
	uint64_t c0;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ms") && i + 1 < argc && (ms = atol(argv[++i])) > 0)
			continue;
		fprintf(stderr, "usage: wl_jit [--ms N]\n");
		return 2;
	}
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("wl_jit: mmap");
		return 1;
	}
	memcpy(code, spin_code, sizeof(spin_code));
	memcpy(code + IDLE_OFFSET, spin_code, sizeof(spin_code));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC)) {
		perror("wl_jit: mprotect");
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(f = fopen(path, "w"))) {
		perror("wl_jit: /tmp/perf-PID.map");
		return 1;
	}
	fprintf(f, "%" PRIxPTR " %zx jit_spin\n%" PRIxPTR " %zx jit_idle\n", (uintptr_t)code, sizeof(spin_code),
	        (uintptr_t)(code + IDLE_OFFSET), sizeof(spin_code));
	if (fclose(f)) {
		perror("wl_jit: /tmp/perf-PID.map");
		return 1;
	}
	spin = (long (*)(long))(uintptr_t)code;
	c0 = wl_cpu_ns();
	while (wl_cpu_ns() - c0 < (uint64_t)ms * 1000000)
		spin(200000);
	printf("{\"pid\": %d, \"map\": \"%s\", \"jit_spin\": %" PRIuPTR ", \"jit_idle\": %" PRIuPTR "}\n",
	       (int)getpid(), path, (uintptr_t)code, (uintptr_t)(code + IDLE_OFFSET));
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "wl_jit: x86-64 only\n");
	return WL_EXIT_SKIP;
}
#endif
