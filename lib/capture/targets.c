/*
 * targets.c - the command the recorder runs and the processes it attaches
 * to (see targets.h).
 */
#include "capture/targets.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/readfile.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tl_targets_init(struct tl_targets *t)
{
	memset(t, 0, sizeof(*t));
	t->child_pidfd = t->err_fd = -1;
	for (int i = 0; i < TL_TRACE_MAX_TARGETS; i++)
		t->pidfds[i] = -1;
}

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* Fork the command; it waits on a pipe until start_child(), and reports a failed exec on a CLOEXEC pipe. */
int tl_targets_fork(struct tl_targets *t, char *const *argv, void (*before_exec)(void *ctx), void *ctx, int *go_fd)
{
	int go[2], err[2];
	pid_t parent = getpid();

	if (pipe2(go, O_CLOEXEC))
		return tl_error_errno("cannot create a pipe");
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return tl_error_errno("cannot create a pipe");
	}
	t->child = fork();
	if (t->child < 0) {
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return tl_error_errno("cannot fork");
	}
	if (!t->child) {
		char c;
		int e;
		close(go[1]);
		close(err[0]);
		/* If the recorder dies, the command must not run on untraced and alone. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent || read(go[0], &c, 1) != 1)
			_exit(127);
		if (before_exec)
			before_exec(ctx);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	*go_fd = go[1];
	t->err_fd = err[0];
	t->child_pidfd = pidfd_open_(t->child);
	return 0;
}

/* Reap the child if it has exited; 1 if it is gone. */
int tl_targets_child_gone(struct tl_targets *t)
{
	int status;

	if (t->child <= 0 || t->child_reaped)
		return 1;
	if (waitpid(t->child, &status, WNOHANG) == t->child) {
		t->child_reaped = 1;
		t->child_status = status;
		return 1;
	}
	return 0;
}

/* A command still running after the recording: forward the stop signal, then insist. */
void tl_targets_end_child(struct tl_targets *t, int sig, unsigned grace_ms)
{
	if (t->child <= 0 || tl_targets_child_gone(t))
		return;
	kill(t->child, sig);
	for (uint64_t end = now_ns() + (uint64_t)grace_ms * 1000000ull;;) {
		uint64_t now = now_ns();
		struct pollfd p = { t->child_pidfd, POLLIN, 0 };
		if (tl_targets_child_gone(t))
			return;
		if (now >= end)
			break;
		/* Readable when it exits; without a pidfd, poll() on nothing is a 10 ms sleep. */
		poll(&p, 1, t->child_pidfd >= 0 ? (int)((end - now) / 1000000) + 1 : 10);
	}
	kill(t->child, SIGKILL);
	if (waitpid(t->child, &t->child_status, 0) == t->child)
		t->child_reaped = 1;
}

int tl_targets_attach(struct tl_targets *t, const int *pids, int n)
{
	for (int i = 0; i < n && i < TL_TRACE_MAX_TARGETS; i++) {
		int pid = pids[i];
		if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
			return tl_error("cannot attach to process %d: no such process", pid);
		t->pidfds[i] = pidfd_open_(pid);
	}
	t->pids = pids;
	t->npids = n < TL_TRACE_MAX_TARGETS ? n : TL_TRACE_MAX_TARGETS;
	return 0;
}

size_t tl_targets_cmdline_text(const char *raw, size_t n, char *out, size_t len)
{
	size_t k = 0;

	if (!len)
		return 0;
	while (n && !raw[n - 1]) /* the last argument's NUL, and any padding */
		n--;
	for (size_t i = 0; i < n && k + 1 < len; i++) {
		unsigned char c = (unsigned char)raw[i];
		out[k++] = !c ? ' ' : c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	out[k] = 0;
	return k;
}

void tl_targets_describe(const int *pids, int n, char *out, size_t len)
{
	size_t used;
	int named = 0;

	if (!len)
		return;
	used = (size_t)snprintf(out, len, "-p ");
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%d", i ? "," : "", pids[i]);
	for (int i = 0; i < n && used + 3 < len; i++) {
		char path[64], *raw = NULL, line[512];
		size_t rl = 0, ll = 0;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", pids[i]);
		if (!tl_read_file(path, 1 << 16, &raw, &rl) && rl)
			ll = tl_targets_cmdline_text(raw, rl, line, sizeof(line));
		free(raw);
		raw = NULL;
		snprintf(path, sizeof(path), "/proc/%d/comm", pids[i]);
		if (!ll && !tl_read_file(path, 256, &raw, &rl) && rl) { /* a kernel thread: its name */
			char name[256];

			tl_targets_cmdline_text(raw, strcspn(raw, "\n"), name, sizeof(name));
			ll = (size_t)snprintf(line, sizeof(line), "[%s]", name);
		}
		free(raw);
		if (ll && used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s", named++ ? "; " : ": ", line);
	}
}

/* 1 when every -p target has exited. */
int tl_targets_gone(struct tl_targets *t)
{
	int alive = 0;

	for (int i = 0; i < t->npids; i++) {
		if (t->pid_gone[i])
			continue;
		if (t->pidfds[i] >= 0) {
			struct pollfd p = { t->pidfds[i], POLLIN, 0 };
			t->pid_gone[i] = poll(&p, 1, 0) > 0;
		} else {
			t->pid_gone[i] = kill(t->pids[i], 0) && errno == ESRCH;
		}
		alive += !t->pid_gone[i];
	}
	return !alive;
}

/* The exec report: 0 = exec'd (or still pending), -1 = exec failed (tl_error set). */
int tl_targets_check_exec(struct tl_targets *t, const char *cmd, int block)
{
	int e = 0;
	ssize_t n;

	if (t->err_fd < 0)
		return 0;
	if (!block) {
		struct pollfd p = { t->err_fd, POLLIN, 0 };
		if (poll(&p, 1, 0) <= 0)
			return 0;
	}
	n = read(t->err_fd, &e, sizeof(e));
	if (n < 0 && errno == EINTR)
		return 0;
	close(t->err_fd);
	t->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		t->exec_failed = 1;
		return tl_error("cannot run '%s': %s", cmd, strerror(e));
	}
	return 0;
}

void tl_targets_release(struct tl_targets *t)
{
	if (t->child_pidfd >= 0)
		close(t->child_pidfd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	for (int i = 0; i < t->npids; i++)
		if (t->pidfds[i] >= 0)
			close(t->pidfds[i]);
	t->child_pidfd = t->err_fd = -1;
	t->npids = 0;
}
