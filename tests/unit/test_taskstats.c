/*
 * test_taskstats.c - the taskstats netlink family (capture/taskstats.h):
 * the parser on crafted datagrams (exact values), and, as root, a live
 * thread's counters against /proc and an exited child's final run time
 * against the child's own thread clock.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "capture/kstat.h"
#include "capture/taskstats.h"
#include "harness.h"

#define FAMILY 0x1b

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- crafted datagrams ---- */

static size_t put(uint8_t *p, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { (uint16_t)(NLA_HDRLEN + len), type };

	memcpy(p, &a, sizeof(a));
	if (data)
		memcpy(p + NLA_HDRLEN, data, len);
	return NLA_ALIGN(NLA_HDRLEN + len);
}

/* One message: AGGR_PID {PID tid, STATS st} then AGGR_TGID {TGID, STATS}; stats_len cut short if asked. */
static size_t craft(uint8_t *buf, uint32_t tid, const struct taskstats *st, size_t stats_len)
{
	struct nlmsghdr n = { 0 };
	struct genlmsghdr g = { TASKSTATS_CMD_NEW, 1, 0 };
	uint8_t *p = buf + NLMSG_HDRLEN + GENL_HDRLEN, *nest;
	uint32_t tgid = 77;

	nest = p;
	p += NLA_HDRLEN;
	p += put(p, TASKSTATS_TYPE_PID, &tid, sizeof(tid));
	p += put(p, TASKSTATS_TYPE_STATS, st, stats_len);
	put(nest, TASKSTATS_TYPE_AGGR_PID, NULL, (size_t)(p - nest - NLA_HDRLEN));
	nest = p;
	p += NLA_HDRLEN;
	p += put(p, TASKSTATS_TYPE_TGID, &tgid, sizeof(tgid));
	p += put(p, TASKSTATS_TYPE_STATS, st, stats_len);
	put(nest, TASKSTATS_TYPE_AGGR_TGID, NULL, (size_t)(p - nest - NLA_HDRLEN));
	n.nlmsg_len = (uint32_t)(p - buf);
	n.nlmsg_type = FAMILY;
	memcpy(buf, &n, sizeof(n));
	memcpy(buf + NLMSG_HDRLEN, &g, sizeof(g));
	return (size_t)(p - buf);
}

struct seen {
	int n;
	struct tl_kstat k;
	int32_t tgid;
};

static void collect(const struct tl_kstat *k, int32_t tgid, void *ctx)
{
	struct seen *s = ctx;

	s->n++;
	s->k = *k;
	s->tgid = tgid;
}

TEST(test_parse_exact)
{
	static uint8_t buf[4096];
	struct taskstats st;
	struct seen s = { 0 };
	size_t len;

	memset(&st, 0, sizeof(st));
	st.version = TASKSTATS_VERSION;
	st.cpu_run_virtual_total = 123456789;
	st.cpu_run_real_total = 999; /* tick-based: not the one used */
	st.cpu_delay_total = 4567;
	st.blkio_delay_total = 89;
	st.nvcsw = 11;
	st.nivcsw = 3;
	st.ac_tgid = 4200;
	len = craft(buf, 4242, &st, sizeof(st));
	CHECK_EQ_INT(tl_taskstats_parse(buf, len, FAMILY, collect, &s), 1); /* the TGID aggregate is skipped */
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_INT(s.k.tid, 4242);
	CHECK_EQ_INT(s.tgid, 4200);
	CHECK_EQ_INT(s.k.run_ns, 123456789);
	CHECK_EQ_INT(s.k.wait_ns, 4567);
	CHECK_EQ_INT(s.k.blkio_ns, 89);
	CHECK_EQ_INT(s.k.vol, 11);
	CHECK_EQ_INT(s.k.invol, 3);
	CHECK_EQ_INT(s.k.have, TL_KSTAT_SCHED | TL_KSTAT_BLKIO | TL_KSTAT_SWITCHES);

	/* another family's message is not ours */
	s.n = 0;
	CHECK_EQ_INT(tl_taskstats_parse(buf, len, FAMILY + 1, collect, &s), 0);
	CHECK_EQ_INT(s.n, 0);

	/* an old kernel's struct, before ac_tgid (version 12): tgid unknown */
	len = craft(buf, 4242, &st, offsetof(struct taskstats, ac_tgid));
	CHECK_EQ_INT(tl_taskstats_parse(buf, len, FAMILY, collect, &s), 1);
	CHECK_EQ_INT(s.tgid, -1);
	CHECK_EQ_INT(s.k.invol, 3);

	/* shorter than nivcsw: malformed */
	len = craft(buf, 4242, &st, offsetof(struct taskstats, nivcsw));
	CHECK_EQ_INT(tl_taskstats_parse(buf, len, FAMILY, collect, &s), -1);

	/* every truncation of a good message is refused or yields nothing, never read past */
	len = craft(buf, 4242, &st, sizeof(st));
	for (size_t cut = 0; cut < len; cut++) {
		long r = tl_taskstats_parse(buf, cut, FAMILY, collect, &s);
		CHECK(r <= 0);
	}
}

TEST(test_parse_error_and_ack)
{
	uint8_t buf[64];
	struct nlmsghdr n = { NLMSG_HDRLEN + sizeof(struct nlmsgerr), NLMSG_ERROR, 0, 1, 0 };
	struct nlmsgerr e = { 0 };
	struct seen s = { 0 };

	memcpy(buf, &n, sizeof(n));
	memcpy(buf + NLMSG_HDRLEN, &e, sizeof(e));
	CHECK_EQ_INT(tl_taskstats_parse(buf, n.nlmsg_len, FAMILY, collect, &s), 0); /* an ack */
	e.error = -EPERM;
	memcpy(buf + NLMSG_HDRLEN, &e, sizeof(e));
	CHECK_EQ_INT(tl_taskstats_parse(buf, n.nlmsg_len, FAMILY, collect, &s), -1);
	CHECK(strstr(tl_error_msg(), "taskstats") != NULL);
}

/* ---- live, as root ---- */

TEST(test_query_against_proc)
{
	struct tl_taskstats *ts = tl_taskstats_open(0);
	struct tl_kstat p0, q, p1;
	int32_t tgid = 0;
	volatile uint64_t sink = 0;
	uint64_t t;

	if (geteuid() != 0) {
		CHECK(ts == NULL);
		return;
	}
	CHECK(ts != NULL);
	if (!ts)
		return;
	t = thread_cpu_ns();
	while (thread_cpu_ns() - t < 20000000ull)
		sink++;
	CHECK_EQ_INT(tl_kstat_read(getpid(), gettid(), &p0), 0);
	CHECK_EQ_INT(tl_taskstats_query(ts, gettid(), &q, &tgid), 0);
	CHECK_EQ_INT(tl_kstat_read(getpid(), gettid(), &p1), 0);
	CHECK_EQ_INT(q.tid, gettid());
	CHECK_EQ_INT(tgid, getpid());
	/* the same sum_exec_runtime, read in between: within one tick (10 ms) of the /proc reads around it */
	CHECK(q.run_ns + 10000000ull >= p0.run_ns);
	CHECK(q.run_ns <= p1.run_ns + 10000000ull);
	CHECK(q.vol >= p0.vol && q.vol <= p1.vol);
	CHECK(q.wait_ns >= p0.wait_ns && q.wait_ns <= p1.wait_ns);
	CHECK_EQ_INT(tl_taskstats_query(ts, 2147483000, &q, NULL), -1);
	tl_taskstats_close(ts);
}

struct want {
	int32_t tid;
	int found;
	struct tl_kstat k;
};

static void find_child(const struct tl_kstat *k, int32_t tgid, void *ctx)
{
	struct want *w = ctx;

	if (k->tid == w->tid) {
		w->found = 1;
		w->k = *k;
	}
}

TEST(test_exit_totals_against_child_clock)
{
	struct tl_taskstats *ts;
	struct want w = { 0 };
	uint64_t own = 0;
	int fds[2];
	pid_t pid;

	if (geteuid() != 0)
		return;
	ts = tl_taskstats_open(1);
	CHECK(ts != NULL);
	if (!ts || pipe(fds))
		return;
	pid = fork();
	if (pid == 0) {
		volatile uint64_t sink = 0;
		uint64_t t = thread_cpu_ns(), end;

		while (thread_cpu_ns() - t < 30000000ull)
			sink++;
		for (int i = 0; i < 4; i++)
			usleep(1000);
		end = thread_cpu_ns();
		if (write(fds[1], &end, sizeof(end)) != sizeof(end))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	CHECK(read(fds[0], &own, sizeof(own)) == sizeof(own));
	close(fds[0]);
	waitpid(pid, NULL, 0);
	w.tid = pid;
	for (int i = 0; i < 100 && !w.found; i++) {
		struct pollfd p = { tl_taskstats_fd(ts), POLLIN, 0 };

		poll(&p, 1, 10);
		CHECK(tl_taskstats_drain(ts, find_child, &w, NULL) >= 0);
	}
	CHECK(w.found);
	/* its final total: all of its own clock, plus the exit path (well under 5 ms) */
	CHECK(w.k.run_ns >= own);
	CHECK(w.k.run_ns < own + 5000000ull);
	CHECK(w.k.vol >= 4);
	tl_taskstats_close(ts);
}

int main(void)
{
	RUN_TESTS(test_parse_exact, test_parse_error_and_ack, test_query_against_proc,
	          test_exit_totals_against_child_clock);
}
