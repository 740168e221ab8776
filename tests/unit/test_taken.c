/*
 * test_taken.c - a thread's share of what the run queue took out of its
 * CPU's clock (timeline/taken.h): the growth of CLOCK_TAKEN over a stay,
 * and each case where it is not known.
 */
#include "harness.h"
#include "timeline/taken.h"

static struct tl_event taken(int cpu, int32_t tid, int64_t v)
{
	return (struct tl_event){ .type = TL_EV_CLOCK_TAKEN, .cpu = cpu, .tid = tid, .a = v };
}

/* CPU cpu switches from prev to next. */
static struct tl_event sw(int cpu, int32_t prev, int32_t next)
{
	return (struct tl_event){ .type = TL_EV_SWITCH, .cpu = cpu, .tid = prev, .arg = next };
}

static uint64_t ns, now;

/* Feeds ev at its time, or 1 ms after the last event when it has none. */
static enum tl_taken_grew feed(struct tl_taken *tk, struct tl_event ev)
{
	now = ev.ts ? ev.ts : now + 1000000;
	ev.ts = now;
	ns = 12345; /* tl_taken_event must set it */
	return tl_taken_event(tk, &ev, &ns);
}

/* Two stays of thread 7 on CPU 1, the second with a tick's value in the middle: each its own growth. */
TEST(stays)
{
	struct tl_taken tk = { 0 };
	struct tl_event other = { .type = TL_EV_WAKEUP, .cpu = 1, .tid = 7 };

	CHECK_EQ_INT(feed(&tk, other), TL_TAKEN_NONE);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(tk.ncpu, 0); /* other events are not read */
	CHECK_EQ_INT(feed(&tk, sw(1, 0, 8)), TL_TAKEN_NONE);
	CHECK_EQ_INT(feed(&tk, taken(1, 8, 1000)), TL_TAKEN_UNKNOWN); /* 8 came before the first value */
	CHECK_EQ_INT(tk.seen, 1);
	CHECK_EQ_INT(feed(&tk, sw(1, 8, 7)), TL_TAKEN_NONE);
	CHECK_EQ_INT(feed(&tk, taken(1, 7, 1600)), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 600);
	CHECK_EQ_INT(feed(&tk, sw(1, 7, 8)), TL_TAKEN_NONE);
	CHECK_EQ_INT(feed(&tk, taken(1, 8, 1700)), TL_TAKEN_GREW); /* 8's stay: from 7's last value */
	CHECK_EQ_INT(ns, 100);
	CHECK_EQ_INT(feed(&tk, sw(1, 8, 7)), TL_TAKEN_NONE);
	CHECK_EQ_INT(feed(&tk, taken(1, 7, 1700)), TL_TAKEN_GREW); /* a tick, nothing taken */
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, taken(1, 7, 21700)), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 20000);
	tl_taken_free(&tk);
	CHECK_EQ_INT(tk.ncpu, 0);
}

/* On the CPU since before its first SWITCH: the first growth is not known, the next one is. */
TEST(from_the_start)
{
	struct tl_taken tk = { 0 };

	CHECK_EQ_INT(feed(&tk, taken(0, 7, 500)), TL_TAKEN_UNKNOWN);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, taken(0, 7, 800)), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 300);
	tl_taken_free(&tk);
}

/* A LOST since its base, or a value for another thread than the CPU's: broken, and it starts again. */
TEST(broken)
{
	struct tl_taken tk = { 0 };
	struct tl_event lost = { .type = TL_EV_LOST, .cpu = 0, .a = 3 };

	feed(&tk, taken(0, 0, 100));
	feed(&tk, sw(0, 0, 7));
	CHECK_EQ_INT(feed(&tk, lost), TL_TAKEN_NONE);
	CHECK_EQ_INT(tk.lost, 1);
	CHECK_EQ_INT(feed(&tk, taken(0, 7, 900)), TL_TAKEN_BROKEN);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, taken(0, 7, 950)), TL_TAKEN_GREW); /* from the new base */
	CHECK_EQ_INT(ns, 50);
	/* a migration to CPU 1 no SWITCH told of: CPU 1 holds thread 9 */
	feed(&tk, sw(1, 0, 9));
	CHECK_EQ_INT(feed(&tk, taken(1, 7, 9000)), TL_TAKEN_BROKEN);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, taken(1, 7, 9040)), TL_TAKEN_GREW); /* CPU 1's thread is 7 from there */
	CHECK_EQ_INT(ns, 40);
	CHECK_EQ_INT(feed(&tk, taken(1, 9, 9090)), TL_TAKEN_BROKEN);
	tl_taken_free(&tk);
}

/*
 * Damage: a negative value or a CPU out of range changes nothing; a value
 * that went down grows by 0, and so does one back up to the highest (a
 * torn read, taken.c: the spike counts once).
 */
TEST(damage)
{
	struct tl_taken tk = { 0 };

	feed(&tk, taken(0, 0, 700));
	feed(&tk, sw(0, 0, 7));
	CHECK_EQ_INT(feed(&tk, taken(0, 7, -5)), TL_TAKEN_NONE);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, taken(5000, 7, 10)), TL_TAKEN_NONE);
	CHECK_EQ_INT(feed(&tk, sw(-1, 7, 8)), TL_TAKEN_NONE);
	CHECK(tk.ncpu < 5000);
	CHECK_EQ_INT(feed(&tk, taken(0, 7, 600)), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, taken(0, 7, 640)), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, taken(0, 7, 760)), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 60);
	CHECK_EQ_INT(tk.oom, 0);
	tl_taken_free(&tk);
}

/* More taken than the time since the base (a value missing between): broken; the next one counts again. */
TEST(more_than_the_time)
{
	struct tl_taken tk = { 0 };
	struct tl_event e = taken(0, 7, 100);

	e.ts = 10000;
	feed(&tk, e);
	e = sw(0, 7, 8);
	e.ts = 20000;
	feed(&tk, e);
	e = taken(0, 8, 100 + 1030001); /* 1.030001 ms taken in 30 us, more than the slack of 1 ms allows */
	e.ts = 50000;
	CHECK_EQ_INT(feed(&tk, e), TL_TAKEN_BROKEN);
	CHECK_EQ_INT(ns, 0);
	e = taken(0, 8, 100 + 1030001 + 1030000); /* 1.03 ms in 30 us: the slack's worth more, possible */
	e.ts = 80000;
	CHECK_EQ_INT(feed(&tk, e), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 1030000);
	/* a switch-in dated 2 ms before it by its lag (the clock update of an idle exit): 2.5 ms is possible */
	e = sw(0, 8, 9);
	e.ts = 3000000;
	e.lag = tl_lag_units(2000000 + 1);
	feed(&tk, e);
	e = taken(0, 9, 100 + 2060001 + 2500000);
	e.ts = 3500000;
	CHECK_EQ_INT(feed(&tk, e), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 2500000);
	tl_taken_free(&tk);
}

int main(void)
{
	RUN_TESTS(stays, from_the_start, broken, damage, more_than_the_time);
}
