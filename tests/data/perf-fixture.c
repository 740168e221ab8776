/*
 * perf-fixture.c - the small workload behind tests/data/perf-sched.txt.
 *
 * Not built by make: it documents how the fixture was made (see
 * tests/data/README.md).  Two named workers fight over a mutex (futex
 * waits, S), a third thread spins so that the CPUs are oversubscribed
 * (preemption, R+), the main thread forks and execs /bin/true (fork, exec,
 * exit, free) and syncs a file (D).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;

static void *worker(void *arg)
{
	prctl(PR_SET_NAME, (unsigned long)(arg ? "fx-worker-b" : "fx-worker-a"));
	for (int i = 0; i < 6; i++) {
		pthread_mutex_lock(&lock);
		for (long j = 0; j < 300000; j++)
			sink += j;
		pthread_mutex_unlock(&lock);
		usleep(500);
	}
	return NULL;
}

static void *spinner(void *arg)
{
	prctl(PR_SET_NAME, (unsigned long)"fx-spin");
	for (long j = 0; j < 20000000; j++)
		sink += j;
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	int fd;

	pthread_create(&t[0], NULL, worker, (void *)0);
	pthread_create(&t[1], NULL, worker, (void *)1);
	pthread_create(&t[2], NULL, spinner, NULL);
	pid_t p = fork();
	if (p == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	}
	waitpid(p, NULL, 0);
	fd = open("/tmp/perf-fixture.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		if (write(fd, "x", 1) == 1)
			fsync(fd);
		close(fd);
		unlink("/tmp/perf-fixture.tmp");
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
