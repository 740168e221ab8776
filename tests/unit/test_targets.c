/*
 * test_targets.c - what a -p recording calls its targets
 * (lib/capture/targets.c, tl_targets_describe): the processes' command
 * lines from /proc, exact on crafted bytes and on this program's own
 * (its argv, which it knows independently of /proc).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/targets.h"
#include "harness.h"

static char **own_argv;

TEST(cmdline_text)
{
	char out[64];
	static const char raw[] = "python3\0/tmp/srv.py\0--port\0"
	                          "8080\0";
	static const char ctl[] = "a\tb\0c\x1b[2J\0";

	CHECK_EQ_INT(tl_targets_cmdline_text(raw, sizeof(raw) - 1, out, sizeof(out)), 31);
	CHECK_EQ_STR(out, "python3 /tmp/srv.py --port 8080");
	/* control bytes are shown inert */
	tl_targets_cmdline_text(ctl, sizeof(ctl) - 1, out, sizeof(out));
	CHECK_EQ_STR(out, "a?b c?[2J");
	/* cut to the room */
	CHECK_EQ_INT(tl_targets_cmdline_text(raw, sizeof(raw) - 1, out, 8), 7);
	CHECK_EQ_STR(out, "python3");
	CHECK_EQ_INT(tl_targets_cmdline_text("", 0, out, sizeof(out)), 0);
	CHECK_EQ_STR(out, "");
}

TEST(describe_own_process)
{
	char want[1024], got[1024];
	int pids[2] = { (int)getpid(), 0 };
	size_t n = (size_t)snprintf(want, sizeof(want), "-p %d: %s", pids[0], own_argv[0]);

	for (int i = 1; own_argv[i]; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, " %s", own_argv[i]);
	tl_targets_describe(pids, 1, got, sizeof(got));
	CHECK_EQ_STR(got, want);
	/* a process that is gone (pid 0 has no /proc entry): its number only */
	tl_targets_describe(pids + 1, 1, got, sizeof(got));
	CHECK_EQ_STR(got, "-p 0");
	/* cut to the room, always ended */
	tl_targets_describe(pids, 1, got, 6);
	CHECK_EQ_INT(strlen(got), 5);
}

int main(int argc, char **argv)
{
	(void)argc;
	own_argv = argv;
	RUN_TESTS(cmdline_text, describe_own_process);
}
