/*
 * profile.c - tl_profile_analyze(): samples, mappings and execs gathered
 * by one walk, then resolved and counted (see profile.h); the other
 * events' sums and the page's cells are profile_cells.c's (profile_int.h).
 *
 * Invariants: maps[] holds every MAP event of the window's trace with the
 * exec generation of its process at that point; a sample carries its
 * process's generation at its time, so it is resolved only with the
 * mappings of the same image.  Function ids are dense ids of `keys`
 * (name, module), equal to their index in funcs until the final sort;
 * memo caches (pid, generation, address) -> function id.
 */
#include "analysis/profile/profile.h"
#include "analysis/profile/profile_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/grow.h"
#include "base/strtab.h"
#include "base/tidmap.h"
#include "output/fmt.h"
#include "symbols/callsite.h"
#include "symbols/symfile.h"
#include "timeline/walk.h"

static uint16_t gen_of(struct pass *p, int32_t pid)
{
	struct gen *g = pid > 0 ? tl_tidmap_get(&p->gens, pid) : NULL;
	return g ? g->gen : 0;
}

/* The index of event name id `name` in p->ev_ids, added if new; -1 past TL_PROFILE_MAX_EVENTS. */
static int event_index(struct pass *p, uint32_t name)
{
	for (unsigned i = 0; i < p->nev; i++)
		if (p->ev_ids[i] == name)
			return (int)i;
	if (p->nev == TL_PROFILE_MAX_EVENTS)
		return -1;
	p->ev_ids[p->nev] = name;
	return (int)p->nev++;
}

static void on_event(void *ctx, struct tl_thread *th, const struct tl_event *ev)
{
	struct pass *p = ctx;
	const char *name;
	int ev_i;

	(void)th;
	switch (ev->type) {
	case TL_EV_EXEC: {
		struct gen *g = ev->tid > 0 ? tl_tidmap_put(&p->gens, ev->tid, NULL) : NULL;
		if (g)
			g->gen++;
		else if (ev->tid > 0)
			p->oom = 1;
		break;
	}
	case TL_EV_FORK: {
		/*
		 * A process with no mapping of its own (it ended before the recorder
		 * read them: a fork, or a clone sharing the memory, as LeakSanitizer's
		 * tracer) runs its parent's image: resolved with the parent's.
		 */
		struct tl_thread *parent = tl_sched_thread(p->sched, ev->arg);
		struct tname *ps = ev->arg > 0 ? tl_tidmap_get(&p->names, ev->arg) : NULL;
		int32_t ppid = parent && parent->tgid > 0 ? parent->tgid : ps && ps->pid > 0 ? ps->pid : ev->arg;
		uint16_t pg = gen_of(p, ppid);
		struct gen *g = ev->tid > 0 && ppid > 0 ? tl_tidmap_put(&p->gens, ev->tid, NULL) : NULL;

		if (g) {
			g->from = ppid;
			g->from_gen = pg;
		} else if (ev->tid > 0 && ppid > 0) {
			p->oom = 1;
		}
		break;
	}
	case TL_EV_KSYM:
		if (TL_GROW(p->ksyms, p->capksyms, p->nksyms + 1) < 0) {
			p->oom = 1;
			break;
		}
		p->ksyms[p->nksyms++] = (struct ksym){ (uint64_t)ev->a, (uint64_t)ev->b, ev->name };
		break;
	case TL_EV_JSYM: tl_profile_jsym(p, ev); break;
	case TL_EV_MAP: {
		uint32_t f = tl_profile_file_of(p, tl_trace_string(p->run->trace, ev->name),
		                                ev->arg > 0 ? tl_trace_string(p->run->trace, (uint32_t)ev->arg) : "");
		if (f == UINT32_MAX || TL_GROW(p->maps, p->capmaps, p->nmaps + 1) < 0) {
			p->oom = 1;
			break;
		}
		p->maps[p->nmaps++] = (struct map){ ev->tid,         gen_of(p, ev->tid), f,
			                            (uint64_t)ev->a, (uint64_t)ev->b,    (uint64_t)ev->c };
		break;
	}
	case TL_EV_SAMPLE: {
		struct tl_thread *t = tl_sched_thread(p->sched, ev->tid), *leader = tl_sched_thread(p->sched, ev->arg);

		/* every sample says whose thread it is (for forks), before any filter */
		if (ev->tid > 0) {
			struct tname *tn = tl_tidmap_put(&p->names, ev->tid, NULL);
			if (!tn) {
				p->oom = 1;
			} else {
				tn->pid = ev->arg;
				if (t && t->name[0] && strcmp(tn->name, t->name))
					snprintf(tn->name, sizeof(tn->name), "%s", t->name);
			}
		}
		name = tl_trace_string(p->run->trace, ev->name);
		if (ev->ts < p->win_start || (p->o->cpu >= 0 && ev->cpu != p->o->cpu) ||
		    (p->o->event && strcmp(name, p->o->event)))
			break; /* before the window: the walk hands every event over, for the mappings */
		if (!tl_run_keeps_thread(p->run, 1, ev->tid, ev->arg, t ? t->name : NULL, leader ? leader->name : NULL))
			break;
		if ((ev_i = event_index(p, ev->name)) < 0)
			break;
		if (TL_GROW(p->s, p->caps, p->ns + 1) < 0) {
			p->oom = 1;
			break;
		}
		p->s[p->ns++] = (struct smp){ .ts = ev->ts,
			                      .ip = (uint64_t)ev->b,
			                      .period = (uint64_t)ev->c,
			                      .stack = (uint32_t)ev->a,
			                      .tid = ev->tid,
			                      .pid = ev->arg,
			                      .cpu = ev->cpu,
			                      .gen = gen_of(p, ev->arg),
			                      .ev = (uint8_t)ev_i };
		break;
	}
	default: break;
	}
}

/* The function id of (name, module), made on first sight; UINT32_MAX when out of memory. */
uint32_t tl_profile_key(struct tl_strtab *t, const char *name, const char *module)
{
	char key[TL_PROFILE_NAME_MAX + 72];
	int len = snprintf(key, sizeof(key), "%s\001%s", name, module);

	return tl_strtab_intern(t, key, len < (int)sizeof(key) ? (size_t)len : sizeof(key) - 1);
}

void tl_profile_key_split(const struct tl_strtab *t, uint32_t id, char *name, size_t nlen, char *module, size_t mlen)
{
	const char *k = tl_strtab_get(t, id), *sep = strchr(k, '\001');

	snprintf(name, nlen, "%.*s", (int)(sep ? (size_t)(sep - k) : strlen(k)), k);
	snprintf(module, mlen, "%s", sep ? sep + 1 : "");
}

static uint32_t func_id(struct pass *p, const char *name, const char *module)
{
	uint32_t id = tl_profile_key(&p->keys, name, module);

	if (!id || TL_GROW_ZERO(p->fself, p->capself, id + 1) < 0 || TL_GROW_ZERO(p->ftotal, p->captotal, id + 1) < 0) {
		p->oom = 1;
		return UINT32_MAX;
	}
	return id;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* What holds ip in process pid's image gen: its function id. */
/* Where (pid, ip) starts its probe in the memo (memo_cap a power of two, not 0). */
static size_t memo_home(const struct pass *p, uint64_t ip, int32_t pid)
{
	return (ip * 0x9e3779b97f4a7c15ull ^ (uint64_t)pid) & (p->memo_cap - 1);
}

/* The memo's entry of (pid, gen, ip, ret), or NULL. */
static struct memo *memo_find(struct pass *p, int32_t pid, uint16_t gen, uint64_t ip, int ret)
{
	if (!p->memo_cap)
		return NULL;
	for (size_t h = memo_home(p, ip, pid); p->memo[h].func; h = (h + 1) & (p->memo_cap - 1))
		if (p->memo[h].ip == ip && p->memo[h].pid == pid && p->memo[h].gen == gen && p->memo[h].ret == ret)
			return &p->memo[h];
	return NULL;
}

/* The mapping that holds ip in process pid's image gen (else its parent's, as forked), or NULL. */
static const struct map *find_map(struct pass *p, int32_t pid, uint16_t gen, uint64_t ip)
{
	const struct map *m = NULL;
	int32_t qp = pid;
	uint16_t qg = gen;

	for (int hop = 0; hop < 8 && !m; hop++) {
		struct gen *g;
		int any = 0;

		for (size_t i = 0; i < p->nmaps; i++)
			if (p->maps[i].pid == qp && p->maps[i].gen == qg) {
				any = 1;
				if (ip >= p->maps[i].start && ip < p->maps[i].end)
					m = &p->maps[i]; /* the latest reading wins */
			}
		/* no mapping of its own in this image: its parent's, as forked */
		if (m || any || qg || !(g = tl_tidmap_get(&p->gens, qp)) || !g->from)
			break;
		qp = g->from;
		qg = g->from_gen;
	}
	return m;
}

/* What resolve() says of an address besides its name (kept in the memo: a byte). */
enum where {
	NAMED = 0,      /* a mapping's file, a JIT map or the kernel */
	NO_MAPPING = 1, /* in no mapping, and no JIT map names it */
	REBUILT = 2,    /* in a file rebuilt since the recording */
	UNREADABLE = 3, /* in a file that cannot be read */
};

/*
 * The function id of ip in process pid's image gen; *unresolved says where
 * its name came from (enum where: profile_files.c tells a file rebuilt
 * since the recording, or unreadable: named by offset).  With ret, ip is a return
 * address, named where the call is (ip - 1): a call that does not return
 * (abort(), a thrown exception) can end its function, and its return
 * address is then the first byte of the next.  perf's DWARF unwinding and
 * gdb name callers the same way.  A file offset shown for want of a name
 * stays the return address's.
 */
static uint32_t resolve(struct pass *p, int32_t pid, uint16_t gen, uint64_t ip, int ret, int *unresolved)
{
	const uint64_t at = ip - (ret != 0);
	char name[TL_PROFILE_NAME_MAX];
	size_t h;
	const struct map *m;
	struct memo *slot;
	const char *jit;
	uint32_t id;

	*unresolved = NAMED;
	if (KERNEL(ip)) {
		/* the kernel function the recording named (KSYM), else one entry for the whole kernel */
		size_t lo = 0, hi = p->nksyms;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (p->ksyms[mid].start <= at)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && at < p->ksyms[lo - 1].end)
			return func_id(p, tl_trace_string(p->run->trace, p->ksyms[lo - 1].name), "[kernel]");
		return func_id(p, "[kernel]", "[kernel]");
	}
	if ((slot = memo_find(p, pid, gen, ip, ret))) {
		*unresolved = slot->unres;
		return slot->func - 1;
	}
	if (p->memo_n * 2 >= p->memo_cap) {
		struct memo *old = p->memo;
		size_t oc = p->memo_cap;
		p->memo_cap = oc ? oc * 2 : 4096;
		if (!(p->memo = calloc(p->memo_cap, sizeof(*p->memo)))) {
			p->memo = old;
			p->memo_cap = oc;
			p->oom = 1;
			return UINT32_MAX;
		}
		for (size_t k = 0; k < oc; k++)
			if (old[k].func) {
				h = memo_home(p, old[k].ip, old[k].pid);
				while (p->memo[h].func)
					h = (h + 1) & (p->memo_cap - 1);
				p->memo[h] = old[k];
			}
		free(old);
	}
	h = memo_home(p, ip, pid);
	while (p->memo[h].func)
		h = (h + 1) & (p->memo_cap - 1);
	m = find_map(p, pid, gen, at);
	if (!m && (jit = tl_profile_jit_name(p, pid, at))) {
		id = func_id(p, jit, "[jit]");
	} else if (!m) {
		*unresolved = NO_MAPPING;
		id = func_id(p, "[unknown]", "");
	} else {
		struct file *f = tl_profile_file(p, m->file);
		uint64_t into, entry, off = at - m->start + m->pgoff;
		const char *sym;

		*unresolved = f->rebuilt ? REBUILT : f->unreadable ? UNREADABLE : NAMED;
		sym = tl_symfile_lookup(&f->sf, off, &into);
		if (sym)
			snprintf(name, sizeof(name), "%s", sym);
		else /* a function without a name: by its entry, else the address itself */
			snprintf(name, sizeof(name), "%s+0x%llx", base_name(f->path),
			         (unsigned long long)(tl_symfile_unwind_func(&f->sf, off, &entry) ? off + (ret != 0)
			                                                                          : entry));
		id = func_id(p, name, base_name(f->path));
	}
	if (id != UINT32_MAX) {
		p->memo[h] = (struct memo){ ip, pid, gen, id + 1, (uint8_t)(ret != 0), (uint8_t)*unresolved, 0 };
		p->memo_n++;
	}
	return id;
}

/*
 * Whether the caller frame ip (resolved already as a return address, in a
 * mapping) can be a return address: 1 if the bytes before it in its file
 * end with a call (callsite.h), or cannot be read (the file is gone: the
 * benefit of the doubt); 0 if they can be read and no call ends there.  A
 * signal handler's return address is the signal trampoline (glibc's
 * __restore_rt: mov $15,%rax; syscall, rt_sigreturn), which no call
 * precedes: the kernel put it there; it is known by those bytes, and is 2.
 */
static int after_call(struct pass *p, int32_t pid, uint16_t gen, uint64_t ip)
{
	static const uint8_t sigreturn[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	struct memo *slot = memo_find(p, pid, gen, ip, 1);
	const struct map *m;
	uint8_t b[TL_CALLSITE_MAX + sizeof(sigreturn)];

	if (slot && slot->call)
		return slot->call - 1;
	int ok = 1;
	if ((m = find_map(p, pid, gen, ip - 1))) {
		int fd = tl_profile_file_fd(p, m->file);
		uint64_t back = ip - m->start < TL_CALLSITE_MAX ? ip - m->start : TL_CALLSITE_MAX;
		uint64_t off = ip - m->start + m->pgoff;

		if (fd >= 0 && back && pread(fd, b, back, (off_t)(off - back)) == (ssize_t)back &&
		    !tl_call_ends_here(b, back))
			ok = pread(fd, b, sizeof(sigreturn), (off_t)off) == (ssize_t)sizeof(sigreturn) &&
			                     !memcmp(b, sigreturn, sizeof(sigreturn))
			             ? 2
			             : 0;
	}
	if (slot)
		slot->call = (uint8_t)(ok + 1);
	return ok;
}

/* Count sample i: its functions, and its folded stack; a sample of another event than the one counted: only its function. */
static void count_sample(struct pass *p, struct tl_profile_result *r, struct smp *sm)
{
	int unres;

	if (sm->ev != p->prim) {
		sm->self = resolve(p, sm->pid, sm->gen, sm->ip, 0, &unres);
		return;
	}
	uint64_t one = sm->ip;
	unsigned n = 0;
	const uint64_t *f = sm->stack ? tl_trace_stack(p->run->trace, sm->stack, &n) : NULL;
	uint32_t ids[MAX_FRAMES];
	char line[4096];
	size_t len;

	if (!f || !n) {
		f = &one;
		n = 1;
		r->no_stack += !sm->stack;
	}
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	int rebuilt = 0, unreadable = 0;
	for (unsigned i = 0, user = 0; i < n; i++) {
		/*
		 * The first frame, and the first user frame, are where the CPU
		 * was (or entered the kernel); the others are return addresses the
		 * walk read off the stack.  A user one in no code mapping, or
		 * after no call, is no return address: the walk went through code
		 * built without frame pointers and read a saved register as the
		 * next frame, so it and every frame outward are noise.  The stack
		 * ends before it.  The signal trampoline is a return address no
		 * call precedes: named where it is.
		 */
		int ret = i && (KERNEL(f[i]) || user), call = 1;

		ids[i] = resolve(p, sm->pid, sm->gen, f[i], ret, &unres);
		if (ids[i] == UINT32_MAX)
			return;
		r->unresolved += !i && unres == NO_MAPPING;
		rebuilt |= unres == REBUILT;
		unreadable |= unres == UNREADABLE;
		if (KERNEL(f[i]) ? user != 0
		                 : user++ && (unres == NO_MAPPING || !(call = after_call(p, sm->pid, sm->gen, f[i])))) {
			n = i;
			r->stacks_cut++;
			break;
		}
		if (call == 2 && (ids[i] = resolve(p, sm->pid, sm->gen, f[i], 0, &unres)) == UINT32_MAX)
			return;
	}
	sm->self = ids[0];
	r->kernel += KERNEL(f[0]);
	r->rebuilt.samples += rebuilt;
	r->unreadable.samples += unreadable;
	p->fself[ids[0]]++;
	for (unsigned i = 0; i < n; i++) {
		unsigned j = 0;
		while (j < i && ids[j] != ids[i])
			j++;
		if (j == i) /* once per sample, however deep the recursion */
			p->ftotal[ids[i]]++;
	}
	if (p->o->cells) {
		len = 0;
		for (unsigned i = n; i-- > 0 && len + 12 < sizeof(line);)
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%u,", ids[i]);
		if (!(sm->pstack = tl_strtab_intern(&p->pstacks, line, len))) {
			p->oom = 1;
			return;
		}
	}
	/* folded: the thread (cleaned: the lines go to a terminal), then the frames from the outermost in */
	{
		struct tname *tn = tl_tidmap_get(&p->names, sm->tid);
		tl_fmt_clean_name(tn && tn->name[0] ? tn->name : "?", line, sizeof(line));
		len = strlen(line);
	}
	for (unsigned i = n; i-- > 0 && len + 2 < sizeof(line);) {
		const char *k = tl_strtab_get(&p->keys, ids[i]);
		size_t kl = strcspn(k, "\001");
		len += (size_t)snprintf(line + len, sizeof(line) - len, ";%.*s", (int)kl, k);
	}
	if (len >= sizeof(line))
		len = sizeof(line) - 1; /* a very deep stack is cut at its inner end */
	{
		uint32_t id = tl_strtab_intern(&p->stacks, line, len);
		if (!id || TL_GROW_ZERO(p->fold, p->capfold, id + 1) < 0) {
			p->oom = 1;
			return;
		}
		p->fold[id]++;
	}
}

static int cmp_func(const void *a, const void *b)
{
	const struct tl_profile_func *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct tl_profile_thread *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct tl_profile_folded *)a)->stack, ((const struct tl_profile_folded *)b)->stack);
}

/* Per thread: samples, and its hottest innermost function (an id until the final renumbering). */
/* A thread's row in r->threads, found by tid. */
struct trow {
	int32_t tid;
	uint32_t row;
	uint64_t best_count; /* samples of its hottest innermost function so far */
};

/*
 * Per thread: samples, and its hottest innermost function (an id until the
 * final renumbering): the first to reach the highest count, in sample
 * order.  One pass: threads by tid (tidmap), counts by (tid, function) in
 * an open-addressing table of at most twice the samples.
 */
static int threads_of(struct pass *p, struct tl_profile_result *r)
{
	struct tl_tidmap rows;
	size_t cap = 0, pcap = 16;
	struct pair {
		uint64_t key; /* tid << 32 | function id; 0 = empty (function ids start at 1) */
		uint64_t n;
	} * pairs;
	int rc = -1;

	while (pcap < 2 * p->ns)
		pcap *= 2;
	if (tl_tidmap_init(&rows, sizeof(struct trow)) < 0)
		return -1;
	if (!(pairs = calloc(pcap, sizeof(*pairs)))) {
		tl_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < p->ns; i++) {
		const struct smp *sm = &p->s[i];
		int created = 0;
		struct trow *t = sm->tid > 0 && sm->ev == p->prim ? tl_tidmap_put(&rows, sm->tid, &created) : NULL;
		struct tl_profile_thread *th;
		uint64_t key = (uint64_t)(uint32_t)sm->tid << 32 | sm->self;
		size_t h;

		if (!t)
			continue; /* another event; the idle task is never sampled; a tid <= 0 is not a thread */
		if (created) {
			struct tname *tn = tl_tidmap_get(&p->names, sm->tid);
			if (TL_GROW_ZERO(r->threads, cap, r->nthreads + 1) < 0)
				goto out;
			t->row = (uint32_t)r->nthreads++;
			r->threads[t->row].tid = sm->tid;
			r->threads[t->row].pid = sm->pid;
			snprintf(r->threads[t->row].name, sizeof(r->threads[t->row].name), "%s", tn ? tn->name : "");
		}
		th = &r->threads[t->row];
		th->samples++;
		if (!sm->self)
			continue;
		for (h = (key * 0x9e3779b97f4a7c15ull) & (pcap - 1); pairs[h].key && pairs[h].key != key;
		     h = (h + 1) & (pcap - 1))
			;
		pairs[h].key = key;
		if (++pairs[h].n > t->best_count) {
			t->best_count = pairs[h].n;
			th->top = sm->self;
		}
	}
	rc = 0;
out:
	free(pairs);
	tl_tidmap_release(&rows);
	return rc;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int finish(struct pass *p, struct tl_profile_result *r)
{
	uint32_t nf, *rank;
	uint64_t span = r->run->win_end > r->run->win_start ? r->run->win_end - r->run->win_start : 0;

	for (unsigned e = 1; e < p->nev; e++)
		if (p->ev_ids[e] < p->ev_ids[p->prim])
			p->prim = (uint8_t)e;
	snprintf(r->event, sizeof(r->event), "%s", p->nev ? tl_trace_string(p->run->trace, p->ev_ids[p->prim]) : "");
	r->nevents = p->nev;
	for (unsigned e = 0; e < p->nev; e++) /* the counted event first */
		snprintf(r->events[e].name, sizeof(r->events[e].name), "%s",
		         tl_trace_string(p->run->trace, p->ev_ids[tl_profile_shown(p, e)]));
	r->no_maps = !p->nmaps;
	if (p->nksyms)
		qsort(p->ksyms, p->nksyms, sizeof(*p->ksyms), cmp_ksym);
	r->per_cpu = calloc((size_t)(r->run->ncpus > 0 ? r->run->ncpus : 1), sizeof(*r->per_cpu));
	r->nseconds = (size_t)(span / 1000000000ull) + 1;
	r->per_second = calloc(r->nseconds, sizeof(*r->per_second));
	if (!r->per_cpu || !r->per_second)
		return tl_error("out of memory");
	for (size_t i = 0; i < p->ns && !p->oom; i++) {
		struct smp *sm = &p->s[i];
		count_sample(p, r, sm);
		if (sm->ev != p->prim)
			continue;
		r->samples++;
		r->period += sm->period;
		if (sm->cpu >= 0 && sm->cpu < r->run->ncpus)
			r->per_cpu[sm->cpu]++;
		if (sm->ts >= r->run->win_start && (sm->ts - r->run->win_start) / 1000000000ull < r->nseconds)
			r->per_second[(sm->ts - r->run->win_start) / 1000000000ull]++;
	}
	if (p->oom)
		return tl_error("out of memory");
	nf = tl_strtab_next_id(&p->keys) - 1; /* ids 1..nf */
	if (threads_of(p, r) < 0)
		return -1;
	r->funcs = calloc(nf ? nf : 1, sizeof(*r->funcs));
	rank = calloc(nf + 1, sizeof(*rank));
	if (!r->funcs || !rank) {
		free(rank);
		return tl_error("out of memory");
	}
	for (uint32_t id = 1; id <= nf; id++) {
		struct tl_profile_func *fn = &r->funcs[id - 1];

		tl_profile_key_split(&p->keys, id, fn->name, sizeof(fn->name), fn->module, sizeof(fn->module));
		fn->self = p->fself[id];
		fn->total = p->ftotal[id];
		fn->rank = id; /* which it was, to find it after the sort */
	}
	r->nfuncs = nf;
	if (r->nfuncs)
		qsort(r->funcs, r->nfuncs, sizeof(*r->funcs), cmp_func);
	for (size_t i = 0; i < r->nfuncs; i++)
		rank[r->funcs[i].rank] = (uint32_t)i;
	for (size_t k = 0; k < r->nthreads; k++) /* an id until now, an index from here on */
		r->threads[k].top = r->threads[k].top ? rank[r->threads[k].top] : SIZE_MAX;
	if (tl_profile_event_sums(p, r, rank, nf) < 0 ||
	    (p->o->cells && (tl_profile_cells(p, r, rank) < 0 || tl_profile_event_bins(p, r) < 0))) {
		free(rank);
		return -1;
	}
	free(rank);
	if (r->nthreads)
		qsort(r->threads, r->nthreads, sizeof(*r->threads), cmp_thread);
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct file *f = &p->files[i];
		struct tl_profile_module *mod;
		if (!f->tried || f->path[0] != '/')
			continue;
		if (TL_GROW(r->modules, r->capmodules, r->nmodules + 1) < 0)
			return -1;
		mod = &r->modules[r->nmodules++];
		*mod = (struct tl_profile_module){ strdup(f->path), strdup(f->build_id),
			                           f->code ? strdup(f->code) : NULL };
		if (!mod->path || !mod->build_id || (f->code && !mod->code))
			return tl_error("out of memory");
		/* named by offset: listed as well (only a path tried can be rebuilt or unreadable) */
		struct tl_profile_files *l = f->rebuilt ? &r->rebuilt : f->unreadable ? &r->unreadable : NULL;
		if (l && (TL_GROW(l->paths, l->cap, l->n + 1) < 0 || !(l->paths[l->n] = strdup(f->path))))
			return tl_error("out of memory");
		if (l)
			l->n++;
	}
	r->nfolded = tl_strtab_next_id(&p->stacks) - 1;
	r->folded = calloc(r->nfolded ? r->nfolded : 1, sizeof(*r->folded));
	if (!r->folded)
		return tl_error("out of memory");
	for (uint32_t id = 1; id <= r->nfolded; id++) {
		if (!(r->folded[id - 1].stack = strdup(tl_strtab_get(&p->stacks, id))))
			return tl_error("out of memory");
		r->folded[id - 1].count = p->fold[id];
	}
	if (r->nfolded)
		qsort(r->folded, r->nfolded, sizeof(*r->folded), cmp_folded);
	return 0;
}

static void pass_release(struct pass *p)
{
	tl_profile_files_release(p);
	for (size_t i = 0; i < p->npmaps; i++)
		tl_perfmap_release(&p->pmaps[i].m);
	free(p->pmaps);
	free(p->s);
	free(p->maps);
	free(p->ksyms);
	free(p->fself);
	free(p->ftotal);
	free(p->fold);
	free(p->memo);
	tl_tidmap_release(&p->gens);
	tl_tidmap_release(&p->names);
	tl_strtab_release(&p->keys);
	tl_strtab_release(&p->stacks);
	tl_strtab_release(&p->pstacks);
}

int tl_profile_analyze(struct tl_run *run, const struct tl_profile_opts *o, struct tl_profile_result *r)
{
	struct tl_walk_opts wo = { 0 };
	struct tl_walk *w = NULL;
	struct pass p = { 0 };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->run = run;
	r->top = o->top ? o->top : 20;
	if (tl_run_start(run) < 0)
		return -1;
	p.run = run;
	p.o = o;
	tl_strtab_init(&p.keys);
	tl_strtab_init(&p.stacks);
	tl_strtab_init(&p.pstacks);
	if (tl_tidmap_init(&p.gens, sizeof(struct gen)) < 0 || tl_tidmap_init(&p.names, sizeof(struct tname)) < 0)
		goto out;
	tl_run_walk_opts(run, &wo);
	wo.ctx = &p;
	wo.on_event = on_event;
	if (!(w = tl_walk_new(&wo, &run->info)))
		goto out;
	p.sched = tl_walk_sched(w);
	p.win_start = tl_walk_result(w)->win_start;
	if (tl_walk_run(w, run->trace) < 0)
		goto out;
	if (p.oom) {
		tl_error("out of memory while reading the samples");
		goto out;
	}
	if (tl_run_keep(run, tl_walk_result(w)) < 0 || finish(&p, r) < 0)
		goto out;
	rc = 0;
out:
	tl_walk_free(w);
	pass_release(&p);
	if (rc)
		tl_profile_release(r);
	return rc;
}

void tl_profile_release(struct tl_profile_result *r)
{
	for (size_t i = 0; i < r->nfolded; i++)
		free(r->folded[i].stack);
	free(r->folded);
	for (size_t i = 0; i < r->nstacks; i++)
		free(r->stacks[i].frames);
	free(r->stacks);
	free(r->cells);
	free(r->each);
	free(r->fperiod);
	free(r->ebins);
	free(r->funcs);
	free(r->threads);
	free(r->per_cpu);
	free(r->per_second);
	for (size_t i = 0; i < r->rebuilt.n; i++)
		free(r->rebuilt.paths[i]);
	free(r->rebuilt.paths);
	for (size_t i = 0; i < r->unreadable.n; i++)
		free(r->unreadable.paths[i]);
	free(r->unreadable.paths);
	for (size_t i = 0; i < r->nmodules; i++) {
		free(r->modules[i].path);
		free(r->modules[i].build_id);
		free(r->modules[i].code);
	}
	free(r->modules);
	memset(r, 0, sizeof(*r));
}
