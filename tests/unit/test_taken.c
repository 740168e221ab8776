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

/* Feeds ev and, for a CLOCK_TAKEN, its thread's stay s: what tl_taken_grow() says. */
static enum tl_taken_grew feed(struct tl_taken *tk, struct tl_taken_stay *s, struct tl_event ev, uint64_t *ns)
{
	CHECK_EQ_INT(tl_taken_event(tk, &ev), 0);
	*ns = 12345; /* grow must set it */
	return ev.type == TL_EV_CLOCK_TAKEN ? tl_taken_grow(tk, s, &ev, ns) : TL_TAKEN_NONE;
}

/* Two stays on CPU 1, the second with a tick's value in the middle: each its own growth. */
TEST(stays)
{
	struct tl_taken tk = { 0 };
	struct tl_taken_stay s = { 0 };
	uint64_t ns;

	CHECK_EQ_INT(tk.seen, 0);
	CHECK_EQ_INT(feed(&tk, &s, taken(1, 0, 1000), &ns), TL_TAKEN_UNKNOWN); /* another process's: not ours */
	CHECK_EQ_INT(tk.seen, 1);
	CHECK_EQ_INT(tl_taken_value(&tk, 1), 1001);
	CHECK_EQ_INT(tl_taken_value(&tk, 0), 0);
	s = (struct tl_taken_stay){ 0 };
	tl_taken_in(&tk, &s, 1);
	CHECK_EQ_INT(feed(&tk, &s, taken(1, 7, 1600), &ns), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 600);
	tl_taken_out(&tk, &s);
	CHECK_EQ_INT(s.cpu, -1);
	CHECK_EQ_INT(s.base, 0);
	tl_taken_in(&tk, &s, 1);
	CHECK_EQ_INT(feed(&tk, &s, taken(1, 7, 1600), &ns), TL_TAKEN_GREW); /* a tick, nothing taken */
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, &s, taken(1, 7, 21600), &ns), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 20000);
	tl_taken_free(&tk);
	CHECK_EQ_INT(tk.ncpu, 0);
}

/* On the CPU before its first value: the first growth is not known, the next one is. */
TEST(before_the_first_value)
{
	struct tl_taken tk = { 0 };
	struct tl_taken_stay s = { 0 };
	uint64_t ns;

	tl_taken_in(&tk, &s, 0);
	CHECK_EQ_INT(s.base, 0);
	CHECK_EQ_INT(feed(&tk, &s, taken(0, 7, 500), &ns), TL_TAKEN_UNKNOWN);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, &s, taken(0, 7, 800), &ns), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 300);
	tl_taken_free(&tk);
}

/* A LOST since its base, or a value of another CPU than its base: broken, and it starts again. */
TEST(broken)
{
	struct tl_taken tk = { 0 };
	struct tl_taken_stay s = { 0 };
	struct tl_event lost = { .type = TL_EV_LOST, .cpu = 0, .a = 3 };
	uint64_t ns;

	feed(&tk, &s, taken(0, 0, 100), &ns);
	feed(&tk, &s, taken(1, 0, 5000), &ns);
	s = (struct tl_taken_stay){ 0 };
	tl_taken_in(&tk, &s, 0);
	CHECK_EQ_INT(feed(&tk, &s, lost, &ns), TL_TAKEN_NONE);
	CHECK_EQ_INT(tk.lost, 1);
	CHECK_EQ_INT(feed(&tk, &s, taken(0, 7, 900), &ns), TL_TAKEN_BROKEN);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, &s, taken(0, 7, 950), &ns), TL_TAKEN_GREW); /* from the new base */
	CHECK_EQ_INT(ns, 50);
	/* a migration no SWITCH told of: the value on CPU 1 is not its base's CPU's */
	CHECK_EQ_INT(feed(&tk, &s, taken(1, 7, 9000), &ns), TL_TAKEN_BROKEN);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(s.cpu, 1);
	CHECK_EQ_INT(s.base, 9001);
	tl_taken_free(&tk);
}

/* Damage: a negative value or a CPU out of range changes nothing; a value that went down grows by 0. */
TEST(damage)
{
	struct tl_taken tk = { 0 };
	struct tl_taken_stay s = { 0 };
	uint64_t ns;

	feed(&tk, &s, taken(0, 0, 700), &ns);
	s = (struct tl_taken_stay){ 0 };
	tl_taken_in(&tk, &s, 0);
	CHECK_EQ_INT(feed(&tk, &s, taken(0, 7, -5), &ns), TL_TAKEN_NONE);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(s.base, 701);
	CHECK_EQ_INT(tl_taken_value(&tk, 0), 701);
	CHECK_EQ_INT(feed(&tk, &s, taken(5000, 7, 10), &ns), TL_TAKEN_NONE);
	CHECK_EQ_INT(tl_taken_value(&tk, 5000), 0);
	CHECK(tk.ncpu < 5000);
	CHECK_EQ_INT(tl_taken_value(&tk, -1), 0);
	CHECK_EQ_INT(feed(&tk, &s, taken(0, 7, 600), &ns), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 0);
	CHECK_EQ_INT(feed(&tk, &s, taken(0, 7, 640), &ns), TL_TAKEN_GREW);
	CHECK_EQ_INT(ns, 40);
	tl_taken_free(&tk);
}

int main(void)
{
	RUN_TESTS(stays, before_the_first_value, broken, damage);
}
