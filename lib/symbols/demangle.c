/*
 * demangle.c - the qualified name of an Itanium-mangled C++ function (see
 * demangle.h).  Grammar followed (Itanium C++ ABI, 5.1), a subset:
 *
 *   <mangled-name> ::= _Z <name> <params...>
 *   <name>         ::= <nested-name> | L? <source-name> | St L? <source-name>
 *   <nested-name>  ::= N [r][V][K] [R|O] <prefix> <unqualified-name> E
 *   <prefix>       ::= (St | S_ | S<seq-id>_ | <source-name>)*
 *   <unqualified-name> ::= <source-name> | C1 | C2 | C3 | D0 | D1 | D2
 *   <source-name>  ::= <positive decimal length> <identifier>
 *
 * Substitutions: every prefix built so far (not counting `std`) is a
 * candidate, numbered from S_ then S0_, S1_, ... (base 36).
 */
#include "symbols/demangle.h"

#include <string.h>

#define MAX_SUBS 32
#define MAX_OUT 1024

struct dm {
	const char *p;
	char out[MAX_OUT];
	size_t n;
	size_t subs[MAX_SUBS]; /* substitution i: the first subs[i] bytes of out */
	int nsubs;
	const char *last; /* the last source name, for constructors and destructors */
	size_t lastlen;
};

static int put(struct dm *d, const char *s, size_t n)
{
	if (d->n + n >= MAX_OUT)
		return -1;
	memcpy(d->out + d->n, s, n);
	d->n += n;
	d->out[d->n] = 0;
	return 0;
}

/* "::" before a component that is not the first. */
static int sep(struct dm *d)
{
	return d->n ? put(d, "::", 2) : 0;
}

static int source_name(struct dm *d)
{
	size_t len = 0;

	if (*d->p < '1' || *d->p > '9')
		return -1;
	while (*d->p >= '0' && *d->p <= '9') {
		len = len * 10 + (size_t)(*d->p++ - '0');
		if (len > MAX_OUT)
			return -1;
	}
	if (strnlen(d->p, len) < len)
		return -1;
	for (size_t i = 0; i < len; i++) /* identifiers only: a template's or lambda's parts are not */
		if (!(d->p[i] == '_' || d->p[i] == '$' || (d->p[i] >= '0' && d->p[i] <= '9') ||
		      (d->p[i] >= 'a' && d->p[i] <= 'z') || (d->p[i] >= 'A' && d->p[i] <= 'Z')))
			return -1;
	if (sep(d) || put(d, d->p, len))
		return -1;
	d->last = d->p;
	d->lastlen = len;
	d->p += len;
	return 0;
}

static int add_sub(struct dm *d)
{
	if (d->nsubs < MAX_SUBS)
		d->subs[d->nsubs++] = d->n;
	return 0;
}

/* S_ or S<base-36 seq-id>_: an earlier prefix, which becomes the whole output so far. */
static int substitution(struct dm *d)
{
	int id = 0;

	d->p++; /* 'S' */
	if (*d->p != '_') {
		while ((*d->p >= '0' && *d->p <= '9') || (*d->p >= 'A' && *d->p <= 'Z')) {
			id = id * 36 + (*d->p <= '9' ? *d->p - '0' : *d->p - 'A' + 10);
			if (id > MAX_SUBS)
				return -1;
			d->p++;
		}
		if (*d->p != '_')
			return -1;
		id++;
	}
	d->p++;
	if (d->n || id >= d->nsubs) /* only first in a prefix, and known */
		return -1;
	d->n = d->subs[id];
	d->out[d->n] = 0;
	/* the last component's name, for a constructor right after it */
	d->last = NULL;
	for (size_t i = d->n; i > 0; i--)
		if (i >= 2 && d->out[i - 1] == ':' && d->out[i - 2] == ':') {
			d->last = d->out + i;
			break;
		}
	if (!d->last)
		d->last = d->out;
	d->lastlen = (size_t)(d->out + d->n - d->last);
	return 0;
}

static int ctor_dtor(struct dm *d)
{
	char c = d->p[0], k = d->p[1];

	if (!d->last || !((c == 'C' && k >= '1' && k <= '3') || (c == 'D' && k >= '0' && k <= '2')))
		return -1;
	d->p += 2;
	{
		char name[MAX_OUT];
		size_t len = d->lastlen < sizeof(name) - 1 ? d->lastlen : sizeof(name) - 1;
		memcpy(name, d->last, len); /* it may point into out, which sep() extends */
		return sep(d) || (c == 'D' && put(d, "~", 1)) || put(d, name, len);
	}
}

static int nested(struct dm *d)
{
	int parts = 0;

	d->p++; /* 'N' */
	while (*d->p == 'r' || *d->p == 'V' || *d->p == 'K')
		d->p++;
	if (*d->p == 'R' || *d->p == 'O')
		d->p++;
	if (d->p[0] == 'S' && d->p[1] == 't') {
		d->p += 2;
		if (put(d, "std", 3))
			return -1;
	}
	while (*d->p != 'E') {
		if (*d->p == 'S') {
			if (parts || substitution(d))
				return -1;
		} else if (*d->p == 'C' || *d->p == 'D') {
			if (ctor_dtor(d))
				return -1;
		} else if (source_name(d)) {
			return -1; /* templates (I), operators, local and unnamed names: not here */
		}
		parts++;
		if (*d->p != 'E')
			add_sub(d);
	}
	d->p++;
	return parts ? 0 : -1;
}

int tl_demangle_name(const char *sym, char *out, size_t len)
{
	struct dm d = { .p = sym };

	if (!sym || strncmp(sym, "_Z", 2) || strchr(sym, '.'))
		return -1;
	d.p += 2;
	if (*d.p == 'N') {
		if (nested(&d))
			return -1;
	} else {
		if (d.p[0] == 'S' && d.p[1] == 't') {
			d.p += 2;
			if (put(&d, "std", 3))
				return -1;
		}
		if (*d.p == 'L')
			d.p++;
		if (source_name(&d))
			return -1;
	}
	if (*d.p == 'I' || d.n + 1 > len) /* a template's arguments follow: not a plain function */
		return -1;
	memcpy(out, d.out, d.n + 1);
	return 0;
}
