/*
 * marks_prog.c - the instrumented program of tests/cli/test_marks.sh: known
 * markers from known threads, so that the test can compare `threadlens
 * dump` with what the program says it did.
 *
 *   marks_prog basic     two threads and a child process mark a frame; prints
 *                        "tid NAME=TID" lines and "recording=0|1"
 *   marks_prog kill N    N instants "before" (values 1..N), then "ready" and
 *                        sleep until killed
 *   marks_prog threads N N threads one after another, one instant "t" each
 *                        (more threads than marker slots: slots are reused)
 *   marks_prog names     the same name from a reused buffer with new contents
 *   marks_prog child     (started by basic) one instant "child" = its pid
 *   marks_prog hostile   names that are HTML and script (tests/cli/test_html.sh):
 *                        a thread named "<img src=x one" (the kernel keeps 15
 *                        bytes) and a region named HOSTILE, in frame 1, twice
 *   marks_prog terminal  names that are terminal escapes (test_marks.sh): a
 *                        thread named ESC "[2J" ... BEL and a region named
 *                        TERMINAL (a title change, then a colour), in frames
 *                        1 and 2
 *
 * Output goes to stdout, flushed line by line, before the markers it
 * announces are made (so a test that kills the program knows what it did).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <threadlens.h>
#include <unistd.h>

static int tid(void)
{
	return (int)syscall(SYS_gettid);
}

static void *worker(void *arg)
{
	uint64_t frame = (uint64_t)(uintptr_t)arg;

	printf("tid worker=%d\n", tid());
	fflush(stdout);
	tl_frame_join(frame);
	tl_task_begin("compute");
	tl_task_begin("inner");
	tl_instant("queue", 7);
	tl_task_end("inner");
	tl_task_end("compute");
	return NULL;
}

static int basic(const char *self)
{
	pthread_t th;
	pid_t child;
	int status;

	printf("recording=%d\n", tl_recording());
	printf("tid main=%d\n", tid());
	fflush(stdout);
	tl_frame_begin(1);
	tl_region_begin("load");
	tl_region_end("load");
	if (pthread_create(&th, NULL, worker, (void *)(uintptr_t)1))
		return 1;
	pthread_join(th, NULL);
	tl_frame_end(1);
	/* After the frame ended this thread works on no frame: a = -1. */
	tl_region_begin("idle");
	tl_region_end("idle");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		execl(self, self, "child", (char *)NULL);
		_exit(127);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}

static __attribute__((noreturn)) void kill_me(int n)
{
	for (int i = 1; i <= n; i++)
		tl_instant("before", i);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

static void *one(void *arg)
{
	tl_instant("t", (int64_t)(intptr_t)arg);
	return NULL;
}

static int threads(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, one, (void *)(intptr_t)i))
			return 1;
		pthread_join(th, NULL);
		usleep(500); /* a pace at which the recorder frees slots as fast as they are taken */
	}
	return 0;
}

static int names(void)
{
	char buf[16];

	for (int i = 0; i < 3; i++) {
		snprintf(buf, sizeof(buf), "step%d", i);
		tl_instant(buf, i);
	}
	return 0;
}

#define HOSTILE "<img src=x onerror=\"window.__xss=1\"><script>window.__xss=2</script>"

/* Escape sequences a terminal acts on: clear the screen, set the window's title, bold red. */
#define TERMINAL "\x1b]0;pwned\x07\x1b[1;31mred\x1b[0m"

/* A thread's name and its region's, for named_thread(). */
struct thread_names {
	const char *thread, *region;
};

/* A thread named n->thread that runs region n->region in frames 1 and 2. */
static void *named_thread(void *arg)
{
	const struct thread_names *n = arg;

	prctl(PR_SET_NAME, n->thread);
	for (int i = 1; i <= 2; i++) {
		tl_frame_begin((uint64_t)i);
		tl_region_begin(n->region);
		for (volatile int k = 0; k < 2000000; k++)
			;
		tl_region_end(n->region);
		tl_frame_end((uint64_t)i);
		usleep(2000);
	}
	return NULL;
}

static int named(const char *thread, const char *region)
{
	struct thread_names n = { thread, region };
	pthread_t t;

	if (pthread_create(&t, NULL, named_thread, &n))
		return 1;
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "basic"))
		return basic(argv[0]);
	if (argc >= 3 && !strcmp(argv[1], "kill"))
		kill_me(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "threads"))
		return threads(atoi(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "names"))
		return names();
	if (argc >= 2 && !strcmp(argv[1], "hostile"))
		return named("<img src=x onerror=alert(1)>", HOSTILE);
	if (argc >= 2 && !strcmp(argv[1], "terminal"))
		return named("\x1b[2Jclear\x07\x9b", TERMINAL);
	if (argc >= 2 && !strcmp(argv[1], "child")) {
		printf("tid child=%d\n", tid());
		fflush(stdout);
		tl_instant("child", getpid());
		return 0;
	}
	fprintf(stderr, "usage: marks_prog basic|kill N|threads N|names|hostile|terminal|child\n");
	return 2;
}
