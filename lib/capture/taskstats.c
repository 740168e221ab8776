/*
 * taskstats.c - the taskstats generic-netlink family (see taskstats.h).
 *
 * Two sockets: one for requests (a query and its reply), one that only
 * receives the exit messages, so a reply is never mixed up with an exit.
 * Every length from the kernel is checked before it is used; the parser is
 * pure and fuzzed (tests/fuzz/fuzz_taskstats.c).
 */
#include "capture/taskstats.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/errors.h"
#include "capture/procsnap.h"

#define RCVBUF (4 << 20) /* exits of a fork-heavy program arrive in bursts */
#define MSGBUF 16384

struct tl_taskstats {
	int req;    /* requests and their replies */
	int listen; /* exits, or -1 */
	uint16_t family;
	uint32_t seq;
	char cpumask[256]; /* what the listener registered, for deregistering */
};

struct msg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[512];
};

/* ---- parsing ---- */

/* Walk the attributes in [p, p+len): fn(type, payload, payload_len, arg) for each; -1 if malformed. */
static int each_attr(const uint8_t *p, size_t len, int (*fn)(int, const uint8_t *, size_t, void *), void *arg)
{
	while (len >= NLA_HDRLEN) {
		struct nlattr a;
		size_t step;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			return -1;
		if (fn(a.nla_type & NLA_TYPE_MASK, p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN, arg))
			return -1;
		step = NLA_ALIGN(a.nla_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return 0;
}

struct aggr {
	int32_t tid, tgid;
	int have_stats;
	struct tl_kstat k;
};

static uint64_t field(const uint8_t *s, size_t len, size_t off)
{
	uint64_t v = 0;

	if (off + sizeof(v) <= len)
		memcpy(&v, s + off, sizeof(v));
	return v;
}

static int aggr_attr(int type, const uint8_t *p, size_t len, void *arg)
{
	struct aggr *ag = arg;

	if (type == TASKSTATS_TYPE_PID) {
		uint32_t pid;

		if (len < sizeof(pid))
			return -1;
		memcpy(&pid, p, sizeof(pid));
		ag->tid = (int32_t)pid;
	} else if (type == TASKSTATS_TYPE_STATS) {
		uint32_t tgid = 0;

		if (len < offsetof(struct taskstats, nivcsw) + sizeof(uint64_t))
			return -1;
		ag->k.run_ns = field(p, len, offsetof(struct taskstats, cpu_run_virtual_total));
		ag->k.wait_ns = field(p, len, offsetof(struct taskstats, cpu_delay_total));
		ag->k.blkio_ns = field(p, len, offsetof(struct taskstats, blkio_delay_total));
		ag->k.vol = field(p, len, offsetof(struct taskstats, nvcsw));
		ag->k.invol = field(p, len, offsetof(struct taskstats, nivcsw));
		ag->k.have = TL_KSTAT_SCHED | TL_KSTAT_BLKIO | TL_KSTAT_SWITCHES;
		if (offsetof(struct taskstats, ac_tgid) + sizeof(tgid) <= len)
			memcpy(&tgid, p + offsetof(struct taskstats, ac_tgid), sizeof(tgid));
		ag->tgid = tgid ? (int32_t)tgid : -1;
		ag->have_stats = 1;
	}
	return 0;
}

struct top {
	tl_taskstats_fn fn;
	void *ctx;
	long n;
};

static int top_attr(int type, const uint8_t *p, size_t len, void *arg)
{
	struct top *t = arg;
	struct aggr ag = { .tid = -1, .tgid = -1 };

	if (type != TASKSTATS_TYPE_AGGR_PID)
		return 0; /* AGGR_TGID (a process's totals), NULL padding */
	if (each_attr(p, len, aggr_attr, &ag) || ag.tid <= 0 || !ag.have_stats)
		return -1;
	ag.k.tid = ag.tid;
	t->fn(&ag.k, ag.tgid, t->ctx);
	t->n++;
	return 0;
}

long tl_taskstats_parse(const void *buf, size_t len, uint16_t family, tl_taskstats_fn fn, void *ctx)
{
	const uint8_t *p = buf;
	struct top t = { fn, ctx, 0 };

	while (len >= NLMSG_HDRLEN) {
		struct nlmsghdr n;
		size_t step;

		memcpy(&n, p, sizeof(n));
		if (n.nlmsg_len < NLMSG_HDRLEN || n.nlmsg_len > len)
			return tl_error("malformed taskstats message");
		if (n.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;

			if (n.nlmsg_len < NLMSG_HDRLEN + sizeof(e))
				return tl_error("malformed taskstats message");
			memcpy(&e, p + NLMSG_HDRLEN, sizeof(e));
			if (e.error) {
				errno = e.error < 0 && e.error > -4096 ? -e.error : EPROTO;
				return tl_error_errno("taskstats");
			}
		} else if (n.nlmsg_type == family) {
			if (n.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
				return tl_error("malformed taskstats message");
			if (each_attr(p + NLMSG_HDRLEN + GENL_HDRLEN, n.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
			              top_attr, &t))
				return tl_error("malformed taskstats message");
		}
		step = NLMSG_ALIGN(n.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return t.n;
}

/* ---- requests ---- */

static void put_attr(struct msg *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)m + NLMSG_ALIGN(m->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	m->n.nlmsg_len = NLMSG_ALIGN(m->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void start_msg(struct tl_taskstats *ts, struct msg *m, uint16_t type, uint8_t cmd, uint16_t flags)
{
	memset(m, 0, sizeof(*m));
	m->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->n.nlmsg_type = type;
	m->n.nlmsg_flags = NLM_F_REQUEST | flags;
	m->n.nlmsg_seq = ++ts->seq;
	m->g.cmd = cmd;
	m->g.version = TASKSTATS_GENL_VERSION;
}

static int send_msg(int fd, struct msg *m)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (sendto(fd, m, m->n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)m->n.nlmsg_len)
		return tl_error_errno("taskstats: cannot send");
	return 0;
}

static int nl_socket(int nonblock)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), NETLINK_GENERIC);
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };

	if (fd < 0)
		return tl_error_errno("taskstats: no generic netlink socket");
	if (bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		close(fd);
		return tl_error_errno("taskstats: cannot bind");
	}
	return fd;
}

static int family_attr(int type, const uint8_t *p, size_t len, void *arg)
{
	if (type == CTRL_ATTR_FAMILY_ID && len >= 2)
		memcpy(arg, p, 2);
	return 0;
}

/* The family's id from the controller; 0 with tl_error set if the kernel has none. */
static uint16_t family_id(struct tl_taskstats *ts)
{
	struct msg m;
	char buf[MSGBUF];
	uint16_t id = 0;
	ssize_t n;
	struct nlmsghdr h;

	start_msg(ts, &m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	m.g.version = 1;
	put_attr(&m, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME));
	if (send_msg(ts->req, &m))
		return 0;
	n = recv(ts->req, buf, sizeof(buf), 0);
	if (n < (ssize_t)(NLMSG_HDRLEN + GENL_HDRLEN)) {
		tl_error_errno("taskstats: no answer from the netlink controller");
		return 0;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.nlmsg_type == NLMSG_ERROR || h.nlmsg_len > (size_t)n || h.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
		tl_error("the kernel has no taskstats (CONFIG_TASKSTATS)");
		return 0;
	}
	each_attr((uint8_t *)buf + NLMSG_HDRLEN + GENL_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, family_attr,
	          &id);
	if (!id)
		tl_error("the kernel has no taskstats (CONFIG_TASKSTATS)");
	return id;
}

/* Send a request for ack on fd and wait for it.  0, or -1 with tl_error set. */
static int request_ack(struct tl_taskstats *ts, int fd, struct msg *m)
{
	char buf[MSGBUF];
	ssize_t n;

	m->n.nlmsg_flags |= NLM_F_ACK;
	if (send_msg(fd, m))
		return -1;
	for (;;) {
		struct nlmsghdr h;
		struct nlmsgerr e;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)(NLMSG_HDRLEN + sizeof(e)))
			return tl_error_errno("taskstats: no acknowledgement");
		memcpy(&h, buf, sizeof(h));
		if (h.nlmsg_type != NLMSG_ERROR || h.nlmsg_seq != m->n.nlmsg_seq)
			continue; /* an exit that came first */
		memcpy(&e, buf + NLMSG_HDRLEN, sizeof(e));
		if (e.error) {
			errno = e.error < 0 && e.error > -4096 ? -e.error : EPROTO;
			return tl_error_errno("taskstats");
		}
		return 0;
	}
}

struct tl_taskstats *tl_taskstats_open(int listen_exits)
{
	struct tl_taskstats *ts = calloc(1, sizeof(*ts));

	if (!ts) {
		tl_error("out of memory");
		return NULL;
	}
	ts->listen = -1;
	if ((ts->req = nl_socket(0)) < 0 || !(ts->family = family_id(ts)))
		goto fail;
	if (listen_exits) {
		struct msg m;
		int rcv = RCVBUF;

		if (tl_read_small(AT_FDCWD, "/sys/devices/system/cpu/possible", ts->cpumask, sizeof(ts->cpumask)) < 0) {
			tl_error_errno("cannot read /sys/devices/system/cpu/possible");
			goto fail;
		}
		ts->cpumask[strcspn(ts->cpumask, "\n")] = 0;
		if ((ts->listen = nl_socket(0)) < 0)
			goto fail;
		/* SO_RCVBUFFORCE needs CAP_NET_ADMIN, as taskstats does; fall back to the capped size. */
		if (setsockopt(ts->listen, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
			setsockopt(ts->listen, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
		start_msg(ts, &m, ts->family, TASKSTATS_CMD_GET, 0);
		put_attr(&m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, ts->cpumask, strlen(ts->cpumask) + 1);
		if (request_ack(ts, ts->listen, &m)) {
			ts->cpumask[0] = 0;
			goto fail;
		}
		fcntl(ts->listen, F_SETFL, fcntl(ts->listen, F_GETFL) | O_NONBLOCK);
	}
	return ts;
fail:
	tl_taskstats_close(ts);
	return NULL;
}

void tl_taskstats_close(struct tl_taskstats *ts)
{
	if (!ts)
		return;
	if (ts->listen >= 0 && ts->cpumask[0]) {
		struct msg m;

		start_msg(ts, &m, ts->family, TASKSTATS_CMD_GET, 0);
		put_attr(&m, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, ts->cpumask, strlen(ts->cpumask) + 1);
		send_msg(ts->listen, &m); /* the kernel also drops a closed listener by itself */
	}
	if (ts->listen >= 0)
		close(ts->listen);
	if (ts->req >= 0)
		close(ts->req);
	free(ts);
}

int tl_taskstats_fd(const struct tl_taskstats *ts)
{
	return ts ? ts->listen : -1;
}

struct one {
	int32_t tid, tgid;
	int found;
	struct tl_kstat *k;
};

static void take_one(const struct tl_kstat *k, int32_t tgid, void *ctx)
{
	struct one *o = ctx;

	if (k->tid == o->tid) {
		*o->k = *k;
		o->tgid = tgid;
		o->found = 1;
	}
}

int tl_taskstats_query(struct tl_taskstats *ts, int32_t tid, struct tl_kstat *k, int32_t *tgid)
{
	struct msg m;
	char buf[MSGBUF];
	uint32_t pid = (uint32_t)tid;
	struct one o = { tid, -1, 0, k };

	start_msg(ts, &m, ts->family, TASKSTATS_CMD_GET, 0);
	put_attr(&m, TASKSTATS_CMD_ATTR_PID, &pid, sizeof(pid));
	if (send_msg(ts->req, &m))
		return -1;
	for (;;) {
		ssize_t n = recv(ts->req, buf, sizeof(buf), 0);
		struct nlmsghdr h;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)NLMSG_HDRLEN)
			return tl_error_errno("taskstats: no answer for thread %d", (int)tid);
		memcpy(&h, buf, sizeof(h));
		if (h.nlmsg_seq != m.n.nlmsg_seq)
			continue; /* a late answer to an earlier request */
		if (tl_taskstats_parse(buf, (size_t)n, ts->family, take_one, &o) < 0)
			return -1;
		if (!o.found)
			return tl_error("taskstats: no counters for thread %d", (int)tid);
		if (tgid)
			*tgid = o.tgid;
		return 0;
	}
}

long tl_taskstats_drain(struct tl_taskstats *ts, tl_taskstats_fn fn, void *ctx, uint64_t *lost)
{
	char buf[MSGBUF];
	long total = 0;

	if (!ts || ts->listen < 0)
		return 0;
	for (;;) {
		ssize_t n = recv(ts->listen, buf, sizeof(buf), 0);
		long k;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return total;
			if (errno == ENOBUFS) {
				if (lost)
					(*lost)++; /* at least one message; the kernel does not say how many */
				continue;
			}
			return tl_error_errno("taskstats: cannot read exits");
		}
		k = tl_taskstats_parse(buf, (size_t)n, ts->family, fn, ctx);
		if (k < 0)
			return -1;
		total += k;
	}
}
