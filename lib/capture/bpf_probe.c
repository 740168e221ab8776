/*
 * bpf_probe.c - load switch_count.bpf.c for a moment and read its counts
 * (see bpf_probe.h).  The program's object is compiled into the binary
 * through the skeleton that `bpftool gen skeleton` makes at build time
 * (capture/bpf/switch_count.skel.h, in the build directory).
 */
#include "capture/bpf_probe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/errors.h"
#include "capture/bpf_msg.h"
#include "capture/bpf/switch_count.skel.h" /* generated: bpftool gen skeleton */

int tl_bpf_probe(unsigned ms, struct tl_bpf_probe *r)
{
	libbpf_print_fn_t old = tl_bpf_msg_begin();
	struct switch_count *skel = NULL;
	uint64_t vals[TL_BPF_PROBE_MAX_CPUS];
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	int err, ncpus;

	memset(r, 0, sizeof(*r));
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0 || ncpus > TL_BPF_PROBE_MAX_CPUS) {
		tl_bpf_msg_end(old);
		return tl_error("eBPF: cannot tell the number of CPUs (%d)", ncpus);
	}
	skel = switch_count__open();
	if (!skel) {
		err = tl_bpf_fail("eBPF: cannot open the sched_switch program", -errno);
		goto out;
	}
	err = switch_count__load(skel);
	if (err) {
		err = tl_bpf_fail("eBPF: the kernel did not load the sched_switch program", err);
		goto out;
	}
	err = switch_count__attach(skel);
	if (err) {
		err = tl_bpf_fail("eBPF: cannot attach to raw_tp/sched_switch", err);
		goto out;
	}
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	switch_count__detach(skel);
	r->ncpus = ncpus;
	for (uint32_t key = 0; key < 2; key++) {
		if (bpf_map__lookup_elem(skel->maps.counts, &key, sizeof(key), vals, (size_t)ncpus * sizeof(vals[0]),
		                         0)) {
			err = tl_bpf_fail("eBPF: cannot read the counts", -errno);
			goto out;
		}
		for (int c = 0; c < ncpus; c++) {
			if (key == 0) {
				r->out_of_idle[c] = vals[c];
				r->total_out += vals[c];
			} else {
				r->into_idle[c] = vals[c];
				r->total_into += vals[c];
			}
		}
	}
	err = 0;
out:
	switch_count__destroy(skel);
	tl_bpf_msg_end(old);
	return err;
}
