/*
 * test_kcheck_readings.c - the self-check (analysis/kcheck) taking the
 * kernel's readings as the kernel dates them: the recorded clock lags of
 * switches and enqueues (format 1.6), readings as of their CPU's last tick
 * or the thread's switch-in, and readings whose update no event dates.
 */
#include "kcheck_test_util.h"

/*
 * The recorded clock lags (format 1.6): ten rounds of 10 ms on CPU 0.  At
 * t0 + 5 ms thread 5 is woken (its enqueue dated LW before the WAKEUP);
 * 200 us later it preempts thread 6 (the switch dated LS early); at t0 +
 * 9 ms it sleeps and 6 runs again (dated L2 early).  The kernel's numbers
 * are the trace's with each event moved by its lag, plus `off` ns of run
 * time for thread 5; with `unqueued`, 6 is preempted on its way to sleep
 * (state S), and the kernel counts none of its waits.
 */
#define LW 3008ull
#define LS 1600ull
#define L2 640ull

static struct tl_kcheck_result dated(int64_t off, int unqueued)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_kcheck_result r;

	feed(kc, kstat(0, 5, TL_KSTAT_AT_START, 0, 0, 0));
	feed(kc, kstat(0, 6, TL_KSTAT_AT_START, 0, 0, 0));
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t t0 = i * 10 * MS, wake = t0 + 5 * MS, sw1 = wake + 200000, sw2 = t0 + 9 * MS;
		struct tl_event wakeup = { .ts = wake, .type = TL_EV_WAKEUP, .cpu = 0, .tid = 5 };
		struct tl_event in = sw(sw1, 6, TL_PS_PREEMPT | (unqueued ? TL_PS_S : 0)), out = sw(sw2, 5, TL_PS_S);

		wakeup.lag = tl_lag_units(LW + 1);
		in.arg = 5;
		in.lag = tl_lag_units(LS + 1);
		out.arg = 6;
		out.lag = tl_lag_units(L2 + 1);
		iv(kc, 5, i ? t0 - MS : 0, wake, TL_ST_SLEEPING);
		feed(kc, wakeup);
		iv(kc, 6, i ? sw2 - 10 * MS : 0, sw1, TL_ST_EXECUTING);
		iv(kc, 5, wake, sw1, TL_ST_RUNNABLE);
		feed(kc, in);
		iv(kc, 5, sw1, sw2, TL_ST_EXECUTING);
		iv(kc, 6, sw1, sw2, TL_ST_READY_PREEMPT);
		feed(kc, out);
	}
	iv(kc, 6, 99 * MS, 100 * MS, TL_ST_EXECUTING);
	/* per round: 5 runs 3.8 ms - L2 + LS and waits 0.2 ms - LS + LW; 6 waits 3.8 ms - L2 + LS */
	feed(kc, kstat(100 * MS, 5, TL_KSTAT_AT_END, (int64_t)(10 * (3800000 - L2 + LS)) + off,
	               (int64_t)(10 * (200000 - LS + LW)), 0));
	feed(kc, kstat(100 * MS, 6, TL_KSTAT_AT_END, (int64_t)(62 * MS - 10 * (LS - L2)),
	               unqueued ? 0 : (int64_t)(10 * (3800000 - L2 + LS)), 0));
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	tl_kcheck_free(kc);
	return r;
}

TEST(test_recorded_clock_lags)
{
	struct tl_kcheck_result r = dated(0, 0);

	CHECK_EQ_INT(r.lags, 1);
	CHECK_EQ_INT(r.nthreads, 2);
	CHECK_EQ_INT(r.threads[0].trace.run_ns, 38 * MS);
	CHECK_EQ_INT(r.threads[0].trace.wait_ns, 2 * MS);
	CHECK_EQ_INT(r.threads[0].lag_run_ns, (int64_t)(10 * (LS - L2)));
	CHECK_EQ_INT(r.threads[0].lag_wait_ns, (int64_t)(10 * LW) - (int64_t)(10 * LS));
	CHECK_EQ_INT(r.threads[1].lag_run_ns, -(int64_t)(10 * (LS - L2)));
	CHECK_EQ_INT(r.threads[1].lag_wait_ns, (int64_t)(10 * (LS - L2)));
	/* dated, both agree exactly */
	CHECK_EQ_INT(r.threads[0].run_diff + r.threads[0].lag_run_ns, 0);
	CHECK_EQ_INT(r.threads[0].wait_diff + r.threads[0].lag_wait_ns, 0);
	CHECK_EQ_INT(r.threads[1].run_diff + r.threads[1].lag_run_ns, 0);
	CHECK_EQ_INT(r.threads[1].wait_diff + r.threads[1].lag_wait_ns, 0);
	CHECK(r.max_run_dated_pct == 0 && r.max_wait_dated_pct == 0);
	CHECK_EQ_INT(r.bad, 0);
	tl_kcheck_release(&r);

	/* 1.1 ms more run in the kernel: beyond the 1 ms tolerance, and no estimated lag is allowed */
	r = dated(1100000, 0);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	CHECK_EQ_INT(r.threads[1].ok, 1);
	tl_kcheck_release(&r);
	r = dated(900000, 0);
	CHECK_EQ_INT(r.bad, 0);
	tl_kcheck_release(&r);

	/* preempted on its way to sleep: the kernel counts none of those waits, and neither does the dated check */
	r = dated(0, 1);
	CHECK_EQ_INT(r.threads[1].trace.wait_ns, 38 * MS);
	CHECK_EQ_INT(r.threads[1].lag_wait_ns, -(int64_t)(38 * MS));
	CHECK_EQ_INT(r.threads[1].ok, 1);
	tl_kcheck_release(&r);
}

/*
 * A thread on CPU 0 through both readings (a `record -p` of a spinning
 * thread): the kernel's readings hold its run time as of the CPU's last
 * tick (the end of the local timer interrupt), 3 ms before the start
 * reading and 1 ms before the end one: its delta is 2 ms longer than the
 * 100 ms the trace saw, beyond the 1 ms tolerance, unless the readings
 * are taken as of their update.  ticks 3: a reschedule IPI at 8.5 ms, after
 * which schedule() picked it again (no SWITCH): the start reading holds
 * its run time as of then, the kernel's delta is 100.5 ms.
 */
static struct tl_kcheck_result spinning(int ticks)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_thread th = { .tid = 7, .state = TL_ST_EXECUTING, .cpu = 0 };
	struct tl_event start = kstat(10 * MS, 7, TL_KSTAT_AT_START, 1000 * MS, 0, 0);
	struct tl_event end = kstat(110 * MS, 7, TL_KSTAT_AT_END, ticks == 3 ? 1100 * MS + 500000 : 1102 * MS, 0, 0);
	struct tl_event resched = local_timer(8 * MS + 500000, 7, 0);
	struct tl_kcheck_result r;

	/* 2: the recorder tells the tick (1.6), and another timer follows it */
	if (ticks)
		feed(kc, local_timer(7 * MS, 7, ticks >= 2));
	if (ticks == 2)
		feed(kc, local_timer(9 * MS + 500000, 7,
		                     0)); /* a timer that is not the tick: the reading stays as of 7 ms */
	resched.c = TL_VEC_RESCHEDULE;
	if (ticks == 3)
		feed(kc, resched);
	tl_kcheck_event(kc, &start, &th);
	if (ticks)
		feed(kc, local_timer(109 * MS, 7, ticks >= 2));
	tl_kcheck_event(kc, &end, &th);
	iv(kc, 7, 0, 120 * MS, TL_ST_EXECUTING);
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	tl_kcheck_free(kc);
	return r;
}

TEST(test_stale_readings)
{
	struct tl_kcheck_result r = spinning(1);

	CHECK_EQ_INT(r.nthreads, 1);
	CHECK_EQ_INT(r.threads[0].trace.run_ns, 100 * MS);
	CHECK_EQ_INT(r.threads[0].run_diff, -2 * (int64_t)MS);
	CHECK_EQ_INT(r.threads[0].stale_run_ns, 1 * (int64_t)MS - 3 * (int64_t)MS); /* end's 1 ms less start's 3 */
	CHECK_EQ_INT(r.threads[0].ok, 1);
	tl_kcheck_release(&r);
	/* the tick told apart from another timer 0.5 ms before the start reading: the same */
	r = spinning(2);
	CHECK_EQ_INT(r.threads[0].stale_run_ns, -2 * (int64_t)MS);
	CHECK_EQ_INT(r.threads[0].ok, 1);
	tl_kcheck_release(&r);
	/* a reschedule IPI without a SWITCH after the tick: the start reading is as of it */
	r = spinning(3);
	CHECK_EQ_INT(r.threads[0].run_diff, -(int64_t)MS / 2);
	CHECK_EQ_INT(r.threads[0].stale_run_ns, 1 * (int64_t)MS - 3 * (int64_t)MS / 2);
	CHECK_EQ_INT(r.threads[0].ok, 1);
	tl_kcheck_release(&r);
	/* no tick in the trace: nothing to date the readings by, and 2 ms is beyond the tolerance */
	r = spinning(0);
	CHECK_EQ_INT(r.threads[0].stale_run_ns, 0);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
}

/*
 * A wait in progress at the start reading, in two intervals: thread 7 is
 * preempted at 5 ms (READY_PREEMPT), another task takes the CPU at 7 ms
 * (READY_QUANTUM: a new interval), the start reading comes at 10 ms, and
 * 7 runs again at 12 ms; it is preempted again at 108 ms and the end
 * reading comes at 110.  The kernel adds a wait to run_delay when it ends:
 * its delta holds all of 5..12 ms and none of 108..110, 7 ms, where the
 * trace's window [10, 110] holds 2 + 2 ms.  Taken as of their update, the
 * readings agree: the start's wait began at 5 ms, where the first of its
 * intervals did, before the reading (the walk followed the thread from its
 * first interval).  Dated from the second interval (7 ms), 2 ms were left
 * over, beyond the 1 ms tolerance.
 */
TEST(test_wait_across_start_reading)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_thread th = { .tid = 7, .state = TL_ST_READY_QUANTUM, .cpu = 0 };
	struct tl_event start = kstat(10 * MS, 7, TL_KSTAT_AT_START, 1000 * MS, 500 * MS, 0);
	struct tl_event end = kstat(110 * MS, 7, TL_KSTAT_AT_END, 1096 * MS, 507 * MS, 0);
	struct tl_kcheck_result r;

	iv(kc, 7, 0, 5 * MS, TL_ST_EXECUTING);
	iv(kc, 7, 5 * MS, 7 * MS, TL_ST_READY_PREEMPT);
	tl_kcheck_event(kc, &start, &th);
	iv(kc, 7, 7 * MS, 12 * MS, TL_ST_READY_QUANTUM);
	iv(kc, 7, 12 * MS, 108 * MS, TL_ST_EXECUTING);
	th.state = TL_ST_READY_PREEMPT;
	tl_kcheck_event(kc, &end, &th);
	iv(kc, 7, 108 * MS, 115 * MS, TL_ST_READY_PREEMPT);
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	CHECK_EQ_INT(r.nthreads, 1);
	if (r.nthreads == 1) {
		CHECK_EQ_INT(r.threads[0].trace.run_ns, 96 * MS);
		CHECK_EQ_INT(r.threads[0].trace.wait_ns, 4 * MS);
		CHECK_EQ_INT(r.threads[0].stale_wait_ns, -5 * (int64_t)MS + 2 * (int64_t)MS);
		CHECK_EQ_INT(r.threads[0].ok, 1);
	}
	tl_kcheck_release(&r);
	tl_kcheck_free(kc);
}

/*
 * The recorder reading its own counters 3 ms into a system-wide recording:
 * on CPU 0 since before the trace, a state the walk learns only later (no
 * CPU at the reading), and no tick of CPU 0 before it.  The kernel's start
 * figure is as of an update up to a tick period old (4 ms: the ticks told
 * at 14 and 18 ms; the end reading right at the tick of 110 ms), so a delta
 * `extra` ns longer than the trace's 100 ms agrees up to the tolerance (1
 * ms) plus 4 ms.  `ticks` 1: only the tick of 110 ms, no period known.
 */
static struct tl_kcheck_result running_before(uint64_t extra, int ticks)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_thread unseen = { .tid = 7, .state = TL_ST_UNKNOWN, .cpu = -1 };
	struct tl_thread on0 = { .tid = 7, .state = TL_ST_EXECUTING, .cpu = 0 };
	struct tl_event start = kstat(10 * MS, 7, TL_KSTAT_AT_START, 1000 * MS, 0, 0);
	struct tl_event end = kstat(110 * MS, 7, TL_KSTAT_AT_END, 1100 * MS + (int64_t)extra, 0, 0);
	struct tl_kcheck_result r;

	tl_kcheck_event(kc, &start, &unseen);
	for (uint64_t at = 14; ticks == 2 && at <= 18; at += 4)
		feed(kc, local_timer(at * MS, 7, 1));
	feed(kc, local_timer(110 * MS, 7, 1));
	tl_kcheck_event(kc, &end, &on0);
	iv(kc, 7, 0, 120 * MS, TL_ST_EXECUTING);
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	tl_kcheck_free(kc);
	return r;
}

TEST(test_reading_of_unknown_age)
{
	struct tl_kcheck_result r = running_before(3400000, 2);

	CHECK_EQ_INT(r.nthreads, 1);
	CHECK_EQ_INT(r.threads[0].run_diff, -3400000);
	CHECK_EQ_INT(r.threads[0].stale_run_ns, 0); /* the end reading right at its tick */
	CHECK_EQ_INT(r.threads[0].stale_open_start_ns, 4 * MS);
	CHECK_EQ_INT(r.threads[0].stale_open_end_ns, 4 * MS); /* stamped at its tick: maybe begun before it */
	CHECK_EQ_INT(r.threads[0].ok, 1);
	tl_kcheck_release(&r);
	/* 5 ms + 1 us is beyond a tick period and the tolerance */
	r = running_before(5 * MS + 1000, 2);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
	r = running_before(5 * MS, 2);
	CHECK_EQ_INT(r.threads[0].ok, 1);
	tl_kcheck_release(&r);
	/* no two ticks of a CPU: no period to allow, 3.4 ms is beyond the tolerance as before */
	r = running_before(3400000, 1);
	CHECK_EQ_INT(r.threads[0].stale_open_start_ns, 0);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
}

static struct tl_event taken_on(uint64_t ts, int cpu, int32_t tid, int64_t ns)
{
	struct tl_event e = { .ts = ts, .type = TL_EV_CLOCK_TAKEN, .cpu = (int16_t)cpu, .tid = tid };

	e.a = ns;
	return e;
}

/*
 * CLOCK_TAKEN (1.15): thread 8 runs on CPU 0 from 10 to 110 ms of a 300 ms
 * window; the run queue's taken time grows 12 ms by its tick at 50 ms and
 * 8 ms more by its switch-out, 20 ms the kernel left out of its run (80 ms),
 * and 4 ms while the idle task holds the CPU after (not its).  `in`: its
 * switch-in is in the trace (else it ran since before the trace: the
 * first value comes in its stay, late, and only the 8 ms after it are
 * known).  `with`: the trace has the values (else, as a trace before
 * 1.15: 20 ms over, beyond the 3 ms tolerance).  `mixed`: the value at
 * its switch-out comes from CPU 1 (its move there not in the trace): not
 * the same counter, so nothing is known of its stay but the first 12 ms,
 * and steal is allowed for as before 1.15 (none here).
 */
static struct tl_kcheck_result taken_run(int in, int with, int mixed)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_kcheck_result r;
	struct tl_event s = sw(10 * MS, 0, 0);

	s.arg = 8;
	feed(kc, kstat(0, 8, TL_KSTAT_AT_START, 0, 0, 0));
	if (with)
		feed(kc, taken_on(10 * MS, 0, 0, 1000 * MS));
	if (in)
		feed(kc, s);
	if (with) {
		feed(kc, taken_on(50 * MS, 0, 8, 1012 * MS));
		feed(kc, taken_on(110 * MS, mixed, 8, 1020 * MS));
	}
	feed(kc, sw(110 * MS, 8, TL_PS_S));
	if (with)
		feed(kc, taken_on(200 * MS, 0, 0, 1024 * MS));
	iv(kc, 8, 10 * MS, 110 * MS, TL_ST_EXECUTING);
	feed(kc, kstat(300 * MS, 8, TL_KSTAT_AT_END, 80 * MS, 0, 0));
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	CHECK_EQ_INT(r.nthreads, 1);
	CHECK_EQ_INT(r.threads[0].run_diff, 20 * (int64_t)MS);
	tl_kcheck_free(kc);
	return r;
}

TEST(test_clock_taken)
{
	struct tl_kcheck_result r = taken_run(1, 1, 0);

	CHECK_EQ_INT(r.threads[0].taken_ns, 20 * MS);
	CHECK_EQ_INT(r.threads[0].steal_ns, 0);
	CHECK_EQ_INT(r.threads[0].ok, 1);
	tl_kcheck_release(&r);
	/* its first value in its stay: 8 ms known, 12 beyond the tolerance (no steal counters to allow) */
	r = taken_run(0, 1, 0);
	CHECK_EQ_INT(r.threads[0].taken_ns, 8 * MS);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
	r = taken_run(1, 0, 0);
	CHECK_EQ_INT(r.threads[0].taken_ns, 0);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
	r = taken_run(1, 1, 1);
	CHECK_EQ_INT(r.threads[0].taken_ns, 12 * MS);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
}

/*
 * A reading under way when its CPU's tick came (its span, from its stamp
 * back TL_KSTAT_READ_SPAN_NS, holds the tick): the kernel's numbers may
 * be as of the tick before.  Thread 7 on CPU 0 throughout, ticks every 4
 * ms from 2 to 106 ms; the start reading at 3 ms (1 ms after a tick: as of
 * it), the end one `end_us` after the 106 ms tick, holding the run as of
 * the tick at `as_of` ms.  Seen twice in `record -p` of a spinner: an end
 * reading 15 and 34 us after a tick held the one before, the kernel's
 * delta 4 ms short, and the check failed.
 */
static struct tl_kcheck_result reading_span(uint64_t end_us, uint64_t as_of)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_thread th = { .tid = 7, .state = TL_ST_EXECUTING, .cpu = 0 };
	struct tl_event start = kstat(3 * MS, 7, TL_KSTAT_AT_START, 1002 * MS, 0, 0);
	struct tl_event end = kstat(106 * MS + end_us * 1000, 7, TL_KSTAT_AT_END, 1000 * MS + as_of * MS, 0, 0);
	struct tl_event in = { .ts = 0, .type = TL_EV_SWITCH, .cpu = 0, .tid = 5, .arg = 7 };
	struct tl_kcheck_result r;

	in.lag = tl_lag_units(1); /* a trace with clock lags (the verdict says what it allowed for), this one 0 */
	feed(kc, in);
	for (uint64_t at = 2; at <= 106; at += 4) {
		feed(kc, local_timer(at * MS, 7, 1));
		if (at == 2)
			tl_kcheck_event(kc, &start, &th);
	}
	tl_kcheck_event(kc, &end, &th);
	iv(kc, 7, 0, 120 * MS, TL_ST_EXECUTING);
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	tl_kcheck_free(kc);
	CHECK_EQ_INT(r.nthreads, 1);
	CHECK_EQ_INT(r.threads[0].stale_open_start_ns, 0); /* 1 ms after its tick: as of it */
	return r;
}

TEST(test_reading_across_a_tick)
{
	/* 100 us after the tick, as of the one before: 4 ms short, allowed for */
	struct tl_kcheck_result r = reading_span(100, 102);

	CHECK_EQ_INT(r.threads[0].run_diff, 3100 * (int64_t)1000);
	CHECK_EQ_INT(r.threads[0].stale_run_ns, 100000 - (int64_t)MS);
	CHECK_EQ_INT(r.threads[0].stale_open_end_ns, 4 * MS);
	CHECK_EQ_INT(r.threads[0].ok, 1);
	CHECK_EQ_INT(r.threads[0].allowed, 1);
	tl_kcheck_release(&r);

	/* as of that tick: agrees, nothing allowed for */
	r = reading_span(100, 106);
	CHECK_EQ_INT(r.threads[0].ok, 1);
	CHECK_EQ_INT(r.threads[0].allowed, 0);
	tl_kcheck_release(&r);

	/* 300 us after it, past the span: it must hold the tick, and 4 ms short disagrees */
	r = reading_span(300, 102);
	CHECK_EQ_INT(r.threads[0].stale_open_end_ns, 0);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
}

/*
 * Exit totals with the EXIT lost.  Thread 9, born at 20 ms on CPU 0,
 * runnable to 21, on the CPU from its switch-in at 21 until 26 ms, where
 * events are lost (the stay ends in UNKNOWN: `at_gap`) or it is preempted
 * (a switch, which updates its run time); a tick at 22 (with `tick`).  The
 * kernel's totals, read at 27 ms, have 1 ms of run: as of the tick, the
 * trace's 5 ms hold 4 ms since (lag_exit) the kernel may not have.  Seen:
 * a seq in a lossy recording, 1.235 ms on a CPU against the kernel's
 * 0.140 (a 1.08 ms stay, no tick, before the gap).
 */
static struct tl_kcheck_result exit_at_gap(int at_gap, int tick)
{
	struct tl_kcheck *kc = tl_kcheck_new();
	struct tl_kcheck_result r;
	struct tl_event fork = { .ts = 20 * MS, .type = TL_EV_FORK, .cpu = 0, .tid = 9, .arg = 7 };
	struct tl_event in = { .ts = 21 * MS, .type = TL_EV_SWITCH, .cpu = 0, .tid = 7, .arg = 9 };
	struct tl_event lost = { .ts = 26 * MS, .type = TL_EV_LOST, .cpu = 0, .a = 3 };
	struct tl_interval stay = { 21 * MS, 26 * MS, TL_ST_EXECUTING, 0, 0, TL_ST_UNKNOWN, 0 };

	in.lag = tl_lag_units(1); /* a trace with clock lags, this one 0 */
	feed(kc, fork);
	iv(kc, 9, 20 * MS, 21 * MS, TL_ST_RUNNABLE);
	feed(kc, in);
	if (tick)
		feed(kc, local_timer(22 * MS, 9, 1));
	if (!at_gap) {
		stay.next = TL_ST_READY_PREEMPT;
		feed(kc, sw(26 * MS, 9, TL_PS_PREEMPT));
	}
	tl_kcheck_interval(kc, 9, &stay);
	feed(kc, lost);
	iv(kc, 9, 26 * MS, 27 * MS, at_gap ? TL_ST_UNKNOWN : TL_ST_READY_PREEMPT);
	feed(kc, kstat(27 * MS, 9, TL_KSTAT_AT_EXIT, MS, MS, -1));
	CHECK_EQ_INT(tl_kcheck_finish(kc, &r), 0);
	tl_kcheck_free(kc);
	CHECK_EQ_INT(r.nthreads, 1);
	CHECK_EQ_INT(r.threads[0].to, 27 * MS);
	CHECK_EQ_INT(r.threads[0].trace.run_ns, 5 * MS);
	return r;
}

TEST(test_exit_totals_at_a_gap)
{
	struct tl_kcheck_result r = exit_at_gap(1, 1);

	CHECK_EQ_INT(r.threads[0].lag_exit_ns, 4 * MS); /* from the tick */
	CHECK_EQ_INT(r.threads[0].ok, 1);
	CHECK_EQ_INT(r.threads[0].allowed, 1);
	tl_kcheck_release(&r);

	r = exit_at_gap(1, 0);
	CHECK_EQ_INT(r.threads[0].lag_exit_ns, 5 * MS); /* from the switch-in */
	CHECK_EQ_INT(r.threads[0].ok, 1);
	tl_kcheck_release(&r);

	/* preempted before the gap: the switch updated its run time, nothing is allowed */
	r = exit_at_gap(0, 1);
	CHECK_EQ_INT(r.threads[0].lag_exit_ns, 0);
	CHECK_EQ_INT(r.threads[0].ok, 0);
	tl_kcheck_release(&r);
}

int main(void)
{
	RUN_TESTS(test_recorded_clock_lags, test_stale_readings, test_reading_of_unknown_age,
	          test_wait_across_start_reading, test_clock_taken, test_exit_totals_at_a_gap,
	          test_reading_across_a_tick);
}
