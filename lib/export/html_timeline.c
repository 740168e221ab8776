/*
 * html_timeline.c - the HTML report's timeline data (html_timeline.h says
 * the encoding).
 *
 * Invariants: the walk hands each row's intervals over in time order
 * (a thread's one after the other; a CPU's likewise), so a row fills its
 * blocks in order: `cur` is the block being filled, every block before it
 * is final in `iv` and `lod`.  Intervals are clipped to the window, which
 * the report's walk (run before) has fixed: [run->win_start, win_end].
 */
#include "export/html_timeline.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/strtab.h"
#include "base/tidmap.h"
#include "base/varint.h"
#include "output/json.h"
#include "output/trace_json.h"
#include "timeline/walk.h"

struct bytes {
	uint8_t *p;
	size_t len, cap;
};

#define LOD_CPU_SLOTS 8 /* distinct occupants a CPU's block keeps apart */

struct row {
	int32_t tid; /* threads: the map's key; CPUs: the CPU */
	struct bytes iv, lens, lod, blk;
	uint32_t cur;      /* block being filled */
	uint32_t first;    /* the row's first block written: the ones before it are empty, and not written */
	int started;       /* a piece was added: from `first` on, every block up to cur - 1 is written */
	uint64_t blk_last; /* end of the block's last record (absolute), or the block's start */
	uint64_t n;        /* records */
	uint64_t st_ns[TL_ST__COUNT];
	struct {
		int what;
		int32_t tid;
		uint64_t ns;
	} occ[LOD_CPU_SLOTS];
	int nocc;
	uint64_t occ_other;
};

struct span_rec {
	uint64_t begin, end;
	int64_t frame;
	int32_t tid;
	uint32_t name;
	uint16_t kind, depth;
};

struct tl_timeline {
	char ids[24]; /* the interval blocks' id prefix */
	const struct tl_run *run;
	const struct tl_model *m;
	uint64_t from, to, block_ns; /* absolute window */
	struct row *threads;         /* in the model's order */
	size_t nthreads;
	struct tl_tidmap index; /* tid -> struct slot (the thread row) */
	struct row *cpus;
	int ncpus;
	struct tl_tidmap others; /* tid -> struct other: names of CPU occupants not in the rows */
	struct tl_walk *walk;
	struct span_rec *spans;
	size_t nspans, spans_cap;
	uint64_t spans_dropped;
	struct tl_strtab names;
	size_t bytes;          /* encoded so far */
	size_t max_bytes;      /* then the exact records stop */
	uint64_t detail_until; /* absolute; UINT64_MAX while every record is kept */
	uint64_t intervals;
	int oom;
};

struct slot {
	int32_t tid;
	uint32_t idx;
};

struct other {
	int32_t tid;
	int32_t pid;
	char name[TL_NAME_MAX];
};

static void put(struct tl_timeline *t, struct bytes *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (TL_GROW(b->p, b->cap, b->len + n) < 0) {
		t->oom = 1;
		return;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_varint(struct tl_timeline *t, struct bytes *b, uint64_t v)
{
	uint8_t tmp[TL_VARINT_MAX];

	put(t, b, tmp, tl_varint_put(tmp, v));
}

static void put_byte(struct tl_timeline *t, struct bytes *b, unsigned v)
{
	uint8_t c = (uint8_t)v;

	put(t, b, &c, 1);
}

static unsigned share(uint64_t ns, uint64_t of)
{
	uint64_t s = (ns * 255 + of - 1) / of;

	return s < 1 ? 1 : s > 255 ? 255 : (unsigned)s;
}

struct occ_sort {
	uint64_t what_tid, ns;
};

static int by_ns(const void *pa, const void *pb)
{
	const struct occ_sort *a = pa, *b = pb;

	return a->ns > b->ns ? -1 : a->ns < b->ns;
}

/* Close the blocks before `upto`: their records and summaries become final. */
static void advance(struct tl_timeline *t, struct row *r, uint32_t upto, int is_cpu)
{
	if (!r->started) {
		if (r->cur < upto)
			r->cur = r->first = upto; /* nothing yet: the empty blocks before its first are not written */
		return;
	}
	while (r->cur < upto) {
		put_varint(t, &r->lens, r->blk.len);
		put(t, &r->iv, r->blk.p, r->blk.len);
		t->bytes += r->blk.len;
		r->blk.len = 0;
		if (!is_cpu) {
			unsigned n = 0;

			for (int s = 0; s < TL_ST__COUNT; s++)
				n += r->st_ns[s] > 0;
			put_byte(t, &r->lod, n);
			for (int s = 0; s < TL_ST__COUNT; s++) {
				if (!r->st_ns[s])
					continue;
				put_byte(t, &r->lod, (unsigned)s);
				put_byte(t, &r->lod, share(r->st_ns[s], t->block_ns));
				r->st_ns[s] = 0;
			}
		} else {
			struct occ_sort e[LOD_CPU_SLOTS];
			int keep = r->nocc < 4 ? r->nocc : 4;
			uint64_t rest = r->occ_other;

			for (int i = 0; i < r->nocc; i++)
				e[i] = (struct occ_sort){ (uint64_t)r->occ[i].what << 32 | (uint32_t)r->occ[i].tid,
					                  r->occ[i].ns };
			qsort(e, (size_t)r->nocc, sizeof(e[0]), by_ns);
			for (int i = keep; i < r->nocc; i++)
				rest += e[i].ns;
			put_byte(t, &r->lod, (unsigned)(keep + (rest > 0)));
			for (int i = 0; i < keep; i++) {
				put_byte(t, &r->lod, (unsigned)(e[i].what_tid >> 32));
				put_varint(t, &r->lod, (uint32_t)e[i].what_tid);
				put_byte(t, &r->lod, share(e[i].ns, t->block_ns));
			}
			if (rest) {
				put_byte(t, &r->lod, 255);
				put_varint(t, &r->lod, 0);
				put_byte(t, &r->lod, share(rest, t->block_ns));
			}
			r->nocc = 0;
			r->occ_other = 0;
		}
		r->cur++;
	}
}

static void occupy(struct row *r, int what, int32_t tid, uint64_t ns)
{
	for (int i = 0; i < r->nocc; i++) {
		if (r->occ[i].what == what && r->occ[i].tid == tid) {
			r->occ[i].ns += ns;
			return;
		}
	}
	if (r->nocc == LOD_CPU_SLOTS) {
		r->occ_other += ns;
		return;
	}
	r->occ[r->nocc].what = what;
	r->occ[r->nocc].tid = tid;
	r->occ[r->nocc++].ns = ns;
}

/*
 * Cut [start, end) at block edges and add each piece: `kind` is the state
 * or the CPU activity; a, b the record's last two fields.
 */
static void add(struct tl_timeline *t, struct row *r, int is_cpu, uint64_t start, uint64_t end, unsigned kind,
                uint64_t a, uint64_t b)
{
	if (start < t->from)
		start = t->from;
	if (end > t->to)
		end = t->to;
	if (end <= start)
		return;
	t->intervals++;
	for (uint64_t s = start; s < end;) {
		uint32_t blk = (uint32_t)((s - t->from) / t->block_ns);
		uint64_t bstart = t->from + (uint64_t)blk * t->block_ns, bend = bstart + t->block_ns;
		uint64_t e = end < bend ? end : bend;

		if (blk >= TL_TIMELINE_BLOCKS)
			break;
		advance(t, r, blk, is_cpu);
		r->started = 1;
		if (is_cpu)
			occupy(r, (int)kind, (int32_t)a, e - s);
		else
			r->st_ns[kind] += e - s;
		if (t->bytes + r->blk.len < t->max_bytes) {
			if (r->blk.len == 0 || r->blk_last < bstart)
				r->blk_last = bstart;
			if (s < r->blk_last) /* overlaps the row's last record: never from the walk */
				s = r->blk_last;
			put_varint(t, &r->blk, s - r->blk_last);
			r->blk_last = e;
			put_varint(t, &r->blk, e - s);
			put_byte(t, &r->blk, kind | (s > start ? 0x80 : 0) | (e < end ? 0x40 : 0));
			put_varint(t, &r->blk, a);
			put_varint(t, &r->blk, b);
			r->n++;
		} else if (s < t->detail_until) {
			t->detail_until = s;
		}
		s = e;
	}
}

static void on_interval(void *ctx, struct tl_thread *th, const struct tl_interval *iv)
{
	struct tl_timeline *t = ctx;
	struct slot *sl;
	int64_t by = iv->by;

	if (th->outsider || iv->state == TL_ST_UNKNOWN || !(sl = tl_tidmap_get(&t->index, th->tid)))
		return;
	add(t, &t->threads[sl->idx], 0, iv->start, iv->end, iv->state, (uint64_t)(iv->cpu + 1), tl_zigzag_enc(by));
}

static void on_cpu_interval(void *ctx, const struct tl_cpu_interval *iv)
{
	struct tl_timeline *t = ctx;
	struct tl_thread *th;
	struct other *o;
	int created;

	if (iv->cpu < 0 || iv->cpu >= t->ncpus)
		return;
	add(t, &t->cpus[iv->cpu], 1, iv->start, iv->end, iv->what, (uint64_t)(uint32_t)iv->tid,
	    (uint64_t)(iv->irq + 1));
	if (iv->tid > 0 && !tl_tidmap_get(&t->index, iv->tid) && !tl_tidmap_get(&t->others, iv->tid)) {
		if (!(o = tl_tidmap_put(&t->others, iv->tid, &created))) {
			t->oom = 1;
			return;
		}
		if ((th = tl_sched_thread(tl_walk_sched(t->walk), iv->tid))) {
			memcpy(o->name, th->name, sizeof(o->name));
			o->pid = th->tgid;
		}
	}
}

static void on_span(void *ctx, const struct tl_span *sp, const char *name)
{
	struct tl_timeline *t = ctx;
	struct span_rec *r;

	if (sp->kind > TL_SPAN_FUNC || sp->end < t->from || sp->begin > t->to)
		return;
	if (t->nspans == TL_TIMELINE_MAX_SPANS) {
		t->spans_dropped++;
		return;
	}
	if (TL_GROW(t->spans, t->spans_cap, t->nspans + 1) < 0) {
		t->oom = 1;
		return;
	}
	r = &t->spans[t->nspans++];
	r->begin = sp->begin < t->from ? t->from : sp->begin;
	r->end = sp->end > t->to ? t->to : sp->end;
	r->frame = sp->frame;
	r->tid = sp->tid;
	r->kind = sp->kind;
	r->depth = sp->depth;
	r->name = name && name[0] ? tl_strtab_intern(&t->names, name, strlen(name)) : 0;
}

void tl_timeline_free(struct tl_timeline *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nthreads; i++) {
		free(t->threads[i].iv.p);
		free(t->threads[i].lens.p);
		free(t->threads[i].lod.p);
		free(t->threads[i].blk.p);
	}
	for (int c = 0; c < t->ncpus; c++) {
		free(t->cpus[c].iv.p);
		free(t->cpus[c].lens.p);
		free(t->cpus[c].lod.p);
		free(t->cpus[c].blk.p);
	}
	free(t->threads);
	free(t->cpus);
	free(t->spans);
	tl_tidmap_release(&t->index);
	tl_tidmap_release(&t->others);
	tl_strtab_release(&t->names);
	tl_walk_free(t->walk);
	free(t);
}

struct tl_timeline *tl_timeline_build(struct tl_run *run, const struct tl_model *m, const struct tl_timeline_opts *o)
{
	struct tl_timeline *t = calloc(1, sizeof(*t));
	struct tl_walk_opts wo = { 0 };
	int rc = -1, created;

	if (!t) {
		tl_error("out of memory");
		return NULL;
	}
	snprintf(t->ids, sizeof(t->ids), "%s", o->ids);
	t->max_bytes = o->max_bytes ? o->max_bytes : TL_TIMELINE_MAX_BYTES;
	t->run = run;
	t->m = m;
	t->from = run->win_start;
	t->to = run->win_end;
	t->block_ns = (t->to - t->from + TL_TIMELINE_BLOCKS - 1) / TL_TIMELINE_BLOCKS;
	if (t->block_ns == 0)
		t->block_ns = 1;
	t->detail_until = UINT64_MAX;
	t->ncpus = run->ncpus;
	tl_strtab_init(&t->names);
	if (tl_tidmap_init(&t->index, sizeof(struct slot)) < 0 ||
	    tl_tidmap_init(&t->others, sizeof(struct other)) < 0 ||
	    !(t->threads = calloc(m->nthreads + 1, sizeof(*t->threads))) ||
	    !(t->cpus = calloc((size_t)t->ncpus, sizeof(*t->cpus))))
		goto oom;
	for (size_t i = 0; i < m->nthreads; i++) {
		struct slot *sl;

		if (tl_tidmap_get(&t->index, m->threads[i].tid))
			continue; /* a reused tid: one row */
		if (!(sl = tl_tidmap_put(&t->index, m->threads[i].tid, &created)))
			goto oom;
		sl->idx = (uint32_t)t->nthreads;
		t->threads[t->nthreads++].tid = m->threads[i].tid;
	}
	for (int c = 0; c < t->ncpus; c++)
		t->cpus[c].tid = c;
	if (tl_run_reopen(run) < 0)
		goto out;
	tl_run_walk_opts(run, &wo);
	wo.ctx = t;
	wo.on_interval = on_interval;
	wo.on_cpu_interval = on_cpu_interval;
	wo.on_span = on_span;
	if (!(t->walk = tl_walk_new(&wo, &run->info)) || tl_walk_run(t->walk, run->trace) < 0)
		goto out;
	/* each row's last block with data closes; the empty ones after it are not written */
	for (size_t i = 0; i < t->nthreads; i++)
		advance(t, &t->threads[i], t->threads[i].cur + 1, 0);
	for (int c = 0; c < t->ncpus; c++)
		advance(t, &t->cpus[c], t->cpus[c].cur + 1, 1);
	if (t->oom)
		goto oom;
	rc = 0;
	goto out;
oom:
	tl_error("out of memory");
out:
	if (rc < 0) {
		tl_timeline_free(t);
		return NULL;
	}
	tl_walk_free(t->walk);
	t->walk = NULL;
	return t;
}

uint64_t tl_timeline_intervals(const struct tl_timeline *t)
{
	return t->intervals;
}

int tl_timeline_truncated(const struct tl_timeline *t)
{
	return t->detail_until != UINT64_MAX;
}

/* b in base64, malloc'd, its length in *n; NULL when out of memory. */
static char *base64(const struct bytes *b, size_t *n)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *s = malloc((b->len + 2) / 3 * 4 + 1);
	size_t o = 0;

	if (!s)
		return NULL;
	for (size_t i = 0; i < b->len; i += 3) {
		uint32_t v = (uint32_t)b->p[i] << 16;

		if (i + 1 < b->len)
			v |= (uint32_t)b->p[i + 1] << 8;
		if (i + 2 < b->len)
			v |= b->p[i + 2];
		s[o++] = digits[v >> 18 & 63];
		s[o++] = digits[v >> 12 & 63];
		s[o++] = i + 1 < b->len ? digits[v >> 6 & 63] : '=';
		s[o++] = i + 2 < b->len ? digits[v & 63] : '=';
	}
	s[o] = 0;
	*n = o;
	return s;
}

static void kv_base64(struct tl_json *j, const char *key, const struct bytes *b, int *oom)
{
	size_t n;
	char *s = base64(b, &n);

	tl_json_key(j, key);
	tl_json_string_len(j, s ? s : "", s ? n : 0);
	if (!s)
		*oom = 1;
	free(s);
}

static int write_block(FILE *out, const char *id, const struct bytes *b)
{
	size_t n;
	char *s = base64(b, &n);

	if (!s)
		return tl_error("out of memory");
	fprintf(out, "<script type=\"application/octet-stream\" id=\"%s\">", id);
	fwrite(s, 1, n, out);
	fputs("</script>\n", out);
	free(s);
	return 0;
}

int tl_timeline_write_blocks(FILE *out, const struct tl_timeline *t)
{
	char id[48];

	for (size_t i = 0; i < t->nthreads; i++) {
		snprintf(id, sizeof(id), "%s-t%zu", t->ids, i);
		if (write_block(out, id, &t->threads[i].iv) < 0)
			return -1;
	}
	for (int c = 0; c < t->ncpus; c++) {
		snprintf(id, sizeof(id), "%s-c%d", t->ids, c);
		if (write_block(out, id, &t->cpus[c].iv) < 0)
			return -1;
	}
	return ferror(out) ? tl_error("cannot write the page") : 0;
}

int tl_timeline_write_json(FILE *out, const struct tl_timeline *t)
{
	static const char *const kinds[] = { "frame", "region", "task", "function" };
	const struct tl_run *run = t->run;
	struct tl_json j;
	struct other *o;
	size_t pos = 0;
	char id[48];
	int oom = 0;

	tl_json_init(&j, out, 0);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-timeline");
	tl_json_kv_int(&j, "version", 1);
	tl_json_trace(&j, run);
	tl_json_window(&j, run);
	tl_json_kv_uint(&j, "from_ns", tl_run_rel(run, t->from));
	tl_json_kv_uint(&j, "to_ns", tl_run_rel(run, t->to));
	tl_json_kv_int(&j, "blocks", TL_TIMELINE_BLOCKS);
	tl_json_kv_uint(&j, "block_ns", t->block_ns);
	if (t->detail_until != UINT64_MAX)
		tl_json_kv_uint(&j, "detail_until_ns", tl_run_rel(run, t->detail_until));
	tl_json_key(&j, "states");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (int s = 0; s < TL_ST__COUNT; s++)
		tl_json_string(&j, tl_state_name(s));
	tl_json_end_array(&j);
	tl_json_key(&j, "threads");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0, k = 0; i < t->m->nthreads && k < t->nthreads; i++) {
		const struct tl_thread_stats *ts = &t->m->threads[i];
		const struct row *r = &t->threads[k];

		if (ts->tid != r->tid)
			continue; /* the second instance of a reused tid */
		k++;
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_int(&j, "tid", ts->tid);
		tl_json_kv_int(&j, "pid", ts->pid);
		tl_json_kv_string(&j, "name", ts->name);
		tl_json_kv_string(&j, "process", ts->process);
		tl_json_kv_uint(&j, "records", r->n);
		tl_json_kv_uint(&j, "b0", r->first);
		kv_base64(&j, "lod", &r->lod, &oom);
		kv_base64(&j, "lens", &r->lens, &oom);
		snprintf(id, sizeof(id), "%s-t%zu", t->ids, k - 1);
		tl_json_kv_string(&j, "iv", id);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_key(&j, "cpus");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (int c = 0; c < t->ncpus; c++) {
		tl_json_begin_object(&j, TL_JSON_INLINE);
		tl_json_kv_int(&j, "cpu", c);
		tl_json_kv_uint(&j, "records", t->cpus[c].n);
		tl_json_kv_uint(&j, "b0", t->cpus[c].first);
		kv_base64(&j, "lod", &t->cpus[c].lod, &oom);
		kv_base64(&j, "lens", &t->cpus[c].lens, &oom);
		snprintf(id, sizeof(id), "%s-c%d", t->ids, c);
		tl_json_kv_string(&j, "iv", id);
		tl_json_end_object(&j);
	}
	tl_json_end_array(&j);
	tl_json_key(&j, "others");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	while ((o = tl_tidmap_next(&t->others, &pos))) {
		tl_json_begin_array(&j, TL_JSON_INLINE);
		tl_json_int(&j, o->tid);
		tl_json_int(&j, o->pid);
		tl_json_string(&j, o->name);
		tl_json_end_array(&j);
	}
	tl_json_end_array(&j);
	tl_json_key(&j, "spans");
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_key(&j, "kinds");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (int k = 0; k < 4; k++)
		tl_json_string(&j, kinds[k]);
	tl_json_end_array(&j);
	tl_json_key(&j, "names");
	tl_json_begin_array(&j, TL_JSON_INLINE);
	for (uint32_t sid = 0; sid < tl_strtab_next_id(&t->names); sid++)
		tl_json_string(&j, tl_strtab_get(&t->names, sid));
	tl_json_end_array(&j);
	tl_json_kv_uint(&j, "dropped", t->spans_dropped);
	/* [kind, name, tid, begin_ns, end_ns, depth, frame] */
	tl_json_key(&j, "list");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < t->nspans; i++) {
		const struct span_rec *s = &t->spans[i];

		tl_json_begin_array(&j, TL_JSON_INLINE);
		tl_json_int(&j, s->kind);
		tl_json_int(&j, s->name);
		tl_json_int(&j, s->tid);
		tl_json_uint(&j, tl_run_rel(run, s->begin));
		tl_json_uint(&j, tl_run_rel(run, s->end));
		tl_json_int(&j, s->depth);
		tl_json_int(&j, s->frame);
		tl_json_end_array(&j);
	}
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	tl_json_end_object(&j);
	if (tl_json_finish(&j) < 0)
		return -1;
	return oom ? tl_error("out of memory") : 0;
}
