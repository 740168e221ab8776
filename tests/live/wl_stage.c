/*
 * wl_stage.c - a pipeline of two processes whose first stage is the
 * bottleneck: a slow encoder feeding a fast muxer through a pipe.
 *
 *   wl_stage [--items N] [--work US]
 *
 * The process 'encode' (the parent) computes US microseconds of CPU per
 * item (default 500) and writes the item (8 bytes) to a pipe; its child
 * 'mux' reads them one at a time and computes 5 us on each.  N items
 * (default 2000).  The muxer measures with its own clock the time it
 * spends in read() (waiting for the encoder) and the kernel's count of its
 * time on a run queue (schedstat), the encoder its CPU time.  Each item
 * is the encoder's clock (CLOCK_MONOTONIC) right before its write(): a
 * read that began before it waited that long for the encoder (the rest of
 * the read, from the write to the read's return, is the wakeup's way to a
 * CPU), summed as "mux_wait_ns".  The encoder waits for the muxer to exit
 * and prints one JSON line of truth: {"items": N, "mux_read_ns": R,
 * "mux_reads": N, "mux_wait_ns": W, "mux_runq_ns": Q, "encode_cpu_ns": C,
 * "mux_pid": P}.  Exit status: 0, 1 if the pipeline failed, 2 for bad
 * usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

#define US 1000ull

/* The muxer: read items until the pipe closes; its time in read() goes to the parent through `report`. */
static int mux(int in, int report, unsigned items)
{
	uint64_t read_ns = 0, waited = 0, v, n = 0, run, wait = 0, slices;

	wl_set_name("mux");
	while (n < items) {
		uint64_t t0 = wl_now_ns();
		ssize_t r = read(in, &v, sizeof(v));

		read_ns += wl_now_ns() - t0;
		if (r != (ssize_t)sizeof(v))
			break;
		if (v > t0)
			waited += v - t0; /* written after the read began: it waited for the encoder */
		n++;
		wl_spin_cpu(5 * US);
	}
	wl_schedstat(&run, &wait, &slices);
	if (write(report, &read_ns, sizeof(read_ns)) != (ssize_t)sizeof(read_ns) ||
	    write(report, &n, sizeof(n)) != (ssize_t)sizeof(n) ||
	    write(report, &wait, sizeof(wait)) != (ssize_t)sizeof(wait) ||
	    write(report, &waited, sizeof(waited)) != (ssize_t)sizeof(waited))
		return 1;
	return n == items ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned items = 2000, work_us = 500;
	int data[2], report[2], status;
	uint64_t read_ns = 0, reads = 0, runq = 0, waited = 0, c0;
	pid_t child;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--items") && i + 1 < argc)
			items = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--work") && i + 1 < argc)
			work_us = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: wl_stage [--items N] [--work US]\n");
			return 2;
		}
	}
	if (!items || !work_us || pipe(data) || pipe(report)) {
		fprintf(stderr, "wl_stage: bad arguments, or no pipe\n");
		return 2;
	}
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(data[1]);
		close(report[0]);
		_exit(mux(data[0], report[1], items));
	}
	close(data[0]);
	close(report[1]);
	wl_set_name("encode");
	c0 = wl_cpu_ns();
	for (uint64_t i = 0; i < items; i++) {
		uint64_t now;

		wl_spin_cpu(work_us * US);
		now = wl_now_ns();
		if (write(data[1], &now, sizeof(now)) != (ssize_t)sizeof(now))
			return 1;
	}
	close(data[1]);
	if (read(report[0], &read_ns, sizeof(read_ns)) != (ssize_t)sizeof(read_ns) ||
	    read(report[0], &reads, sizeof(reads)) != (ssize_t)sizeof(reads) ||
	    read(report[0], &runq, sizeof(runq)) != (ssize_t)sizeof(runq) ||
	    read(report[0], &waited, sizeof(waited)) != (ssize_t)sizeof(waited) ||
	    waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	printf("{\"items\": %u, \"mux_read_ns\": %llu, \"mux_reads\": %llu, \"mux_wait_ns\": %llu, "
	       "\"mux_runq_ns\": %llu, \"encode_cpu_ns\": %llu, \"mux_pid\": %d}\n",
	       items, (unsigned long long)read_ns, (unsigned long long)reads, (unsigned long long)waited,
	       (unsigned long long)runq, (unsigned long long)(wl_cpu_ns() - c0), (int)child);
	return 0;
}
