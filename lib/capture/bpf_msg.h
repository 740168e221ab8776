/*
 * bpf_msg.h - libbpf's messages while threadlens loads an eBPF program:
 * kept from stderr, and the last one turned into the reason a load failed.
 * Shared by the probe (bpf_probe.c) and the recorder's back end
 * (bpf_rec.c).  TL_BPF_DEBUG=1 in the environment prints every message
 * (the verifier's log) instead.
 */
#ifndef TL_BPF_MSG_H
#define TL_BPF_MSG_H

#include <bpf/libbpf.h>

/* Start catching libbpf's messages (forgetting earlier ones); returns what to hand tl_bpf_msg_end(). */
libbpf_print_fn_t tl_bpf_msg_begin(void);

/* Stop catching them. */
void tl_bpf_msg_end(libbpf_print_fn_t old);

/*
 * tl_error() for a failed step `what` with libbpf error err (< 0): missing
 * privileges said as such, else libbpf's last message, else strerror.
 * Returns -1.
 */
int tl_bpf_fail(const char *what, int err);

#endif
