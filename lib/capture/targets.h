/*
 * targets.h - what the recorder records: the command it runs, or the
 * running processes it attaches to (-p).
 *
 * The command is forked before tracing starts and waits on a pipe until the
 * recorder lets it go, so that its first instruction is already traced; a
 * failed exec comes back through a close-on-exec pipe.  Targets are watched
 * through pidfds where the kernel has them (readable when the process
 * exits), else by kill(pid, 0).  Nothing here prints or exits.
 */
#ifndef TL_TARGETS_H
#define TL_TARGETS_H

#include <sys/types.h>

#include "trace/trace.h"

struct tl_targets {
	pid_t child;     /* the command, 0 if none */
	int child_pidfd; /* -1 without pidfd support */
	int err_fd;      /* the exec report pipe, -1 once read */
	int child_reaped;
	int child_status; /* wait status once reaped */
	int exec_failed;
	int npids; /* -p targets */
	const int *pids;
	int pidfds[TL_TRACE_MAX_TARGETS];
	int pid_gone[TL_TRACE_MAX_TARGETS];
};

/* No command, no targets, no descriptors. */
void tl_targets_init(struct tl_targets *t);

/*
 * Fork the command argv.  The child waits until *go_fd is written to (or
 * closed), calls before_exec(ctx) (may be NULL) and execs.  If the recorder
 * dies first, the child gets SIGTERM.  Returns 0, or -1 with tl_error set.
 */
int tl_targets_fork(struct tl_targets *t, char *const *argv, void (*before_exec)(void *ctx), void *ctx, int *go_fd);

/*
 * The exec report: 0 if the command exec'd or may still (non-blocking
 * without `block`), -1 with tl_error set ("cannot run 'x': ...") if exec
 * failed.
 */
int tl_targets_check_exec(struct tl_targets *t, const char *cmd, int block);

/* Reap the command if it has exited; 1 if it is gone (or there is none). */
int tl_targets_child_gone(struct tl_targets *t);

/* A command still running: send sig, wait up to grace_ms, then SIGKILL, and reap it. */
void tl_targets_end_child(struct tl_targets *t, int sig, unsigned grace_ms);

/* Watch running processes (-p).  -1 with tl_error set if one does not exist. */
int tl_targets_attach(struct tl_targets *t, const int *pids, int n);

/*
 * What a -p recording records, for the trace's `command`: "-p 12,13: "
 * then each process's command line ("python3 srv.py; nginx: worker
 * process"), read from /proc/PID/cmdline (its name from /proc/PID/comm in
 * brackets when it has none, as a kernel thread; nothing when it is gone),
 * cut to len.
 */
void tl_targets_describe(const int *pids, int n, char *out, size_t len);

/*
 * A /proc/PID/cmdline's n bytes (its arguments, each ended by a NUL) as
 * one line into out[len]: arguments between single spaces, control bytes
 * as '?'.  Returns the length written.
 */
size_t tl_targets_cmdline_text(const char *raw, size_t n, char *out, size_t len);

/* 1 when every -p target has exited. */
int tl_targets_gone(struct tl_targets *t);

/* Close the descriptors (the command, if any, must have been reaped or ended). */
void tl_targets_release(struct tl_targets *t);

#endif
