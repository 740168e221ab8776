/*
 * test_marks.c - the marker ring protocol, both ends in one process: the
 * instrumentation library (instr/, attached with tl_instr_attach_fd) as the
 * producer in real threads, lib/capture/marks.c as the consumer draining into a
 * trace writer, and the trace read back.  Exact expectations: every marker
 * arrives once, in each thread's order, with its thread's tid; a full ring
 * drops and counts; names are stored once however many threads use them;
 * slots of ended threads (and of a killed process) are reused; bad
 * THREADLENS_MARKS values leave markers off.
 *
 * Every test uses fresh threads for the markers: the main thread never
 * makes one, so tl_instr_detach() between tests is safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "instr.h"
#include "capture/marks.h"
#include "capture/marks_shm.h"
#include "capture/umarks.h"
#include "threadlens.h"
#include "trace/trace.h"

static char tmpdir[] = "/tmp/tl-test-marks-XXXXXX";
static char trace_path[300];

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int32_t my_tid(void)
{
	return (int32_t)syscall(SYS_gettid);
}

/* ---- one consumer: marks + writer ---- */

struct rig {
	struct tl_marks *m;
	struct tl_trace_writer *w;
	uint64_t added;
};

static int rig_open(struct rig *r, uint32_t nslots, uint32_t ring_cap, uint32_t strings)
{
	struct tl_trace_info info;

	memset(r, 0, sizeof(*r));
	memset(&info, 0, sizeof(info));
	snprintf(info.clock, sizeof(info.clock), "monotonic");
	snprintf(info.source, sizeof(info.source), "test");
	info.start_ns = mono();
	r->m = tl_marks_new_sized(nslots, ring_cap, strings);
	if (!r->m)
		return -1;
	r->w = tl_trace_writer_create(trace_path, &info);
	if (!r->w || tl_instr_attach_fd(tl_marks_fd(r->m)))
		return -1;
	return 0;
}

static void rig_drain(struct rig *r, uint64_t watermark)
{
	int64_t n = tl_marks_drain(r->m, r->w, watermark);
	CHECK(n >= 0);
	if (n > 0)
		r->added += (uint64_t)n;
}

/* Drain everything, close the file, detach; the trace is then at trace_path. */
static void rig_close(struct rig *r, struct tl_marks_stats *st)
{
	struct tl_trace_end end = { 0 };

	rig_drain(r, TL_MARKS_ALL);
	tl_marks_get_stats(r->m, st);
	end.end_ns = mono();
	end.events = r->added;
	CHECK(tl_trace_writer_close(r->w, &end) == 0);
	tl_instr_detach();
	tl_marks_free(r->m);
}

/* ---- reading the result ---- */

#define MAXEV 200000

struct got {
	struct tl_event ev[MAXEV];
	char name[MAXEV][16];
	int n;
	uint64_t late;
};

static struct got G;

static void read_back(void)
{
	struct tl_trace *t = tl_trace_open(trace_path);
	struct tl_event e;

	G.n = 0;
	CHECK(t != NULL);
	if (!t)
		return;
	while (tl_trace_next(t, &e) == 1) {
		if (G.n < MAXEV) {
			G.ev[G.n] = e;
			snprintf(G.name[G.n], sizeof(G.name[0]), "%s", tl_trace_string(t, e.name));
		}
		G.n++;
	}
	G.late = tl_trace_stats(t)->late_events;
	tl_trace_close(t);
}

static int count(unsigned type, int32_t tid, const char *name)
{
	int n = 0;
	for (int i = 0; i < G.n && i < MAXEV; i++)
		if (G.ev[i].type == type && (tid < 0 || G.ev[i].tid == tid) && (!name || !strcmp(G.name[i], name)))
			n++;
	return n;
}

static int64_t lost_of(int32_t tid)
{
	int64_t n = 0;
	for (int i = 0; i < G.n && i < MAXEV; i++)
		if (G.ev[i].type == TL_EV_MARKS_LOST && G.ev[i].tid == tid)
			n += G.ev[i].a;
	return n;
}

/* ---- producers ---- */

#define NPROD 4
#define PER_THREAD 10000

struct prod {
	pthread_t th;
	int32_t tid;
	int id;
	const uint8_t *shm; /* the test's own view of the marker memory */
};

/* The calling thread's slot, found by its tid in the slot table. */
static const struct tl_marks_slot *own_slot(const uint8_t *shm)
{
	const struct tl_marks_hdr *h = (const void *)shm;
	const struct tl_marks_entry *t = (const void *)(shm + h->table_offset);
	int32_t tid = my_tid();

	for (uint32_t i = 0; i < h->nslots; i++)
		if (__atomic_load_n(&t[i].state, __ATOMIC_ACQUIRE) == TL_MARKS_OWNED && t[i].tid == tid)
			return (const void *)(shm + h->slots_offset + (uint64_t)i * h->slot_size);
	return NULL;
}

static const char *const regions[] = { "alpha", "beta", "gamma" };

static void *producer(void *arg)
{
	struct prod *p = arg;

	const struct tl_marks_slot *s;
	uint32_t cap = ((const struct tl_marks_hdr *)p->shm)->ring_cap;

	p->tid = my_tid();
	tl_instant("start", 0);
	s = own_slot(p->shm);
	for (int i = 0; i < PER_THREAD; i++) {
		const char *r = regions[(i + p->id) % 3];
		/* Wait for room instead of dropping, so the ring wraps many times under a live consumer. */
		while (s && __atomic_load_n(&s->head, __ATOMIC_RELAXED) - __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE) >
		                    cap - 3)
			sched_yield();
		tl_region_begin(r);
		tl_instant("seq", i);
		tl_region_end(r);
	}
	return NULL;
}

TEST(concurrent_rings_exact)
{
	struct rig r;
	struct prod p[NPROD];
	struct tl_marks_stats st;
	int running = NPROD, joined[NPROD] = { 0 };

	void *shm;
	struct stat sb;

	/* Small rings: they wrap about a hundred times while the consumer drains. */
	CHECK(rig_open(&r, 16, 256, 1 << 16) == 0);
	CHECK(fstat(tl_marks_fd(r.m), &sb) == 0);
	shm = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, tl_marks_fd(r.m), 0);
	CHECK(shm != MAP_FAILED);
	for (int i = 0; i < NPROD; i++) {
		p[i].id = i;
		p[i].shm = shm;
		CHECK(pthread_create(&p[i].th, NULL, producer, &p[i]) == 0);
	}
	/* Drain while they produce, like the recorder's rounds. */
	while (running) {
		uint64_t now = mono();
		rig_drain(&r, now > 10000000 ? now - 10000000 : 0);
		running = 0;
		for (int i = 0; i < NPROD; i++) {
			if (!joined[i])
				joined[i] = pthread_tryjoin_np(p[i].th, NULL) == 0;
			running += !joined[i];
		}
		usleep(200);
	}
	rig_close(&r, &st);
	munmap(shm, (size_t)sb.st_size);
	read_back();
	CHECK_EQ_INT(st.markers, NPROD * (PER_THREAD * 3 + 1));
	CHECK_EQ_INT(st.lost, 0);
	CHECK_EQ_INT(st.malformed, 0);
	CHECK_EQ_INT(G.n, NPROD * (PER_THREAD * 3 + 1));
	CHECK_EQ_INT(G.late, 0);
	for (int i = 0; i < NPROD; i++) {
		int64_t next = 0;
		int depth = 0, bad_order = 0, bad_nest = 0;
		CHECK_EQ_INT(count(TL_EV_INSTANT, p[i].tid, "seq"), PER_THREAD);
		CHECK_EQ_INT(count(TL_EV_REGION_BEGIN, p[i].tid, NULL), PER_THREAD);
		CHECK_EQ_INT(count(TL_EV_REGION_END, p[i].tid, NULL), PER_THREAD);
		/* Each thread's markers in its own order: seq values 0, 1, 2..., each inside a region. */
		for (int k = 0; k < G.n && k < MAXEV; k++) {
			const struct tl_event *e = &G.ev[k];
			if (e->tid != p[i].tid)
				continue;
			CHECK(e->cpu == -1);
			if (e->type == TL_EV_REGION_BEGIN) {
				bad_nest += depth != 0 || e->a != -1 || strcmp(G.name[k], regions[(next + i) % 3]);
				depth++;
			} else if (e->type == TL_EV_REGION_END) {
				bad_nest += depth != 1;
				depth--;
			} else if (e->type == TL_EV_INSTANT && !strcmp(G.name[k], "seq")) {
				bad_order += e->a != next || depth != 1;
				next++;
			}
		}
		CHECK_EQ_INT(bad_order, 0);
		CHECK_EQ_INT(bad_nest, 0);
		CHECK_EQ_INT(next, PER_THREAD);
	}
	for (int k = 1; k < G.n && k < MAXEV; k++)
		CHECK(G.ev[k].ts >= G.ev[k - 1].ts);
}

/* ---- a full ring ---- */

struct burst {
	int n;
	int32_t tid;
	pthread_barrier_t *go, *done; /* NULL: just make n markers */
};

static void *bursty(void *arg)
{
	struct burst *b = arg;

	b->tid = my_tid();
	for (int i = 0; i < b->n; i++)
		tl_instant("x", i);
	if (b->go) {
		/* Wait for the consumer, then 10 more into the emptied ring. */
		pthread_barrier_wait(b->go);
		for (int i = 0; i < 10; i++)
			tl_instant("y", i);
		pthread_barrier_wait(b->done);
	}
	return NULL;
}

TEST(full_ring_drops_counted)
{
	struct rig r;
	struct tl_marks_stats st;
	pthread_barrier_t go, done;
	struct burst b = { .n = 100, .go = &go, .done = &done };
	pthread_t th;

	pthread_barrier_init(&go, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	CHECK(rig_open(&r, 4, 64, 4096) == 0);
	CHECK(pthread_create(&th, NULL, bursty, &b) == 0);
	usleep(20000); /* the 100 markers are made, 36 of them into a full ring */
	/* Half full, the thread woke the consumer through the eventfd. */
	{
		struct pollfd pf = { .fd = tl_marks_wake_fd(r.m), .events = POLLIN };
		CHECK_EQ_INT(poll(&pf, 1, 0), 1);
	}
	rig_drain(&r, mono());
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&done);
	pthread_join(th, NULL);
	rig_close(&r, &st);
	read_back();
	CHECK_EQ_INT(count(TL_EV_INSTANT, b.tid, "x"), 64);
	CHECK_EQ_INT(count(TL_EV_INSTANT, b.tid, "y"), 10);
	CHECK_EQ_INT(count(TL_EV_MARKS_LOST, b.tid, NULL), 1);
	CHECK_EQ_INT(lost_of(b.tid), 36);
	CHECK_EQ_INT(st.lost, 36);
	CHECK_EQ_INT(st.markers, 74);
	/* The first 64 survive (values 0..63): a full ring drops the newest. */
	for (int k = 0, v = 0; k < G.n && k < MAXEV; k++)
		if (G.ev[k].type == TL_EV_INSTANT && !strcmp(G.name[k], "x"))
			CHECK_EQ_INT(G.ev[k].a, v++);
	pthread_barrier_destroy(&go);
	pthread_barrier_destroy(&done);
}

/* ---- names ---- */

static void *namer(void *arg)
{
	char buf[16];

	(void)arg;
	for (int i = 0; i < 1000; i++) {
		tl_instant("alpha", i);
		tl_instant("beta", i);
		/* The same contents from a buffer that is rewritten: one name, not many. */
		snprintf(buf, sizeof(buf), "%s", i % 2 ? "gamma" : "alpha");
		tl_instant(buf, i);
	}
	return NULL;
}

TEST(names_interned_once_across_threads)
{
	struct rig r;
	struct tl_marks_stats st;
	pthread_t th[8];
	uint64_t used;
	struct tl_marks_hdr hdr;

	CHECK(rig_open(&r, 16, 1 << 13, 4096) == 0);
	for (int i = 0; i < 8; i++)
		CHECK(pthread_create(&th[i], NULL, namer, NULL) == 0);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	CHECK(pread(tl_marks_fd(r.m), &hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr));
	used = hdr.strings_used;
	rig_close(&r, &st);
	/* 4 reserved bytes, then one entry each: "alpha" and "gamma" 12 bytes (4 + 5 + NUL, padded), "beta" 12. */
	CHECK_EQ_INT(used, 4 + 12 + 12 + 12);
	read_back();
	CHECK_EQ_INT(st.markers, 8 * 3000);
	CHECK_EQ_INT(count(TL_EV_INSTANT, -1, "alpha"), 8 * 1500);
	CHECK_EQ_INT(count(TL_EV_INSTANT, -1, "beta"), 8 * 1000);
	CHECK_EQ_INT(count(TL_EV_INSTANT, -1, "gamma"), 8 * 500);
}

/*
 * Names are looked up without a lock while others add names and the table
 * grows (256 -> 2048 slots): 8 threads each make 600 names from a stack
 * buffer (a pointer the thread cache has not seen), starting at different
 * places.  Every name is stored once and every marker carries its name.
 */
static void *many_namer(void *arg)
{
	int start = (int)(intptr_t)arg * 75;
	char buf[16];

	for (int i = 0; i < 600; i++) {
		snprintf(buf, sizeof(buf), "n%03d", (start + i) % 600);
		tl_instant(buf, i);
	}
	return NULL;
}

static void names_while_growing(void)
{
	struct rig r;
	struct tl_marks_stats st;
	pthread_t th[8];
	struct tl_marks_hdr hdr;
	char name[16];
	int wrong = 0;

	CHECK(rig_open(&r, 16, 1 << 13, 1 << 15) == 0);
	for (int i = 0; i < 8; i++)
		CHECK(pthread_create(&th[i], NULL, many_namer, (void *)(intptr_t)i) == 0);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	CHECK(pread(tl_marks_fd(r.m), &hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr));
	rig_close(&r, &st);
	CHECK_EQ_INT(hdr.strings_used, 4 + 600 * 12); /* each 4-byte name once: 4 + 4 + NUL, padded to 12 */
	read_back();
	CHECK_EQ_INT(st.markers, 8 * 600);
	for (int d = 0; d < 600; d++) {
		snprintf(name, sizeof(name), "n%03d", d);
		wrong += count(TL_EV_INSTANT, -1, name) != 8;
	}
	CHECK_EQ_INT(wrong, 0);
}

/*
 * A race, so four rounds: a lookup without the lock that read a slot empty
 * and read it again after another thread put a name there gave the marker
 * that name (wrong == 2: one name once short, another once over; seen once
 * in a full check under the sanitizers).
 */
TEST(names_looked_up_while_the_table_grows)
{
	for (int round = 0; round < 4; round++)
		names_while_growing();
}

/* ---- slots: reuse, exhaustion, dead owners ---- */

TEST(slots_of_ended_threads_are_reused)
{
	struct rig r;
	struct tl_marks_stats st;
	struct tl_marks_hdr hdr;

	CHECK(rig_open(&r, 4, 64, 4096) == 0);
	for (int i = 0; i < 20; i++) {
		struct burst b = { .n = 3 };
		pthread_t th;
		CHECK(pthread_create(&th, NULL, bursty, &b) == 0);
		pthread_join(th, NULL);
		rig_drain(&r, mono()); /* takes its records and frees its slot */
	}
	CHECK(pread(tl_marks_fd(r.m), &hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr));
	CHECK_EQ_INT(hdr.slots_hiwater, 1);
	rig_close(&r, &st);
	CHECK_EQ_INT(st.markers, 60);
	CHECK_EQ_INT(st.lost, 0);
}

static void *holder(void *arg)
{
	struct burst *b = arg;

	b->tid = my_tid();
	tl_instant("held", 0);
	pthread_barrier_wait(b->go);   /* both slots are taken now */
	pthread_barrier_wait(b->done); /* the third thread has tried */
	return NULL;
}

/* 5 markers without a slot; once the others are gone, enough calls to retry the claim. */
static void *latecomer(void *arg)
{
	struct burst *b = arg;

	b->tid = my_tid();
	for (int i = 0; i < 5; i++)
		tl_instant("x", i);
	pthread_barrier_wait(b->go);
	for (int i = 0; i < b->n; i++)
		tl_instant("z", i);
	return NULL;
}

TEST(thread_without_slot_counts_lost)
{
	struct rig r;
	struct tl_marks_stats st;
	pthread_barrier_t go, done, free_again;
	struct burst h = { .go = &go, .done = &done }, third = { .n = TL_INSTR_NOSLOT_RETRY + 4, .go = &free_again };
	pthread_t th[3];

	pthread_barrier_init(&go, NULL, 3);
	pthread_barrier_init(&done, NULL, 3);
	pthread_barrier_init(&free_again, NULL, 2);
	CHECK(rig_open(&r, 2, 8192, 4096) == 0);
	CHECK(pthread_create(&th[0], NULL, holder, &h) == 0);
	CHECK(pthread_create(&th[1], NULL, holder, &h) == 0);
	pthread_barrier_wait(&go);
	CHECK(pthread_create(&th[2], NULL, latecomer, &third) == 0);
	usleep(20000); /* the latecomer's 5 markers found no slot */
	pthread_barrier_wait(&done);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	rig_drain(&r, mono()); /* both slots free again */
	pthread_barrier_wait(&free_again);
	pthread_join(th[2], NULL);
	rig_close(&r, &st);
	read_back();
	CHECK_EQ_INT(count(TL_EV_INSTANT, -1, "held"), 2);
	CHECK_EQ_INT(count(TL_EV_INSTANT, third.tid, "x"), 0);
	/* The claim is retried every TL_INSTR_NOSLOT_RETRY calls: the 5 x and the first z that many - 5 - 1. */
	CHECK_EQ_INT(lost_of(-1), TL_INSTR_NOSLOT_RETRY - 1);
	CHECK_EQ_INT(count(TL_EV_INSTANT, third.tid, "z"), third.n - (TL_INSTR_NOSLOT_RETRY - 1 - 5));
	CHECK_EQ_INT(st.lost, TL_INSTR_NOSLOT_RETRY - 1);
	pthread_barrier_destroy(&go);
	pthread_barrier_destroy(&done);
	pthread_barrier_destroy(&free_again);
}

TEST(slot_of_killed_process_is_reclaimed)
{
	struct rig r;
	struct tl_marks_stats st;
	struct tl_marks_entry e;
	struct tl_marks_hdr hdr;
	pid_t child;
	int status;

	CHECK(rig_open(&r, 4, 64, 4096) == 0);
	child = fork();
	if (child == 0) {
		/* The child's main thread claims a slot; SIGKILL: no destructor gives it back. */
		for (int i = 0; i < 3; i++)
			tl_instant("child", i);
		raise(SIGKILL);
		_exit(1);
	}
	CHECK(child > 0);
	CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status));
	CHECK(pread(tl_marks_fd(r.m), &hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr));
	rig_drain(&r, mono());
	CHECK(pread(tl_marks_fd(r.m), &e, sizeof(e), (off_t)hdr.table_offset) == (ssize_t)sizeof(e));
	CHECK_EQ_INT(e.state, TL_MARKS_OWNED); /* not yet: owners are checked once a second */
	CHECK_EQ_INT(e.tid, child);
	usleep(1100000);
	rig_drain(&r, mono());
	CHECK(pread(tl_marks_fd(r.m), &e, sizeof(e), (off_t)hdr.table_offset) == (ssize_t)sizeof(e));
	CHECK_EQ_INT(e.state, TL_MARKS_FREE);
	CHECK_EQ_INT(e.tid, 0);
	rig_close(&r, &st);
	read_back();
	CHECK_EQ_INT(count(TL_EV_INSTANT, child, "child"), 3);
}

/* ---- frames on REGION/TASK begins ---- */

static void *framer(void *arg)
{
	int32_t *tid = arg;

	*tid = my_tid();
	tl_frame_begin(5);
	tl_region_begin("in5");
	tl_region_end("in5");
	tl_frame_end(5);
	tl_region_begin("none");
	tl_region_end("none");
	tl_frame_join(9);
	tl_task_begin("in9");
	tl_task_end("in9");
	return NULL;
}

TEST(regions_carry_the_threads_frame)
{
	struct rig r;
	struct tl_marks_stats st;
	int32_t tid = 0;
	pthread_t th;
	static const struct {
		unsigned type;
		const char *name;
		int64_t a;
	} want[] = {
		{ TL_EV_FRAME_BEGIN, "", 5 },   { TL_EV_REGION_BEGIN, "in5", 5 },   { TL_EV_REGION_END, "in5", 0 },
		{ TL_EV_FRAME_END, "", 5 },     { TL_EV_REGION_BEGIN, "none", -1 }, { TL_EV_REGION_END, "none", 0 },
		{ TL_EV_TASK_BEGIN, "in9", 9 }, { TL_EV_TASK_END, "in9", 0 },
	};

	CHECK(rig_open(&r, 4, 64, 4096) == 0);
	CHECK(pthread_create(&th, NULL, framer, &tid) == 0);
	pthread_join(th, NULL);
	rig_close(&r, &st);
	read_back();
	CHECK_EQ_INT(G.n, 8);
	for (int i = 0; i < 8 && i < G.n; i++) {
		CHECK_EQ_INT(G.ev[i].type, want[i].type);
		CHECK_EQ_STR(G.name[i], want[i].name);
		CHECK_EQ_INT(G.ev[i].a, want[i].a);
		CHECK_EQ_INT(G.ev[i].tid, tid);
	}
}

/* ---- attaching ---- */

TEST(bad_variables_leave_markers_off)
{
	static const char *const bad[] = { "", "fd:", "fd:x", "fd:-1", "fd:12abc", "pid:3", "fd:99999", "fd:0" };
	char path[320], junk[8192];
	struct tl_marks *m;
	int fd;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(tl_instr_attach_env(bad[i]) == -1);
		CHECK_EQ_INT(tl_recording(), 0);
	}
	/* A regular file of the right size but without the header. */
	snprintf(path, sizeof(path), "%s/junk", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	memset(junk, 'j', sizeof(junk));
	CHECK(write(fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk));
	CHECK(tl_instr_attach_fd(fd) == -1);
	close(fd);
	/* A real marker memory whose version we change: refused. */
	m = tl_marks_new_sized(2, 64, 4096);
	CHECK(m != NULL);
	if (m) {
		uint16_t v = 99;
		CHECK(pwrite(tl_marks_fd(m), &v, sizeof(v), 8) == (ssize_t)sizeof(v));
		CHECK(tl_instr_attach_fd(tl_marks_fd(m)) == -1);
		CHECK_EQ_INT(tl_recording(), 0);
		tl_marks_free(m);
	}
	/* Calls while off do nothing and do not crash. */
	tl_region_begin("off");
	tl_region_end("off");
	tl_instant("off", 1);
	tl_frame_begin(1);
	tl_frame_end(1);
}

static void cleanup(void)
{
	char p[320];

	unlink(trace_path);
	snprintf(p, sizeof(p), "%s/junk", tmpdir);
	unlink(p);
	rmdir(tmpdir);
}

/* The file offset of code at addr in this process, from the kernel's own map of it. */
static uint64_t offset_in_maps(const void *addr, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	uint64_t off = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, b, pg;
		int at = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &a, &b, &pg, &at) == 3 && at &&
		    (uintptr_t)addr >= a && (uintptr_t)addr < b) {
			off = (uintptr_t)addr - a + pg;
			snprintf(path, len, "%s", line + at);
			path[strcspn(path, "\n")] = 0;
		}
	}
	if (f)
		fclose(f);
	return off;
}

/* record -p finds the library linked into this test (capture/umarks.h), at the offsets the kernel maps. */
TEST(library_found_for_uprobes)
{
	void (*fns[TL_UMARK__COUNT])(void) = {
		[TL_UMARK_FRAME_BEGIN] = (void (*)(void))tl_frame_begin,
		[TL_UMARK_FRAME_END] = (void (*)(void))tl_frame_end,
		[TL_UMARK_FRAME_JOIN] = (void (*)(void))tl_frame_join,
		[TL_UMARK_REGION_BEGIN] = (void (*)(void))tl_region_begin,
		[TL_UMARK_REGION_END] = (void (*)(void))tl_region_end,
		[TL_UMARK_TASK_BEGIN] = (void (*)(void))tl_task_begin,
		[TL_UMARK_TASK_END] = (void (*)(void))tl_task_end,
		[TL_UMARK_INSTANT] = (void (*)(void))tl_instant,
	};
	struct tl_umarks *u = tl_umarks_new();
	struct tl_umarks_file one;
	char exe[1024];
	int seen;
	FILE *f;

	CHECK(tl_umarks_candidate("/usr/lib/x86_64-linux-gnu/libthreadlens.so.1", NULL));
	CHECK(tl_umarks_candidate("/opt/app/bin/server", "/opt/app/bin/server"));
	CHECK(!tl_umarks_candidate("/usr/lib/x86_64-linux-gnu/libc.so.6", "/opt/app/bin/server"));
	CHECK(!tl_umarks_candidate("/opt/threadlens/lib/libc.so.6", NULL)); /* the file's name counts, not its folder */
	CHECK(!tl_umarks_candidate("[vdso]", NULL));
	CHECK(!tl_umarks_candidate("", ""));
	CHECK(tl_umarks_is_omp("main._omp_fn.0") && tl_umarks_is_omp("_Z4blurPfi._omp_fn.12"));
	CHECK(tl_umarks_is_omp(".omp_outlined.") && tl_umarks_is_omp(".omp_outlined..3"));
	CHECK(!tl_umarks_is_omp(".omp_outlined._debug__") && !tl_umarks_is_omp("main._omp_cpyfn.1"));
	CHECK(!tl_umarks_is_omp("GOMP_parallel") && !tl_umarks_is_omp("omp_get_thread_num"));
	/* pieces GCC splits off a function are not entries: a uretprobe there would break the program */
	CHECK(!tl_umarks_is_omp("wl_rows_omp._omp_fn.1.cold") && !tl_umarks_is_omp("main._omp_fn.0.part.0"));
	CHECK(!tl_umarks_is_omp("main._omp_fn.") && !tl_umarks_is_omp("main._omp_fn.x"));
	CHECK(!tl_umarks_is_omp(".omp_outlined..3.cold") && !tl_umarks_is_omp(".omp_outlined.x"));
	CHECK(tl_umarks_is_omp_runtime("/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0") &&
	      tl_umarks_is_omp_runtime("/opt/llvm/lib/libomp.so") && tl_umarks_is_omp_runtime("libiomp5.so"));
	CHECK(!tl_umarks_is_omp_runtime("/usr/lib/libgompx.a") && !tl_umarks_is_omp_runtime("/lib/libc.so.6") &&
	      !tl_umarks_is_omp_runtime("/home/u/libomp.so.d/app"));

	CHECK(u != NULL);
	if (!u)
		return;
	CHECK_EQ_INT(tl_umarks_find(u, getpid()), 0);
	CHECK_EQ_INT(u->n, 1);
	CHECK_EQ_INT(tl_umarks_find(u, getpid()), 0); /* a file already examined is not listed again */
	CHECK_EQ_INT(u->n, 1);
	CHECK_EQ_INT(u->files[0].have, (1u << TL_UMARK__COUNT) - 1);
	for (int i = 0; i < TL_UMARK__COUNT; i++) {
		CHECK_EQ_INT(u->files[0].offset[i], offset_in_maps((const void *)fns[i], exe, sizeof(exe)));
		CHECK_EQ_STR(u->files[0].path, exe);
	}
	/* every process: this one's file still once, and it is found again by a fresh scan */
	CHECK_EQ_INT(tl_umarks_find_all(u), 0);
	CHECK_EQ_INT(u->n, 1);
	tl_umarks_free(u);
	u = tl_umarks_new();
	CHECK(u != NULL);
	if (!u)
		return;
	CHECK_EQ_INT(tl_umarks_find_all(u), 0);
	seen = 0;
	for (int i = 0; i < u->n; i++)
		seen |= !strcmp(u->files[i].path, exe);
	CHECK(seen);
	snprintf(exe, sizeof(exe), "%s/libthreadlens-not-elf.so", tmpdir);
	CHECK((f = fopen(exe, "w")) && fputs("not an ELF file\n", f) >= 0 && !fclose(f));
	CHECK_EQ_INT(tl_umarks_resolve(exe, &one), 0); /* not ELF: nothing to probe */
	unlink(exe);
	CHECK_EQ_INT(tl_umarks_resolve("/nonexistent/libthreadlens.so", &one), 0);
	CHECK_EQ_INT(tl_umarks_find(u, -1), -1);
	tl_umarks_free(u);
}

/* Stand-ins for two of libgomp's barriers, so that this executable has them to find (not linked with libgomp). */
void GOMP_barrier(void);
void GOMP_loop_end(void);

__attribute__((noinline, used)) void GOMP_barrier(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void GOMP_loop_end(void)
{
	__asm__ volatile("" ::: "memory");
}

/* A runtime's barriers: found by name, each once, named as --func names them, probed as functions. */
TEST(omp_barriers_found)
{
	struct tl_umarks *u = tl_umarks_new();
	char exe[1024], path[1024], name[1200];
	const char *base;
	uint64_t off[2];

	CHECK(tl_umarks_is_omp_barrier("GOMP_barrier") && tl_umarks_is_omp_barrier("libgomp.so.1:GOMP_loop_end"));
	CHECK(tl_umarks_is_omp_barrier("__kmpc_barrier") && tl_umarks_is_omp_barrier("GOMP_sections_end_cancel"));
	CHECK(!tl_umarks_is_omp_barrier("GOMP_loop_end_nowait") && !tl_umarks_is_omp_barrier("GOMP_parallel"));
	CHECK(!tl_umarks_is_omp_barrier("main._omp_fn.0") && !tl_umarks_is_omp_barrier("my_GOMP_barrier"));
	CHECK(u != NULL);
	if (!u)
		return;
	off[0] = offset_in_maps((const void *)GOMP_barrier, exe, sizeof(exe));
	off[1] = offset_in_maps((const void *)GOMP_loop_end, path, sizeof(path));
	CHECK_EQ_STR(path, exe);
	CHECK_EQ_INT(tl_umarks_omp_barriers(u, exe), 2);
	CHECK_EQ_INT(tl_umarks_omp_barriers(u, exe), 0); /* each (file, offset) once */
	CHECK_EQ_INT(u->nspans, 2);
	CHECK_EQ_INT(u->nbarriers, 2);
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	for (int i = 0; i < u->nspans && i < 2; i++) {
		snprintf(name, sizeof(name), "%s:%s", base, i ? "GOMP_loop_end" : "GOMP_barrier");
		CHECK_EQ_STR(u->spans[i].name, name);
		CHECK_EQ_STR(u->spans[i].path, exe);
		CHECK_EQ_INT(u->spans[i].offset, off[i]);
		CHECK_EQ_INT(u->spans[i].barrier, 1);
	}
	CHECK_EQ_INT(tl_umarks_omp_barriers(u, "/nonexistent/libgomp.so.1"), 0);
	tl_umarks_free(u);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(trace_path, sizeof(trace_path), "%s/marks.tl", tmpdir);
	atexit(cleanup);
	RUN_TESTS(concurrent_rings_exact, full_ring_drops_counted, names_interned_once_across_threads,
	          names_looked_up_while_the_table_grows, slots_of_ended_threads_are_reused,
	          thread_without_slot_counts_lost, slot_of_killed_process_is_reclaimed, regions_carry_the_threads_frame,
	          bad_variables_leave_markers_off, library_found_for_uprobes, omp_barriers_found);
}
