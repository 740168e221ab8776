/*
 * runstat.c - run a command and write its wall time, CPU time and peak RSS.
 *
 *   runstat OUTFILE COMMAND [ARGS...]
 *
 * Like /usr/bin/time -f, but with microsecond CPU times: after the command
 * exits, OUTFILE gets one line
 *
 *   wall_s=W user_s=U sys_s=S maxrss_kb=M status=X
 *
 * U and S come from wait4(), so they include the command's own children
 * that it waited for (a recorder's workload), and M is the largest RSS of the
 * command or any of those children.  The command's stdin, stdout and stderr
 * are left alone.  runstat exits with the command's status (128 + signal if
 * it was killed), 127 if it cannot be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double tv(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: runstat OUTFILE COMMAND [ARGS...]\n");
		return 2;
	}
	FILE *out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "runstat: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "runstat: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		fclose(out);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "runstat: cannot run '%s': %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "runstat: wait4: %s\n", strerror(errno));
			return 127;
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(out, "wall_s=%.6f user_s=%.6f sys_s=%.6f maxrss_kb=%ld status=%d\n",
	        (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9, tv(ru.ru_utime), tv(ru.ru_stime),
	        ru.ru_maxrss, rc);
	fclose(out);
	return rc;
}
