/*
 * bpf_uprobe.c - the eBPF back end's uprobes (bpf_rec.h): the marker
 * library's functions in processes the recorder did not start, the
 * functions OpenMP outlined, and --func.
 *
 * Two ways to attach one: a perf event per uprobe (any kernel with
 * uprobes), or a uprobe_multi link (kernel 6.6 and later), chosen once
 * before the programs are loaded, as the kernel takes a program for one
 * or the other.  The choice matters at the end: the kernel waits out a
 * grace period (about 0.1 s on the test VM) in each uprobe's removal, and
 * it removes perf-event uprobes one at a time under a global lock, so 2
 * OpenMP functions (4 uprobes) kept `record` 0.44 s from exiting and 64
 * would have kept it 13 s.  uprobe_multi links are removed side by side
 * (unlink_all), and threads that wait together wait for one grace period.
 *
 * libbpf 1.1 (Debian 12) has no uprobe_multi API: the link is made with
 * the bpf() system call and the kernel's own layout of its arguments
 * (struct multi_attr, from linux/bpf.h of 6.6).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "base/errors.h"
#include "capture/bpf_msg.h"
#include "capture/bpf_rec_int.h"
#include "capture/umarks.h"
#include "capture/bpf/record.skel.h" /* generated: bpftool gen skeleton */

#define UNLINK_THREADS 64      /* uprobes removed side by side at close (unlink_all) */
#define ATTACH_UPROBE_MULTI 48 /* enum bpf_attach_type BPF_TRACE_UPROBE_MULTI (6.6) */
#define UPROBE_MULTI_RETURN 1u /* BPF_F_UPROBE_MULTI_RETURN */

/* union bpf_attr for BPF_LINK_CREATE with uprobe_multi, as linux/bpf.h (6.6) lays it out. */
struct multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies; /* user pointers */
	uint32_t cnt, multi_flags, pid;
	uint32_t pad;
};

static int multi_link(int prog_fd, const char *path, uint64_t offset, uint64_t cookie, int ret)
{
	struct multi_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = ATTACH_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)&offset;
	a.cookies = (uint64_t)(uintptr_t)&cookie;
	a.cnt = 1;
	a.multi_flags = ret ? UPROBE_MULTI_RETURN : 0;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

/*
 * 1 if the kernel makes uprobe_multi links: a program loaded for them is
 * refused a link on "/" as not a regular file (EBADF); a kernel without
 * them refuses the attach type itself (EINVAL), or the program.
 */
static int multi_works(void)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = ATTACH_UPROBE_MULTI);
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &o), link, works;

	if (prog < 0)
		return 0;
	link = multi_link(prog, "/", 0, 0, 0);
	works = link < 0 && errno == EBADF;
	if (link >= 0)
		close(link);
	close(prog);
	return works;
}

/* The uprobe programs by enum tl_umark_fn (capture/umarks.h). */
static struct bpf_program *mark_prog(struct record *skel, int fn)
{
	struct bpf_program *v[TL_UMARK__COUNT] = {
		[TL_UMARK_FRAME_BEGIN] = skel->progs.tl_u_frame_begin,
		[TL_UMARK_FRAME_END] = skel->progs.tl_u_frame_end,
		[TL_UMARK_FRAME_JOIN] = skel->progs.tl_u_frame_join,
		[TL_UMARK_REGION_BEGIN] = skel->progs.tl_u_region_begin,
		[TL_UMARK_REGION_END] = skel->progs.tl_u_region_end,
		[TL_UMARK_TASK_BEGIN] = skel->progs.tl_u_task_begin,
		[TL_UMARK_TASK_END] = skel->progs.tl_u_task_end,
		[TL_UMARK_INSTANT] = skel->progs.tl_u_instant,
	};

	return v[fn];
}

/* Keep a uprobe's perf-event link until close: 0, or -1 (memory; the link is destroyed). */
static int keep_link(struct tl_bpf_rec *r, struct bpf_link *link)
{
	struct bpf_link **l = realloc(r->mark_links, (size_t)(r->nmark_links + 1) * sizeof(*l));

	if (!l) {
		bpf_link__destroy(link);
		return tl_error("out of memory");
	}
	r->mark_links = l;
	l[r->nmark_links++] = link;
	return 0;
}

/* Keep a uprobe_multi link's fd until close: 0, or -1 (memory; the link is closed). */
static int keep_fd(struct tl_bpf_rec *r, int fd)
{
	int *l = realloc(r->multi_fds, (size_t)(r->nmulti + 1) * sizeof(*l));

	if (!l) {
		close(fd);
		return tl_error("out of memory");
	}
	r->multi_fds = l;
	l[r->nmulti++] = fd;
	return 0;
}

/* One uprobe of prog at path:offset (ret: its return), either way; 0, or -1 with errno set. */
static int attach_one(struct tl_bpf_rec *r, struct bpf_program *prog, const char *path, uint64_t offset,
                      uint64_t cookie, int ret)
{
	struct bpf_link *link;
	int fd;

	if (r->multi) {
		if ((fd = multi_link(bpf_program__fd(prog), path, offset, cookie, ret)) < 0)
			return -1;
		return keep_fd(r, fd) ? (errno = ENOMEM, -1) : 0;
	} else {
		/* every process that maps the file (-1): the filter keeps the recorded ones */
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = cookie, .retprobe = ret);

		if (!(link = bpf_program__attach_uprobe_opts(prog, -1, path, (size_t)offset, &o)))
			return -1;
		return keep_link(r, link) ? (errno = ENOMEM, -1) : 0;
	}
}

int tl_bpf_rec_attach_marks(struct tl_bpf_rec *r, const struct tl_umarks_file *f)
{
	libbpf_print_fn_t old;
	int ret = 0;

#if !defined(__x86_64__)
	return tl_error("markers of a running process (uprobes) are read on x86-64 only");
#endif
	if (bpf_program__fd(mark_prog(r->skel, 0)) < 0)
		return tl_error("eBPF: the marker programs were not loaded");
	old = tl_bpf_msg_begin();
	for (int i = 0; i < TL_UMARK__COUNT && !ret; i++) {
		if (!(f->have & (1u << i)))
			continue;
		if (attach_one(r, mark_prog(r->skel, i), f->path, f->offset[i], 0, 0)) {
			char what[sizeof(f->path) + 96];

			snprintf(what, sizeof(what), "eBPF: cannot put a uprobe on %s in '%s'", tl_umark_symbols[i],
			         f->path);
			ret = tl_bpf_fail(what, -errno);
			break;
		}
	}
	tl_bpf_msg_end(old);
	return ret;
}

int tl_bpf_rec_attach_span(struct tl_bpf_rec *r, const char *path, uint64_t offset, uint64_t cookie)
{
	struct bpf_program *prog[2] = { r->skel->progs.tl_u_span_begin, r->skel->progs.tl_u_span_end };
	libbpf_print_fn_t old;
	int ret = 0;

	/* no argument is read (umarks.h, span()): any architecture */
	if (bpf_program__fd(prog[0]) < 0)
		return tl_error("eBPF: the function probe programs were not loaded");
	old = tl_bpf_msg_begin();
	for (int i = 0; i < (cookie & TL_BPF_SPAN_INLINED ? 1 : 2) && !ret; i++) {
		if (attach_one(r, prog[i], path, offset, cookie, i == 1)) {
			char what[1200];

			snprintf(what, sizeof(what),
			         "eBPF: cannot put a uprobe on the %s of the function at 0x%llx in '%s'",
			         i ? "return" : "entry", (unsigned long long)offset, path);
			ret = tl_bpf_fail(what, -errno);
			break;
		}
	}
	tl_bpf_msg_end(old);
	return ret;
}

void tl_bpf_rec_uprobes_prepare(struct tl_bpf_rec *r, int umarks)
{
	struct bpf_program *p[TL_UMARK__COUNT + 2];
	int n = 0;

	for (int i = 0; i < TL_UMARK__COUNT; i++)
		bpf_program__set_autoload(p[n++] = mark_prog(r->skel, i), !!(umarks & TL_BPF_UMARKS));
	bpf_program__set_autoload(p[n++] = r->skel->progs.tl_u_span_begin, !!(umarks & TL_BPF_USPANS));
	bpf_program__set_autoload(p[n++] = r->skel->progs.tl_u_span_end, !!(umarks & TL_BPF_USPANS));
	if (!umarks || getenv("TL_BPF_NO_UPROBE_MULTI") || !multi_works())
		return; /* the environment variable: the perf-event way on any kernel, for tests and comparisons */
	r->multi = 1;
	for (int i = 0; i < n; i++)
		bpf_program__set_expected_attach_type(p[i], ATTACH_UPROBE_MULTI);
}

struct unlink_job {
	struct bpf_link **links;
	int *fds;
	int n, step;
};

static void *unlink_some(void *arg)
{
	struct unlink_job *j = arg;

	for (int i = 0; i < j->n; i += j->step)
		if (j->links)
			bpf_link__destroy(j->links[i]);
		else
			close(j->fds[i]);
	return NULL;
}

/* Remove n uprobes (links or fds) side by side; see the file's header. */
static void unlink_all(struct bpf_link **links, int *fds, int n)
{
	struct unlink_job jobs[UNLINK_THREADS] = { { 0 } };
	pthread_t th[UNLINK_THREADS];
	char started[UNLINK_THREADS] = { 0 };
	int t = n < UNLINK_THREADS ? n : UNLINK_THREADS;

	for (int i = 0; i < t; i++) {
		jobs[i] = (struct unlink_job){ links ? links + i : NULL, fds ? fds + i : NULL, n - i, t };
		if (i && !pthread_create(&th[i], NULL, unlink_some, &jobs[i]))
			started[i] = 1;
		else if (i)
			unlink_some(&jobs[i]); /* no thread: here, after the ones started */
	}
	if (t > 0)
		unlink_some(&jobs[0]);
	for (int i = 1; i < t; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

void tl_bpf_rec_unlink_all(struct tl_bpf_rec *r)
{
	unlink_all(NULL, r->multi_fds, r->nmulti);
	free(r->multi_fds);
	unlink_all(r->mark_links, NULL, r->nmark_links);
	free(r->mark_links);
	r->multi_fds = NULL;
	r->mark_links = NULL;
	r->nmulti = r->nmark_links = 0;
}
