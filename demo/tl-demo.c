/*
 * tl-demo.c - a video-analysis pipeline to try threadlens on, built like the
 * vital-sign application of the Extended Thread State Analysis (seed 000,
 * chapter 7), with that study's five threading bugs behind flags:
 *
 *   threadlens record -o demo.tl -- build/demo/tl-demo            (all bugs)
 *   threadlens record -o fixed.tl -- build/demo/tl-demo --bugs none
 *   threadlens diagnose demo.tl
 *
 * Threads, joined by bounded queues (frame n flows left to right):
 *   input     reads each frame from a file it generated, after dropping it
 *             from the page cache (real disk I/O), and decodes it;
 *   dispatch  waits for frames (a timed wait) and hands them on;
 *   detect    a heavy data-parallel stage: it splits the frame's 32 blocks
 *             over pool workers, which meet it again when all are done;
 *   motion    a second heavy data-parallel stage, the same way;
 *   weight    a tiny stage: four loops of 50 us per frame;
 *   convert   converts the result;
 *   output    writes it to a file.
 * Markers (threadlens.h): a frame per image, each stage's work as a region
 * ("read", "decode", "detect", "motion", "weight", "convert", "write"); the
 * pool workers mark their share of a stage with the stage's name, so each
 * frame's share-out is a parallel round of that region.
 *
 * The bugs (--bugs LIST, comma-separated; all by default, `none` for none):
 *   poll      the dispatcher waits with a 50 us timeout and rechecks,
 *             instead of being signalled: a wake storm;
 *   split     the blocks are split statically, and blocks 4-11 (the region
 *             of interest) cost four times the others: workers
 *             finish at very different times (barrier imbalance); fixed,
 *             workers take blocks one by one from a shared counter;
 *   tiny      the tiny stage's loops are split over two helper threads anyway
 *             (pointless parallelism); fixed, the stage does it alone;
 *   oversub   each heavy stage has its own pool of 2 x CPUs workers (more
 *             busy threads than CPUs, alternating with idle CPUs); fixed,
 *             one pool of as many workers as CPUs serves both stages;
 *   starve    the input thread runs at nice 19 below the busy workers
 *             (preemption starvation); fixed, at the default priority.
 *
 * It prints frames/s and the CPU it used, to compare runs with and without
 * bugs.  Invariants: every queue is bounded; the end of the stream is a NULL
 * frame that each stage passes on; every thread exits and is joined; the
 * generated file is unlinked as soon as it is open.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <threadlens.h>
#include <time.h>
#include <unistd.h>

#define WIDTH 640
#define HEIGHT 384
#define FRAME_BYTES (WIDTH * HEIGHT)
#define FILE_FRAMES 8
#define BLOCKS 32 /* row bands of a frame */
#define QCAP 2    /* frames a stage's input queue holds */
#define NBUF 3    /* frame buffers: the frames in flight, as a capture device has */
#define MAXW 16
#define WEIGHT_PASSES 4 /* the tiny stage: four small loops per frame, 50 us each */
#define ROI_FIRST 4     /* the region of interest: these blocks cost four times the others */
#define ROI_LAST 11

enum { BUG_POLL = 1, BUG_SPLIT = 2, BUG_TINY = 4, BUG_OVERSUB = 8, BUG_STARVE = 16, BUG_ALL = 31 };
static const char *const bug_names[] = { "poll", "split", "tiny", "oversub", "starve" };

struct frame {
	uint64_t id;
	unsigned char *pix;     /* FRAME_BYTES */
	uint32_t score[BLOCKS]; /* detect's output per block */
	uint32_t moved[BLOCKS]; /* motion's */
	uint32_t weight[BLOCKS];
	uint64_t checksum;
};

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct frame *items[NBUF];
	unsigned head, count, cap;
};

/* A share-out of one stage's blocks over a pool's workers. */
struct job {
	const char *region; /* "detect" or "motion" */
	struct frame *f;
	int dynamic;          /* take blocks from `next`, else a static range per worker */
	atomic_int next;      /* the next block to take (dynamic) */
	atomic_int remaining; /* workers still on it */
	pthread_mutex_t lock; /* with done: the stage waits for the workers */
	pthread_cond_t done;
};

struct worker {
	struct pool *pool;
	int index;
	char name[16];
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct job *inbox[4]; /* share-outs handed to it, oldest at head (one per stage at most) */
	unsigned head, n;
	int quit;
};

struct pool {
	int n;
	struct worker w[MAXW];
};

struct demo {
	unsigned bugs;
	unsigned frames;
	int ncpus;
	int fd_in, fd_out;
	struct queue q_free, q_in, q_detect, q_motion, q_weight, q_convert, q_out;
	struct pool pool_detect, pool_motion, *for_detect, *for_motion;
	struct worker weight_helper[2];
	uint64_t written;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void queue_init(struct queue *q, unsigned cap)
{
	memset(q, 0, sizeof(*q));
	q->cap = cap;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
}

static void queue_push(struct queue *q, struct frame *f)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == q->cap)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->items[(q->head + q->count++) % q->cap] = f;
	pthread_mutex_unlock(&q->lock);
	pthread_cond_signal(&q->not_empty); /* after the unlock: the woken thread does not wait for the lock */
}

/* Wait for an item; 1 and *f (NULL: the end of the stream), or 0 if `poll` found none. */
static int queue_take(struct queue *q, struct frame **f, int poll)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == 0 && !poll)
		pthread_cond_wait(&q->not_empty, &q->lock);
	if (q->count == 0) {
		pthread_mutex_unlock(&q->lock);
		return 0;
	}
	*f = q->items[q->head];
	q->head = (q->head + 1) % q->cap;
	q->count--;
	pthread_mutex_unlock(&q->lock);
	pthread_cond_signal(&q->not_full);
	return 1;
}

static struct frame *queue_pop(struct queue *q)
{
	struct frame *f = NULL;

	queue_take(q, &f, 0);
	return f;
}

/* `passes` sweeps of a smoothing kernel over one block of rows: the stages' "image processing". */
static uint32_t crunch(const unsigned char *pix, int block, int passes)
{
	const int rows = HEIGHT / BLOCKS;
	uint32_t acc = (uint32_t)block;

	for (int p = 0; p < passes; p++)
		for (int y = block * rows; y < (block + 1) * rows; y++)
			for (int x = 1; x + 1 < WIDTH; x++)
				acc = acc * 31u + (uint32_t)(pix[y * WIDTH + x - 1] + 2 * pix[y * WIDTH + x] +
				                             pix[y * WIDTH + x + 1]);
	return acc;
}

/* A block's cost: blocks 4-11 (the faces, in the upper part) are the region of interest, four times the work. */
static int passes_of(const char *region, int block)
{
	int base = !strcmp(region, "detect") ? 18 : 12;

	return block >= ROI_FIRST && block <= ROI_LAST ? 4 * base : base;
}

static void do_block(struct job *j, int b)
{
	uint32_t v = crunch(j->f->pix, b, passes_of(j->region, b));

	if (j->region[0] == 'd')
		j->f->score[b] = v;
	else
		j->f->moved[b] = v;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct job *j;

	pthread_setname_np(pthread_self(), w->name);
	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->n && !w->quit)
			pthread_cond_wait(&w->wake, &w->lock);
		j = NULL;
		if (w->n) {
			j = w->inbox[w->head];
			w->head = (w->head + 1) % 4;
			w->n--;
		}
		pthread_mutex_unlock(&w->lock);
		if (!j)
			return NULL;
		tl_frame_join(j->f->id);
		tl_region_begin(j->region);
		if (j->dynamic) {
			int b;

			while ((b = atomic_fetch_add(&j->next, 1)) < BLOCKS)
				do_block(j, b);
		} else {
			for (int b = w->index * BLOCKS / w->pool->n; b < (w->index + 1) * BLOCKS / w->pool->n; b++)
				do_block(j, b);
		}
		tl_region_end(j->region);
		if (atomic_fetch_sub(&j->remaining, 1) == 1) {
			pthread_mutex_lock(&j->lock);
			pthread_cond_signal(&j->done);
			pthread_mutex_unlock(&j->lock);
		}
	}
}

static int pool_start(struct pool *p, int n, const char *prefix)
{
	p->n = n;
	for (int i = 0; i < n; i++) {
		struct worker *w = &p->w[i];

		w->pool = p;
		w->index = i;
		snprintf(w->name, sizeof(w->name), "%s%d", prefix, i);
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->wake, NULL);
		if (pthread_create(&w->thread, NULL, worker_main, w))
			return -1;
	}
	return 0;
}

static void pool_stop(struct pool *p)
{
	for (int i = 0; i < p->n; i++) {
		pthread_mutex_lock(&p->w[i].lock);
		p->w[i].quit = 1;
		pthread_cond_signal(&p->w[i].wake);
		pthread_mutex_unlock(&p->w[i].lock);
	}
	for (int i = 0; i < p->n; i++)
		pthread_join(p->w[i].thread, NULL);
	p->n = 0;
}

/*
 * Share a stage's blocks out over the pool and wait until every worker is
 * done (the "barrier").  Both heavy stages may share one pool: each worker
 * takes the share-outs in the order they came.
 */
static void pool_run(struct pool *p, struct frame *f, const char *region, int dynamic)
{
	struct job j = { .region = region, .f = f, .dynamic = dynamic };

	atomic_init(&j.next, 0);
	atomic_init(&j.remaining, p->n);
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.done, NULL);
	for (int i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];

		pthread_mutex_lock(&w->lock);
		w->inbox[(w->head + w->n++) % 4] = &j;
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->lock);
	}
	pthread_mutex_lock(&j.lock);
	while (atomic_load(&j.remaining) > 0)
		pthread_cond_wait(&j.done, &j.lock);
	pthread_mutex_unlock(&j.lock);
	pthread_mutex_destroy(&j.lock);
	pthread_cond_destroy(&j.done);
}

static void *input_main(void *arg)
{
	struct demo *d = arg;

	pthread_setname_np(pthread_self(), "input");
	if (d->bugs & BUG_STARVE)
		setpriority(PRIO_PROCESS, 0, 19); /* this thread only: Linux nice is per thread */
	for (uint64_t n = 0; n < d->frames; n++) {
		struct frame *f = queue_pop(&d->q_free); /* waits for a buffer the output gave back */
		unsigned char *pix = f->pix;
		off_t off = (off_t)(n % FILE_FRAMES) * FRAME_BYTES;

		memset(f, 0, sizeof(*f));
		f->pix = pix;
		f->id = n;
		tl_frame_begin(n);
		tl_region_begin("read");
		posix_fadvise(d->fd_in, off, FRAME_BYTES, POSIX_FADV_DONTNEED); /* new data: from the disk */
		if (pread(d->fd_in, f->pix, FRAME_BYTES, off) != FRAME_BYTES) {
			fprintf(stderr, "tl-demo: cannot read frame %llu: %s\n", (unsigned long long)n,
			        strerror(errno));
			queue_push(&d->q_free, f);
			break;
		}
		tl_region_end("read");
		tl_region_begin("decode");
		for (int b = 0; b < BLOCKS; b++)
			f->checksum += crunch(f->pix, b, 6);
		tl_region_end("decode");
		queue_push(&d->q_in, f);
	}
	queue_push(&d->q_in, NULL);
	return NULL;
}

static void *dispatch_main(void *arg)
{
	struct demo *d = arg;
	pthread_cond_t never = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct frame *f;

	pthread_setname_np(pthread_self(), "dispatch");
	for (;;) {
		if (d->bugs & BUG_POLL) {
			/* the bug: a near-zero timeout on a condition nobody signals, then a look at the queue */
			pthread_mutex_lock(&m);
			while (!queue_take(&d->q_in, &f, 1)) {
				struct timespec ts;

				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += 50 * 1000;
				if (ts.tv_nsec >= 1000000000) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000;
				}
				pthread_cond_timedwait(&never, &m, &ts);
			}
			pthread_mutex_unlock(&m);
		} else {
			f = queue_pop(&d->q_in);
		}
		queue_push(&d->q_detect, f);
		if (!f)
			return NULL;
	}
}

/* detect and motion: a heavy data-parallel stage. */
static void stage(struct demo *d, struct queue *in, struct queue *out, struct pool *pool, const char *region)
{
	struct frame *f;

	while ((f = queue_pop(in)) != NULL) {
		tl_frame_join(f->id);
		tl_region_begin(region); /* the stage's round: it waits inside while the workers run */
		pool_run(pool, f, region, !(d->bugs & BUG_SPLIT));
		tl_region_end(region);
		queue_push(out, f);
	}
	queue_push(out, NULL);
}

static void *detect_main(void *arg)
{
	struct demo *d = arg;

	pthread_setname_np(pthread_self(), "detect");
	stage(d, &d->q_detect, &d->q_motion, d->for_detect, "detect");
	return NULL;
}

static void *motion_main(void *arg)
{
	struct demo *d = arg;

	pthread_setname_np(pthread_self(), "motion");
	stage(d, &d->q_motion, &d->q_weight, d->for_motion, "motion");
	return NULL;
}

/* Compute for `ns` of this thread's CPU time (the tiny stage's fixed cost). */
static void cpu_work(long ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

/* The tiny stage's work on blocks [from, to): a few operations per block. */
static void weigh(struct frame *f, int from, int to)
{
	for (int b = from; b < to; b++)
		f->weight[b] = (f->score[b] >> 7) ^ (f->moved[b] >> 5) ^ crunch(f->pix, b, 0);
}

/* The tiny stage split over two helpers (the `tiny` bug): they meet at a barrier with the stage. */
static pthread_barrier_t tiny_start, tiny_end;
static struct frame *tiny_frame;

static void *weight_helper_main(void *arg)
{
	struct worker *w = arg;

	pthread_setname_np(pthread_self(), w->name);
	for (;;) {
		pthread_barrier_wait(&tiny_start);
		if (!tiny_frame)
			return NULL;
		tl_frame_join(tiny_frame->id);
		tl_region_begin("weight");
		weigh(tiny_frame, w->index * BLOCKS / 2, (w->index + 1) * BLOCKS / 2);
		cpu_work(25000); /* the rest of its half: the whole stage is 50 us of CPU, whatever the build */
		tl_region_end("weight");
		pthread_barrier_wait(&tiny_end);
	}
}

static void *weight_main(void *arg)
{
	struct demo *d = arg;
	struct frame *f;

	pthread_setname_np(pthread_self(), "weight");
	while ((f = queue_pop(&d->q_weight)) != NULL) {
		tl_frame_join(f->id);
		for (int pass = 0; pass < WEIGHT_PASSES; pass++) {
			if (d->bugs & BUG_TINY) {
				tiny_frame = f;
				tl_region_begin("weight");
				pthread_barrier_wait(&tiny_start);
				pthread_barrier_wait(&tiny_end);
				tl_region_end("weight");
			} else {
				tl_region_begin("weight");
				weigh(f, 0, BLOCKS);
				cpu_work(50000);
				tl_region_end("weight");
			}
		}
		queue_push(&d->q_convert, f);
	}
	if (d->bugs & BUG_TINY) {
		tiny_frame = NULL;
		pthread_barrier_wait(&tiny_start);
	}
	queue_push(&d->q_convert, NULL);
	return NULL;
}

static void *convert_main(void *arg)
{
	struct demo *d = arg;
	struct frame *f;

	pthread_setname_np(pthread_self(), "convert");
	while ((f = queue_pop(&d->q_convert)) != NULL) {
		tl_frame_join(f->id);
		tl_region_begin("convert");
		for (int b = 0; b < BLOCKS; b++)
			f->checksum ^= crunch(f->pix, b, 1) + f->weight[b];
		tl_region_end("convert");
		queue_push(&d->q_out, f);
	}
	queue_push(&d->q_out, NULL);
	return NULL;
}

static void *output_main(void *arg)
{
	struct demo *d = arg;
	struct frame *f;

	pthread_setname_np(pthread_self(), "output");
	while ((f = queue_pop(&d->q_out)) != NULL) {
		tl_frame_join(f->id);
		tl_region_begin("write");
		if (write(d->fd_out, f->weight, sizeof(f->weight)) == (ssize_t)sizeof(f->weight))
			d->written++;
		tl_region_end("write");
		tl_frame_end(f->id);
		queue_push(&d->q_free, f);
	}
	return NULL;
}

/* The "camera footage" and the output, in files unlinked at once. */
static int open_temp(const char *what)
{
	const char *dirs[] = { getenv("TMPDIR"), "/var/tmp", "/tmp", "." };
	char path[512];
	int fd = -1;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && fd < 0; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/tl-demo-%s.%d", dirs[i], what, (int)getpid());
		if ((fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600)) >= 0)
			unlink(path);
	}
	if (fd < 0)
		fprintf(stderr, "tl-demo: cannot create a file for the %s: %s\n", what, strerror(errno));
	return fd;
}

static int make_footage(struct demo *d)
{
	unsigned char *pix = malloc(FRAME_BYTES);

	if (!pix || (d->fd_in = open_temp("footage")) < 0 || (d->fd_out = open_temp("output")) < 0) {
		free(pix);
		return -1;
	}
	for (unsigned f = 0; f < FILE_FRAMES; f++) {
		for (unsigned i = 0; i < FRAME_BYTES; i++)
			pix[i] = (unsigned char)((i % WIDTH) * 3 + (i / WIDTH) * 5 + f * 17 + (i * 2654435761u >> 27));
		if (write(d->fd_in, pix, FRAME_BYTES) != FRAME_BYTES) {
			fprintf(stderr, "tl-demo: cannot write the footage: %s\n", strerror(errno));
			free(pix);
			return -1;
		}
	}
	free(pix);
	fdatasync(d->fd_in); /* written back, so that dropping it from the cache really drops it */
	return 0;
}

static int parse_bugs(const char *s, unsigned *out)
{
	char buf[128], *tok, *save = NULL;

	if (!strcmp(s, "all") || !strcmp(s, "none")) {
		*out = s[0] == 'a' ? BUG_ALL : 0;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	*out = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(bug_names) / sizeof(bug_names[0]); i++)
			if (!strcmp(tok, bug_names[i]))
				break;
		if (i == sizeof(bug_names) / sizeof(bug_names[0])) {
			fprintf(stderr, "tl-demo: unknown bug '%s' (poll, split, tiny, oversub, starve, all, none)\n",
			        tok);
			return -1;
		}
		*out |= 1u << i;
	}
	return 0;
}

static void usage(FILE *out)
{
	fputs("usage: tl-demo [--frames N] [--bugs LIST]\n\n"
	      "A video-analysis pipeline (input, dispatch, detect, motion, weight, convert, output,\n"
	      "and pool workers) with five threading bugs, all on by default:\n"
	      "  poll     the dispatcher polls with a 50 us timeout (a wake storm)\n"
	      "  split    static split of uneven blocks (barrier imbalance)\n"
	      "  tiny     a stage of 50 us loops split over two threads (pointless parallelism)\n"
	      "  oversub  a pool of 2 x CPUs workers per heavy stage (oversubscription)\n"
	      "  starve   the input thread at nice 19 (preemption starvation)\n"
	      "--bugs takes a comma-separated list, `all` or `none`.\n\n"
	      "examples:\n"
	      "  threadlens record -o demo.tl -- tl-demo\n"
	      "  threadlens record -o fixed.tl -- tl-demo --bugs none\n",
	      out);
}

static void start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int e = pthread_create(t, NULL, fn, arg);

	if (e) { /* without all its threads the pipeline would stall */
		fprintf(stderr, "tl-demo: cannot start a thread: %s\n", strerror(e));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static struct demo d;
	pthread_t th[7];
	struct rusage ru;
	uint64_t t0, t1;
	double cpu, secs;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int per_stage;

	d.bugs = BUG_ALL;
	d.frames = 150;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
			d.frames = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--bugs") && i + 1 < argc) {
			if (parse_bugs(argv[++i], &d.bugs) < 0)
				return 2;
		} else {
			usage(!strcmp(argv[i], "--help") ? stdout : stderr);
			return !strcmp(argv[i], "--help") ? 0 : 2;
		}
	}
	if (d.frames < 1 || d.frames > 1000000) {
		fprintf(stderr, "tl-demo: --frames must be 1 to 1000000\n");
		return 2;
	}
	d.ncpus = ncpu < 1 ? 1 : ncpu > MAXW / 2 ? MAXW / 2 : (int)ncpu;
	queue_init(&d.q_free, NBUF);
	queue_init(&d.q_in, QCAP);
	queue_init(&d.q_detect, QCAP);
	queue_init(&d.q_motion, QCAP);
	queue_init(&d.q_weight, QCAP);
	queue_init(&d.q_convert, QCAP);
	queue_init(&d.q_out, QCAP);
	for (int i = 0; i < NBUF; i++) {
		static struct frame bufs[NBUF];

		if (!(bufs[i].pix = malloc(FRAME_BYTES))) {
			fprintf(stderr, "tl-demo: out of memory\n");
			return 1;
		}
		queue_push(&d.q_free, &bufs[i]);
	}
	if (make_footage(&d) < 0)
		return 1;

	t0 = now_ns();
	per_stage = d.bugs & BUG_OVERSUB ? 2 * d.ncpus : d.ncpus;
	if (pool_start(&d.pool_detect, per_stage, d.bugs & BUG_OVERSUB ? "detect-w" : "pool") < 0 ||
	    ((d.bugs & BUG_OVERSUB) && pool_start(&d.pool_motion, per_stage, "motion-w") < 0)) {
		fprintf(stderr, "tl-demo: cannot start the workers\n");
		return 1;
	}
	d.for_detect = &d.pool_detect;
	d.for_motion = d.bugs & BUG_OVERSUB ? &d.pool_motion : &d.pool_detect; /* fixed: one pool for both */
	if (d.bugs & BUG_TINY) {
		pthread_barrier_init(&tiny_start, NULL, 3);
		pthread_barrier_init(&tiny_end, NULL, 3);
		for (int i = 0; i < 2; i++) {
			d.weight_helper[i].index = i;
			snprintf(d.weight_helper[i].name, sizeof(d.weight_helper[i].name), "weight%d", i);
			start(&d.weight_helper[i].thread, weight_helper_main, &d.weight_helper[i]);
		}
	}
	start(&th[0], output_main, &d);
	start(&th[1], convert_main, &d);
	start(&th[2], weight_main, &d);
	start(&th[3], motion_main, &d);
	start(&th[4], detect_main, &d);
	start(&th[5], dispatch_main, &d);
	start(&th[6], input_main, &d);
	for (int i = 6; i >= 0; i--)
		pthread_join(th[i], NULL);
	if (d.bugs & BUG_TINY)
		for (int i = 0; i < 2; i++)
			pthread_join(d.weight_helper[i].thread, NULL);
	pool_stop(&d.pool_detect);
	pool_stop(&d.pool_motion);
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	      ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
	secs = (double)(t1 - t0) / 1e9;
	printf("tl-demo: %llu of %u frames in %.2f s: %.1f frames/s, CPU %.0f%% of %d (bugs:",
	       (unsigned long long)d.written, d.frames, secs, (double)d.written / secs, 100 * cpu / secs / d.ncpus,
	       d.ncpus);
	for (size_t i = 0; i < sizeof(bug_names) / sizeof(bug_names[0]); i++)
		if (d.bugs & (1u << i))
			printf(" %s", bug_names[i]);
	printf("%s)\n", d.bugs ? "" : " none");
	for (int i = 0; i < NBUF; i++)
		free(queue_pop(&d.q_free)->pix);
	close(d.fd_in);
	close(d.fd_out);
	return d.written == d.frames ? 0 : 1;
}
