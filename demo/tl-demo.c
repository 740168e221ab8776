/*
 * tl-demo.c - a small camera pipeline to try threadlens on, no program of
 * your own needed:
 *
 *   threadlens record -o demo.tl -- build/demo/tl-demo
 *   threadlens report demo.tl
 *
 * Five named threads pass frames along for about two seconds:
 *
 *   "reader"    paces itself at 30 frames/s (SLEEPING) and reads each frame
 *               from a file it generated, after dropping it from the page
 *               cache, so that the read waits for the disk (IO_WAIT);
 *   "dispatch"  waits for frames (SYNC_WAIT) and cuts each into two tiles;
 *   "worker0/1" take tiles from a mutex-protected queue with a condition
 *               variable, blur them (EXECUTING; they compete for the CPUs
 *               with each other and the rest: READY_*) and merge a histogram
 *               under one shared lock (SYNC_WAIT when they collide);
 *   "writer"    collects the results and sleeps a little per frame, as if
 *               it were encoding to a slow device (SLEEPING).
 *
 * Invariants: every queue is bounded, so memory stays small; the end of the
 * stream is a NULL item that each stage passes on, so every thread exits
 * and is joined; the generated file is unlinked as soon as it is open.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WIDTH 640
#define HEIGHT 400
#define FRAME_BYTES (WIDTH * HEIGHT)
#define FILE_FRAMES 16
#define NWORKERS 2
#define QCAP 8
#define BLUR_PASSES 60

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	void *items[QCAP];
	unsigned head, count;
};

struct tile {
	unsigned frame, index;
	unsigned rows;
	unsigned char *pixels; /* rows * WIDTH, owned by the tile */
	uint64_t sum;
};

struct pipeline {
	int fd;
	unsigned frames;
	uint64_t period_ns;
	struct queue captured, work, done;
	pthread_mutex_t hist_lock;
	uint64_t histogram[256];
	unsigned written;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void queue_init(struct queue *q)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
}

static void queue_push(struct queue *q, void *item)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == QCAP)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->items[(q->head + q->count) % QCAP] = item;
	q->count++;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

static void *queue_pop(struct queue *q)
{
	void *item;

	pthread_mutex_lock(&q->lock);
	while (q->count == 0)
		pthread_cond_wait(&q->not_empty, &q->lock);
	item = q->items[q->head];
	q->head = (q->head + 1) % QCAP;
	q->count--;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return item;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *reader_main(void *arg)
{
	struct pipeline *p = arg;
	uint64_t next = now_ns();

	pthread_setname_np(pthread_self(), "reader");
	for (unsigned i = 0; i < p->frames; i++) {
		unsigned char *frame = malloc(FRAME_BYTES);
		off_t off = (off_t)(i % FILE_FRAMES) * FRAME_BYTES;

		if (!frame)
			break;
		sleep_until(next);
		next += p->period_ns;
		/* A camera's frame is new data: make the read go to the disk. */
		posix_fadvise(p->fd, off, FRAME_BYTES, POSIX_FADV_DONTNEED);
		if (pread(p->fd, frame, FRAME_BYTES, off) != FRAME_BYTES) {
			fprintf(stderr, "tl-demo: cannot read frame %u: %s\n", i, strerror(errno));
			free(frame);
			break;
		}
		queue_push(&p->captured, frame);
	}
	queue_push(&p->captured, NULL);
	return NULL;
}

static void *dispatch_main(void *arg)
{
	struct pipeline *p = arg;
	unsigned n = 0;
	unsigned char *frame;

	pthread_setname_np(pthread_self(), "dispatch");
	while ((frame = queue_pop(&p->captured)) != NULL) {
		for (unsigned t = 0; t < NWORKERS; t++) {
			struct tile *tile = calloc(1, sizeof(*tile));
			unsigned rows = HEIGHT / NWORKERS;

			if (!tile)
				continue;
			tile->frame = n;
			tile->index = t;
			tile->rows = rows;
			tile->pixels = malloc((size_t)rows * WIDTH);
			if (!tile->pixels) {
				free(tile);
				continue;
			}
			memcpy(tile->pixels, frame + (size_t)t * rows * WIDTH, (size_t)rows * WIDTH);
			queue_push(&p->work, tile);
		}
		free(frame);
		n++;
	}
	for (unsigned t = 0; t < NWORKERS; t++)
		queue_push(&p->work, NULL);
	return NULL;
}

/* A 3x3 box blur, a few passes: the "image processing" of the demo. */
static void blur(struct tile *tile)
{
	unsigned char *tmp = malloc((size_t)tile->rows * WIDTH);

	if (!tmp)
		return;
	for (int pass = 0; pass < BLUR_PASSES; pass++) {
		for (unsigned y = 1; y + 1 < tile->rows; y++)
			for (unsigned x = 1; x + 1 < WIDTH; x++) {
				unsigned s = 0;

				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++)
						s += tile->pixels[(y + dy) * WIDTH + x + dx];
				tmp[y * WIDTH + x] = (unsigned char)(s / 9);
			}
		memcpy(tile->pixels + WIDTH, tmp + WIDTH, (size_t)(tile->rows - 2) * WIDTH);
	}
	free(tmp);
}

struct worker {
	struct pipeline *p;
	int id;
	pthread_t thread;
};

static void *worker_main(void *arg)
{
	struct worker *self = arg;
	struct pipeline *p = self->p;
	struct tile *tile;
	uint64_t local[256];
	char name[16];

	snprintf(name, sizeof(name), "worker%d", self->id);
	pthread_setname_np(pthread_self(), name);

	while ((tile = queue_pop(&p->work)) != NULL) {
		blur(tile);
		memset(local, 0, sizeof(local));
		for (size_t i = 0; i < (size_t)tile->rows * WIDTH; i++)
			local[tile->pixels[i]]++;
		/* One lock for the whole histogram, held while merging: the kind
		 * of hot lock a trace shows as SYNC_WAIT in both workers. */
		pthread_mutex_lock(&p->hist_lock);
		for (int k = 0; k < 256; k++) {
			p->histogram[k] += local[k];
			tile->sum += local[k] * (uint64_t)k;
		}
		for (volatile int spin = 0; spin < 200000; spin++)
			;
		pthread_mutex_unlock(&p->hist_lock);
		queue_push(&p->done, tile);
	}
	queue_push(&p->done, NULL);
	return NULL;
}

static void *writer_main(void *arg)
{
	struct pipeline *p = arg;
	unsigned ends = 0;
	struct tile *tile;

	pthread_setname_np(pthread_self(), "writer");
	while (ends < NWORKERS) {
		tile = queue_pop(&p->done);
		if (!tile) {
			ends++;
			continue;
		}
		if (tile->index == NWORKERS - 1) {
			/* "Encode" the frame to a slow device. */
			struct timespec ts = { 0, 4 * 1000000 };

			nanosleep(&ts, NULL);
			p->written++;
		}
		free(tile->pixels);
		free(tile);
	}
	return NULL;
}

/* The "camera footage": a file of frames with some structure to blur. */
static int make_footage(struct pipeline *p)
{
	const char *dirs[] = { getenv("TMPDIR"), "/var/tmp", "/tmp", "." };
	unsigned char *frame = malloc(FRAME_BYTES);
	char path[512];

	if (!frame)
		return -1;
	p->fd = -1;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]) && p->fd < 0; d++) {
		if (!dirs[d] || !*dirs[d])
			continue;
		snprintf(path, sizeof(path), "%s/tl-demo.%d", dirs[d], (int)getpid());
		p->fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	}
	if (p->fd < 0) {
		fprintf(stderr, "tl-demo: cannot create the footage file: %s\n", strerror(errno));
		free(frame);
		return -1;
	}
	unlink(path);
	for (unsigned f = 0; f < FILE_FRAMES; f++) {
		for (unsigned i = 0; i < FRAME_BYTES; i++)
			frame[i] =
			        (unsigned char)((i % WIDTH) * 3 + (i / WIDTH) * 5 + f * 17 + (i * 2654435761u >> 27));
		if (write(p->fd, frame, FRAME_BYTES) != FRAME_BYTES) {
			fprintf(stderr, "tl-demo: cannot write the footage file: %s\n", strerror(errno));
			free(frame);
			return -1;
		}
	}
	free(frame);
	/* Written back, so that dropping it from the cache really drops it. */
	fdatasync(p->fd);
	return 0;
}

/* Without all its threads the pipeline would stall: give up at once. */
static int start_failed(int err)
{
	fprintf(stderr, "tl-demo: cannot start a thread: %s\n", strerror(err));
	exit(1);
}

int main(int argc, char **argv)
{
	static struct pipeline p;
	static struct worker workers[NWORKERS];
	pthread_t reader, dispatch, writer;
	double seconds = 2.0;
	uint64_t t0;
	int e;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else {
			fprintf(stderr, "usage: tl-demo [--seconds S]\n\n"
			                "A camera pipeline (reader, dispatch, worker0, worker1, writer) to record:\n"
			                "  threadlens record -o demo.tl -- tl-demo\n");
			return !strcmp(argv[i], "--help") ? 0 : 2;
		}
	}
	if (!(seconds > 0 && seconds <= 3600)) {
		fprintf(stderr, "tl-demo: bad --seconds\n");
		return 2;
	}
	p.period_ns = 1000000000u / 30;
	p.frames = (unsigned)(seconds * 30);
	queue_init(&p.captured);
	queue_init(&p.work);
	queue_init(&p.done);
	pthread_mutex_init(&p.hist_lock, NULL);
	if (make_footage(&p) < 0)
		return 1;

	t0 = now_ns();
	if ((e = pthread_create(&writer, NULL, writer_main, &p)) != 0)
		return start_failed(e);
	for (int w = 0; w < NWORKERS; w++) {
		workers[w].p = &p;
		workers[w].id = w;
		if ((e = pthread_create(&workers[w].thread, NULL, worker_main, &workers[w])) != 0)
			return start_failed(e);
	}
	if ((e = pthread_create(&dispatch, NULL, dispatch_main, &p)) != 0 ||
	    (e = pthread_create(&reader, NULL, reader_main, &p)) != 0)
		return start_failed(e);

	pthread_join(reader, NULL);
	pthread_join(dispatch, NULL);
	for (int w = 0; w < NWORKERS; w++)
		pthread_join(workers[w].thread, NULL);
	pthread_join(writer, NULL);
	close(p.fd);
	printf("tl-demo: %u of %u frames through the pipeline in %.2f s\n", p.written, p.frames,
	       (double)(now_ns() - t0) / 1e9);
	return p.written == p.frames ? 0 : 1;
}
