/*
 * tp_state.c - sched_switch's prev_state bits from its print fmt (see
 * tp_state.h).
 *
 * Invariant: a derived mapping only holds bits and letters that the print
 * fmt showed; anything it does not understand makes the derivation fail,
 * and the caller falls back to the built-in table and says so.
 */
#include "capture/tp_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "trace/event.h"

/* Linux 4.14 and later (include/linux/sched.h TASK_REPORT), used when the print fmt says nothing usable. */
void tl_tp_state_default(struct tl_tp_state_map *m)
{
	static const uint64_t kv[] = { 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80 };
	static const int64_t tv[] = { TL_PS_S, TL_PS_D, TL_PS_T, TL_PS_TRACED, TL_PS_X, TL_PS_Z, TL_PS_P, TL_PS_I };

	memset(m, 0, sizeof(*m));
	m->n = 8;
	memcpy(m->kval, kv, sizeof(kv));
	memcpy(m->tl, tv, sizeof(tv));
	m->mask = 0xff;
	m->preempt = 0x100;
	m->fallback = 1;
}

/* Evaluate a constant expression of the print fmt (atoms, casts, arithmetic). */
static int eval_const(const struct tep_print_arg *a, uint64_t *v, int depth)
{
	uint64_t l = 0, r = 0;
	const char *op;
	char *end;

	if (!a || depth > 64)
		return -1;
	switch (a->type) {
	case TEP_PRINT_ATOM: *v = strtoull(a->atom.atom, &end, 0); return (end == a->atom.atom || *end) ? -1 : 0;
	case TEP_PRINT_TYPE: return eval_const(a->typecast.item, v, depth + 1);
	case TEP_PRINT_OP:
		op = a->op.op;
		if (!a->op.left) { /* unary */
			if (eval_const(a->op.right, &r, depth + 1))
				return -1;
			if (!strcmp(op, "~"))
				*v = ~r;
			else if (!strcmp(op, "-"))
				*v = (uint64_t)0 - r;
			else if (!strcmp(op, "!"))
				*v = !r;
			else
				return -1;
			return 0;
		}
		if (eval_const(a->op.left, &l, depth + 1) || eval_const(a->op.right, &r, depth + 1))
			return -1;
		if (!strcmp(op, "+"))
			*v = l + r;
		else if (!strcmp(op, "-"))
			*v = l - r;
		else if (!strcmp(op, "*"))
			*v = l * r;
		else if (!strcmp(op, "|"))
			*v = l | r;
		else if (!strcmp(op, "&"))
			*v = l & r;
		else if (!strcmp(op, "^"))
			*v = l ^ r;
		else if (!strcmp(op, "<<"))
			*v = r < 64 ? l << r : 0;
		else if (!strcmp(op, ">>"))
			*v = r < 64 ? l >> r : 0;
		else
			return -1;
		return 0;
	default: return -1;
	}
}

static int is_field(const struct tep_print_arg *a, const char *name)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD && a->field.name && !strcmp(a->field.name, name);
}

/* For "REC->prev_state & EXPR": evaluate EXPR into *mask.  A bare field gives all bits. */
static int field_mask(const struct tep_print_arg *a, const char *name, uint64_t *mask)
{
	if (is_field(a, name)) {
		*mask = ~(uint64_t)0;
		return 0;
	}
	if (!a || a->type != TEP_PRINT_OP || strcmp(a->op.op, "&"))
		return -1;
	if (is_field(a->op.left, name))
		return eval_const(a->op.right, mask, 0);
	if (is_field(a->op.right, name))
		return eval_const(a->op.left, mask, 0);
	return -1;
}

struct state_search {
	const struct tep_print_arg *flags; /* the __print_flags() of prev_state */
	uint64_t preempt;                  /* the bit of the "+" ternary */
	int have_preempt;
};

static void search_args(const struct tep_print_arg *a, struct state_search *s, int depth)
{
	if (!a || depth > 64)
		return;
	switch (a->type) {
	case TEP_PRINT_FLAGS:
		if (!s->flags) {
			uint64_t m;
			if (!field_mask(a->flags.field, "prev_state", &m))
				s->flags = a;
		}
		break;
	case TEP_PRINT_OP: {
		const struct tep_print_arg *r = a->op.right;
		/* cond ? "+" : "" -- the preemption mark */
		if (!strcmp(a->op.op, "?") && r && r->type == TEP_PRINT_OP && !strcmp(r->op.op, ":") && r->op.left &&
		    r->op.left->type == TEP_PRINT_ATOM && !strcmp(r->op.left->atom.atom, "+")) {
			uint64_t m;
			if (!s->have_preempt && !field_mask(a->op.left, "prev_state", &m)) {
				s->preempt = m;
				s->have_preempt = 1;
			}
		}
		search_args(a->op.left, s, depth + 1);
		search_args(a->op.right, s, depth + 1);
		break;
	}
	case TEP_PRINT_TYPE: search_args(a->typecast.item, s, depth + 1); break;
	default: break;
	}
}

/*
 * Portable bit for one kernel letter.  Old kernels printed more letters:
 * "x" TASK_DEAD, "K" TASK_WAKEKILL (always with D, which carries the
 * meaning), "W" TASK_WAKING (runnable), "N" TASK_NOLOAD (D|N = TASK_IDLE,
 * today's "I").
 */
static int64_t letter_bit(const char *s, int *noload)
{
	if (!s[0] || s[1])
		return 0;
	switch (s[0]) {
	case 'S': return TL_PS_S;
	case 'D': return TL_PS_D;
	case 'T': return TL_PS_T;
	case 't': return TL_PS_TRACED;
	case 'X': return TL_PS_X;
	case 'x': return TL_PS_X;
	case 'Z': return TL_PS_Z;
	case 'P': return TL_PS_P;
	case 'I': return TL_PS_I;
	case 'N': *noload = 1; return TL_PS_I;
	default: return 0;
	}
}

int tl_tp_state_derive(struct tl_tp_state_map *m, const struct tep_event *ev)
{
	struct state_search s = { 0 };
	struct tl_tp_state_map n = { 0 };

	for (const struct tep_print_arg *a = ev->print_fmt.args; a; a = a->next)
		search_args(a, &s, 0);
	if (!s.flags || field_mask(s.flags->flags.field, "prev_state", &n.mask))
		return -1;
	for (const struct tep_print_flag_sym *f = s.flags->flags.flags; f; f = f->next) {
		char *end;
		uint64_t v;

		if (!f->value || !f->str)
			return -1;
		v = strtoull(f->value, &end, 0);
		if (end == f->value || *end || !v)
			return -1;
		if (n.n == TL_TP_MAX_STATE_BITS)
			return -1;
		n.kval[n.n] = v;
		n.tl[n.n] = letter_bit(f->str, &n.noload);
		n.n++;
	}
	if (!n.n)
		return -1;
	if (s.have_preempt)
		n.preempt = s.preempt;
	else if (n.mask != ~(uint64_t)0 && !((n.mask + 1) & n.mask))
		n.preempt = n.mask + 1; /* the bit just above the reported states */
	*m = n;
	return 0;
}

const char *tl_tp_state_desc(const struct tl_tp_state_map *m, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZPI";
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (int i = 0; i < m->n && used < len; i++) {
		char c = '?';
		for (int b = 0; b < 8; b++)
			if (m->tl[i] == (1 << b))
				c = letters[b];
		if (!m->tl[i])
			c = '-';
		used += (size_t)snprintf(buf + used, len - used, "%c=0x%llx ", c, (unsigned long long)m->kval[i]);
	}
	if (used < len)
		snprintf(buf + used, len - used, "preempt=0x%llx (%s)", (unsigned long long)m->preempt,
		         m->fallback ? "built-in fallback" : "from sched_switch print fmt");
	return buf;
}
