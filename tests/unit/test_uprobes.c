/*
 * test_uprobes.c - the parts of `record --func` that need no root: --func
 * items into files, offsets and labels, tracefs event names, finding the
 * probes of dead recorders in uprobe_events, and the decode table's
 * dynamic tracepoints (uprobe samples into FUNC_ENTRY / FUNC_EXIT).
 * Creating real probes is the live test's job (tests/live/funcs.sh).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elfsym.h"
#include "base/errors.h"
#include "harness.h"
#include "capture/tp_decode.h"
#include "capture/uprobes.h"

/* The formats of a uprobe and a uretprobe as Linux 6.18 writes them. */
static const char entry_fmt[] = "name: wlf_spin\n"
                                "ID: 2326\n"
                                "format:\n"
                                "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                                "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                                "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                                "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
                                "\n"
                                "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
                                "\n"
                                "print fmt: \"(%lx)\", REC->__probe_ip\n";
static const char exit_fmt[] = "name: wlf_spin_ret\n"
                               "ID: 2327\n"
                               "format:\n"
                               "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                               "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                               "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                               "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
                               "\n"
                               "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
                               "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
                               "\n"
                               "print fmt: \"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip\n";
static const char exit_sched_fmt[] = "name: sched_process_exit\n"
                                     "ID: 2326\n"
                                     "format:\n"
                                     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                                     "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                                     "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                                     "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
                                     "\n"
                                     "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
                                     "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
                                     "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
                                     "\n"
                                     "print fmt: \"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio\n";

TEST(dynamic_decode)
{
	struct tl_tp_table *t = tl_tp_table_new();
	struct tl_tp_sample s = { .ts = 1000, .pid = 40, .tid = 41, .cpu = 1 };
	struct tl_tp_decoded d;
	uint8_t raw[24] = { 0 };
	uint16_t id;

	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, entry_fmt, strlen(entry_fmt), TL_EV_FUNC_ENTRY, 0, "wlf_spin"), 2326);
	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, exit_fmt, strlen(exit_fmt), TL_EV_FUNC_EXIT, 0, "wlf_spin"), 2327);
	s.raw = raw;
	s.raw_size = sizeof(raw);
	id = 2326;
	memcpy(raw, &id, 2);
	raw[2] = 0x08; /* hardirq flag: passed through like any tracepoint's */
	CHECK_EQ_INT(tl_tp_decode(t, &s, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FUNC_ENTRY);
	CHECK_EQ_INT(d.ev.ts, 1000);
	CHECK_EQ_INT(d.ev.tid, 41);
	CHECK_EQ_INT(d.ev.cpu, 1);
	CHECK_EQ_INT(d.ev.flags, TL_EVF_HARDIRQ);
	CHECK_EQ_INT(d.name.len, 8);
	CHECK(d.name.s && !memcmp(d.name.s, "wlf_spin", 8));
	CHECK_EQ_INT(d.nids, 0);
	id = 2327;
	memcpy(raw, &id, 2);
	raw[2] = 0;
	CHECK_EQ_INT(tl_tp_decode(t, &s, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FUNC_EXIT);
	CHECK_EQ_INT(d.ev.flags, 0);
	/* too short for common_flags: rejected; an unknown id: not ours */
	s.raw_size = 2;
	CHECK_EQ_INT(tl_tp_decode(t, &s, &d), -1);
	s.raw_size = sizeof(raw);
	id = 2328;
	memcpy(raw, &id, 2);
	CHECK_EQ_INT(tl_tp_decode(t, &s, &d), 0);
	/* wrong uses */
	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, entry_fmt, strlen(entry_fmt), TL_EV_SWITCH, 0, "x"), -1);
	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, "garbage", 7, TL_EV_FUNC_ENTRY, 0, "x"), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot parse the format of probe 'x'");
	tl_tp_table_free(t);

	/* an id that a static tracepoint has is refused */
	t = tl_tp_table_new();
	CHECK_EQ_INT(tl_tp_table_add(t, TL_TP_SCHED_EXIT, exit_sched_fmt, strlen(exit_sched_fmt)), 2326);
	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, entry_fmt, strlen(entry_fmt), TL_EV_FUNC_ENTRY, 0, "wlf_spin"), -1);
	CHECK_EQ_STR(tl_error_msg(), "probe 'wlf_spin' has the id 2326 of tracepoint 'sched_process_exit'");
	tl_tp_table_free(t);
}

/* The entry of an inlined copy (record --func, DWARF): its events carry TL_EVF_INLINED. */
TEST(dynamic_inlined)
{
	struct tl_tp_table *t = tl_tp_table_new();
	struct tl_tp_sample s = { .ts = 7, .tid = 5, .cpu = 0 };
	struct tl_tp_decoded d;
	uint8_t raw[16] = { 0 };
	uint16_t id = 2326;

	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, entry_fmt, strlen(entry_fmt), TL_EV_FUNC_ENTRY, TL_EVF_INLINED, "sq"),
	             2326);
	memcpy(raw, &id, 2);
	raw[2] = 0x08;
	s.raw = raw;
	s.raw_size = sizeof(raw);
	CHECK_EQ_INT(tl_tp_decode(t, &s, &d), 1);
	CHECK_EQ_INT(d.ev.type, TL_EV_FUNC_ENTRY);
	CHECK_EQ_INT(d.ev.flags, TL_EVF_HARDIRQ | TL_EVF_INLINED);
	CHECK(d.name.len == 2 && !memcmp(d.name.s, "sq", 2));
	/* an inlined copy has no return; no other flag may be set */
	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, exit_fmt, strlen(exit_fmt), TL_EV_FUNC_EXIT, TL_EVF_INLINED, "sq"), -1);
	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, exit_fmt, strlen(exit_fmt), TL_EV_FUNC_ENTRY, TL_EVF_VECTOR, "sq"), -1);
	tl_tp_table_free(t);
}

TEST(dynamic_readd)
{
	struct tl_tp_table *t = tl_tp_table_new();
	struct tl_tp_sample s = { .ts = 1, .tid = 5 };
	struct tl_tp_decoded d;
	uint8_t raw[16] = { 0 };
	uint16_t id = 2326;

	/* a probe made again under the same id means the new function */
	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, entry_fmt, strlen(entry_fmt), TL_EV_FUNC_ENTRY, 0, "old"), 2326);
	CHECK_EQ_INT(tl_tp_table_add_dynamic(t, entry_fmt, strlen(entry_fmt), TL_EV_FUNC_ENTRY, 0, "new"), 2326);
	memcpy(raw, &id, 2);
	s.raw = raw;
	s.raw_size = sizeof(raw);
	CHECK_EQ_INT(tl_tp_decode(t, &s, &d), 1);
	CHECK(d.name.len == 3 && !memcmp(d.name.s, "new", 3));
	tl_tp_table_free(t);
}

TEST(event_names)
{
	char out[64];
	char longname[200];

	tl_uprobes_event_name("wlf_spin", out, sizeof(out));
	CHECK_EQ_STR(out, "wlf_spin");
	tl_uprobes_event_name("libc.so.6:usleep", out, sizeof(out));
	CHECK_EQ_STR(out, "libc_so_6_usleep");
	tl_uprobes_event_name("foo.isra.0", out, sizeof(out));
	CHECK_EQ_STR(out, "foo_isra_0");
	tl_uprobes_event_name("9lives", out, sizeof(out));
	CHECK_EQ_STR(out, "f9lives");
	tl_uprobes_event_name("", out, sizeof(out));
	CHECK_EQ_STR(out, "f");
	memset(longname, 'z', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	tl_uprobes_event_name(longname, out, sizeof(out));
	CHECK_EQ_INT(strlen(out), 48);
}

static char stale_seen[8][160];
static int nstale_seen;

static int fake_alive(int pid)
{
	return pid == 200 || pid == 300;
}

static void on_stale(const char *ge, void *ctx)
{
	(void)ctx;
	if (nstale_seen < 8)
		snprintf(stale_seen[nstale_seen], sizeof(stale_seen[0]), "%s", ge);
	nstale_seen++;
}

TEST(stale_groups)
{
	const char *text = "p:threadlens_100/wlf_spin /app:0x0000000000001139\n"
	                   "r:threadlens_100/wlf_spin_ret /app:0x0000000000001139\n"
	                   "p:threadlens_200/alive /app:0x10\n"
	                   "p:threadlens_300/mine /app:0x10\n"
	                   "p:other_100/x /app:0x10\n"
	                   "p:threadlens_/bad /app:0x10\n"
	                   "p:threadlens_12x/bad /app:0x10\n"
	                   "p:uprobes/threadlens_100 /app:0x10\n"
	                   "r:threadlens_101/last /app:0x10";
	int n;

	nstale_seen = 0;
	/* we are 300 now: a group of that pid is a dead recorder's */
	n = tl_uprobes_stale(text, 300, fake_alive, on_stale, NULL);
	CHECK_EQ_INT(n, 4);
	CHECK_EQ_INT(nstale_seen, 4);
	CHECK_EQ_STR(stale_seen[0], "threadlens_100/wlf_spin");
	CHECK_EQ_STR(stale_seen[1], "threadlens_100/wlf_spin_ret");
	CHECK_EQ_STR(stale_seen[2], "threadlens_300/mine");
	CHECK_EQ_STR(stale_seen[3], "threadlens_101/last");
	CHECK_EQ_INT(tl_uprobes_stale("", 1, fake_alive, on_stale, NULL), 0);
}

/* wl_funcs next to this program, into path; 0 if it is not built. */
static int wl_funcs_path(char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 0;
	self[n] = 0;
	*strrchr(self, '/') = 0;
	snprintf(path, len, "%s/wl_funcs", self);
	return access(path, R_OK) == 0;
}

TEST(resolve_items)
{
	char wl[PATH_MAX + 16], item[PATH_MAX + 64];
	struct tl_uprobe_func f;
	struct tl_elfsym e;
	Dl_info info;

	if (!wl_funcs_path(wl, sizeof(wl))) {
		fprintf(stderr, "  note: wl_funcs is not built; 'make tests' builds it\n");
		CHECK(0);
		return;
	}
	/* a plain symbol is in the default file, and named plainly */
	CHECK_EQ_INT(tl_uprobes_resolve("wlf_spin", wl, &f), 0);
	CHECK_EQ_STR(f.label, "wlf_spin");
	CHECK_EQ_STR(f.symbol, "wlf_spin");
	CHECK_EQ_INT(tl_elfsym_lookup(wl, "wlf_spin", &e), 0);
	CHECK_EQ_INT(f.offset, e.offset);
	CHECK(f.path[0] == '/');
	CHECK_EQ_INT(f.entry_id, -1);
	/* the default file named explicitly is still the program itself */
	snprintf(item, sizeof(item), "%s:wlf_inner", wl);
	CHECK_EQ_INT(tl_uprobes_resolve(item, wl, &f), 0);
	CHECK_EQ_STR(f.label, "wlf_inner");
	/* another file: its name goes in front */
	CHECK_EQ_INT(tl_uprobes_resolve(item, NULL, &f), 0);
	CHECK_EQ_STR(f.label, "wl_funcs:wlf_inner");
	if (dladdr(dlsym(RTLD_DEFAULT, "usleep"), &info) && info.dli_fname && strstr(info.dli_fname, "/libc.so.6")) {
		CHECK_EQ_INT(tl_uprobes_resolve("libc:usleep", wl, &f), 0);
		CHECK_EQ_STR(f.label, "libc.so.6:usleep");
		snprintf(item, sizeof(item), "%s:usleep", info.dli_fname);
		CHECK_EQ_INT(tl_uprobes_resolve(item, wl, &f), 0);
		CHECK_EQ_STR(f.label, "libc.so.6:usleep");
	}
	/* a C++ name's "::" is not FILE:SYMBOL's colon (the program has no such function) */
	CHECK_EQ_INT(tl_uprobes_resolve("ns::work", wl, &f), -1);
	CHECK(strstr(tl_error_msg(), "no function 'ns::work' in '") != NULL);
	snprintf(item, sizeof(item), "%s:ns::work", wl);
	CHECK_EQ_INT(tl_uprobes_resolve(item, NULL, &f), -1);
	CHECK(strstr(tl_error_msg(), "no function 'ns::work' in '") != NULL);
	/* errors */
	CHECK_EQ_INT(tl_uprobes_resolve("wlf_spin", NULL, &f), -1);
	CHECK_EQ_STR(tl_error_msg(),
	             "no file to look up 'wlf_spin' in: without a command or -p, give it as --func FILE:wlf_spin");
	CHECK_EQ_INT(tl_uprobes_resolve("libc:", wl, &f), -1);
	CHECK_EQ_STR(tl_error_msg(), "no function name in 'libc:'");
	CHECK_EQ_INT(tl_uprobes_resolve(":foo", wl, &f), -1);
	CHECK_EQ_STR(tl_error_msg(), "empty file name before ':' in a function");
	CHECK_EQ_INT(tl_uprobes_resolve("no_such_function", wl, &f), -1);
	CHECK(strstr(tl_error_msg(), "no function 'no_such_function' in '/") == tl_error_msg());
}

TEST(command_path)
{
	char out[PATH_MAX];

	CHECK_EQ_INT(tl_uprobes_command_path("sh", out, sizeof(out)), 0);
	CHECK(out[0] == '/' && access(out, X_OK) == 0);
	CHECK_EQ_INT(tl_uprobes_command_path("/proc/self/exe", out, sizeof(out)), 0);
	CHECK(out[0] == '/' && strcmp(out, "/proc/self/exe"));
	CHECK_EQ_INT(tl_uprobes_command_path("no_such_command_xyz", out, sizeof(out)), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot find 'no_such_command_xyz' in PATH to look up its functions");
	CHECK_EQ_INT(tl_uprobes_command_path("./no/such/cmd", out, sizeof(out)), -1);
	CHECK_EQ_STR(tl_error_msg(), "cannot open './no/such/cmd': No such file or directory");
}

int main(void)
{
	RUN_TESTS(dynamic_decode, dynamic_inlined, dynamic_readd, event_names, stale_groups, resolve_items,
	          command_path);
}
