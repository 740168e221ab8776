/*
 * critical_write.c - the critical paths as text and as JSON (the document
 * "threadlens-critical", docs/JSON.md).  They print, never compute.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/critical/critical.h"
#include "base/errors.h"
#include "output/fmt.h"
#include "output/json.h"
#include "output/trace_json.h"
#include "timeline/states.h"

#define PATH_SHOWN 8   /* stretches of the path in the text, latest first */
#define PARTS_SHOWN 12 /* (thread, state) rows in the text; the others are summed */
#define ROW_W 43       /* a row up to its share but the thread's name; who woke or preempted it gets the rest */

static uint64_t rel(const struct tl_crit_result *r, uint64_t ts)
{
	return ts > r->run->trace_start ? ts - r->run->trace_start : 0;
}

/* "label name": a thread's name made safe for a terminal, cut to what is left of `room` columns. */
static void put_by(FILE *out, const char *label, const char *name, int room)
{
	char clean[TL_NAME_MAX * 4];
	int left = room - (int)strlen(label);

	tl_fmt_name_cut(name[0] ? name : "?", left > 4 ? (size_t)left : 4, clean, sizeof(clean));
	fprintf(out, "%s%s", label, clean);
}

static void text_frame(FILE *out, const struct tl_crit_result *r, const struct tl_crit_frame *f, int width)
{
	uint64_t lat = f->end - f->begin, rest = 0;
	size_t shown = 0, nseg = 0;
	char b[3][32], seg[PATH_SHOWN + 1][TL_NAME_MAX * 4 + 64];
	const char *items[PATH_SHOWN + 1];

	char head[TL_NAME_MAX + 160];

	/* the names cleaned by the wrap */
	if (r->thread_scope)
		snprintf(head, sizeof(head), "thread %s (%d): %s, from %s to %s",
		         f->ended_by_name[0] ? f->ended_by_name : "?", (int)f->ended_by,
		         tl_fmt_dur(lat, b[0], sizeof(b[0])), tl_fmt_dur(rel(r, f->begin), b[1], sizeof(b[1])),
		         tl_fmt_dur(rel(r, f->end), b[2], sizeof(b[2])));
	else
		snprintf(head, sizeof(head), "frame %lld: %s (from %s), ended by %s (%d)", (long long)f->id,
		         tl_fmt_dur(lat, b[0], sizeof(b[0])), tl_fmt_dur(rel(r, f->begin), b[1], sizeof(b[1])),
		         f->ended_by_name[0] ? f->ended_by_name : "?", (int)f->ended_by);
	fputc('\n', out);
	tl_fmt_wrap(out, "", head, width);
	/* the thread's name in 18 columns, 15 (a thread name's most) under 100: the rest goes to who woke it */
	int tw = width < 100 ? 15 : 18, room = width - ROW_W - tw;

	fprintf(out, "  %-*s %7s  %-14s %9s %6s\n", tw, "thread", "tid", "state", "time", "share");
	for (size_t i = 0; i < f->nparts; i++) {
		const struct tl_crit_part *x = &f->parts[i];

		if (shown == PARTS_SHOWN || tl_fmt_pct(x->ns, lat) < 0.5) {
			rest += x->ns;
			continue;
		}
		shown++;
		fputs("  ", out);
		tl_fmt_put_name(out, x->name[0] ? x->name : "?", (size_t)tw);
		fprintf(out, " %7d  %-14s %9s %5.1f%%", (int)x->tid, tl_state_name(x->state),
		        tl_fmt_dur(x->ns, b[0], sizeof(b[0])), tl_fmt_pct(x->ns, lat));
		if (x->by > 0 && x->state == TL_ST_RUNNABLE)
			put_by(out, "  woken by ", x->by_name, room);
		else if (x->by > 0 && tl_state_is_ready(x->state))
			put_by(out, "  behind ", x->by_name, room);
		else if (x->by != 0 && tl_state_is_asleep(x->state))
			put_by(out, "  until woken by ",
			       x->by > 0                  ? x->by_name
			       : x->by == TL_WAKER_DEVICE ? "[device]"
			                                  : "[interrupt]",
			       room);
		fputc('\n', out);
	}
	if (rest)
		fprintf(out, "  %zu more, %s (%.1f%%)\n", f->nparts - shown, tl_fmt_dur(rest, b[0], sizeof(b[0])),
		        tl_fmt_pct(rest, lat));
	/* one stretch an item, wrapped to the width under the label */
	for (size_t i = 0; i < f->npath && i < PATH_SHOWN; i++) {
		const struct tl_crit_seg *s = &f->path[i];
		const char *name = "?";
		char clean[TL_NAME_MAX * 4];

		for (size_t k = 0; k < f->nparts; k++)
			if (f->parts[k].tid == s->tid && f->parts[k].name[0])
				name = f->parts[k].name;
		tl_fmt_clean_name(name, clean, sizeof(clean));
		snprintf(seg[nseg], sizeof(seg[nseg]), "%s%s %s %s", i ? "< " : "", clean, tl_state_name(s->state),
		         tl_fmt_dur(s->to - s->from, b[0], sizeof(b[0])));
		items[nseg] = seg[nseg];
		nseg++;
	}
	if (f->npath > PATH_SHOWN) {
		snprintf(seg[nseg], sizeof(seg[nseg]), "< ... (%zu more)", f->npath - PATH_SHOWN);
		items[nseg] = seg[nseg];
		nseg++;
	}
	tl_fmt_wrap_items(out, "  path, latest first: ", items, nseg, width);
}

int tl_crit_write_text(FILE *out, const struct tl_crit_result *r, int width)
{
	char v[320];

	if (width <= 0)
		width = 100;
	snprintf(v, sizeof(v), "%s", r->run && r->run->path ? r->run->path : "");
	tl_fmt_wrap(out, "threadlens critical: ", v, width);
	if (r->thread_scope)
		snprintf(v, sizeof(v),
		         "a thread's life along its critical path (the thread, back through the wakeups that let it go "
		         "on), by thread and state; %llu complete frames in the window",
		         (unsigned long long)r->frames_seen);
	else
		snprintf(v, sizeof(v),
		         "%zu of %llu complete frames; each frame's latency along its critical path (the thread that "
		         "ended it, back through the wakeups that let it go on), by thread and state",
		         r->n, (unsigned long long)r->frames_seen);
	tl_fmt_wrap(out, "", v, width);
	for (size_t i = 0; i < r->n; i++)
		text_frame(out, r, &r->frames[i], width);
	if (ferror(out))
		return tl_error("cannot write the critical paths");
	return 0;
}

static void json_frame(struct tl_json *j, const struct tl_crit_result *r, const struct tl_crit_frame *f)
{
	tl_json_begin_object(j, TL_JSON_BLOCK);
	tl_json_kv_int(j, "frame", f->id);
	tl_json_kv_uint(j, "begin_ns", rel(r, f->begin));
	tl_json_kv_uint(j, "latency_ns", f->end - f->begin);
	tl_json_key(j, "ended_by");
	tl_json_begin_object(j, TL_JSON_INLINE);
	tl_json_kv_int(j, "tid", f->ended_by);
	tl_json_kv_string(j, "name", f->ended_by_name);
	tl_json_end_object(j);
	tl_json_key(j, "parts");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < f->nparts; i++) {
		const struct tl_crit_part *x = &f->parts[i];

		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "tid", x->tid);
		tl_json_kv_string(j, "name", x->name);
		tl_json_kv_string(j, "state", tl_state_name(x->state));
		tl_json_kv_uint(j, "ns", x->ns);
		tl_json_kv_int(j, "by", x->by);
		tl_json_kv_string(j, "by_name", x->by_name);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_key(j, "path");
	tl_json_begin_array(j, TL_JSON_BLOCK);
	for (size_t i = 0; i < f->npath; i++) {
		const struct tl_crit_seg *s = &f->path[i];

		tl_json_begin_object(j, TL_JSON_INLINE);
		tl_json_kv_int(j, "tid", s->tid);
		tl_json_kv_string(j, "state", tl_state_name(s->state));
		tl_json_kv_uint(j, "from_ns", rel(r, s->from));
		tl_json_kv_uint(j, "to_ns", rel(r, s->to));
		tl_json_kv_int(j, "by", s->by);
		tl_json_end_object(j);
	}
	tl_json_end_array(j);
	tl_json_end_object(j);
}

int tl_crit_write_json(FILE *out, const struct tl_crit_result *r)
{
	struct tl_json j;

	tl_json_init(&j, out, TL_JSON_PRETTY);
	tl_json_begin_object(&j, TL_JSON_BLOCK);
	tl_json_kv_string(&j, "schema", "threadlens-critical");
	tl_json_kv_int(&j, "version", 1);
	tl_json_trace(&j, r->run);
	tl_json_window(&j, r->run);
	tl_json_kv_string(&j, "scope", r->thread_scope ? "thread" : "frames");
	tl_json_kv_uint(&j, "frames_seen", r->frames_seen);
	tl_json_key(&j, "frames");
	tl_json_begin_array(&j, TL_JSON_BLOCK);
	for (size_t i = 0; i < r->n; i++)
		json_frame(&j, r, &r->frames[i]);
	tl_json_end_array(&j);
	tl_json_end_object(&j);
	return tl_json_finish(&j);
}
