/*
 * bpf_msg.c - libbpf's messages caught while loading (see bpf_msg.h).
 */
#include "capture/bpf_msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"

/* The last line libbpf wanted to print: the reason a load failed. */
static __thread char last_msg[256];

static int keep_last(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[256];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = 0;
	if (n)
		snprintf(last_msg, sizeof(last_msg), "%s", line);
	return 0;
}

static int print_all(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

libbpf_print_fn_t tl_bpf_msg_begin(void)
{
	last_msg[0] = 0;
	return libbpf_set_print(getenv("TL_BPF_DEBUG") ? print_all : keep_last);
}

void tl_bpf_msg_end(libbpf_print_fn_t old)
{
	libbpf_set_print(old);
}

int tl_bpf_fail(const char *what, int err)
{
	if (err == -EPERM || err == -EACCES || (geteuid() != 0 && err))
		return tl_error("%s: permission denied (eBPF needs root, or CAP_BPF and CAP_PERFMON)", what);
	if (last_msg[0])
		return tl_error("%s: %s", what, last_msg);
	return tl_error("%s: %s", what, strerror(err < 0 ? -err : EINVAL));
}
