/*
 * views.js - the report's other views, linked to the timeline: the header,
 * the legend, the occupation bars (one stacked bar per thread, as in the
 * Extended Thread State Analysis), the findings (each links to its place
 * on the timeline), the self-check against the kernel, and the tooltip.
 */

function headerView(m) {
	const tr = m.tl.trace, box = el('header', 'tl-header');
	box.append(el('h1', null, 'threadlens report'),
		el('div', 'tl-meta', (tr.command || tr.path || '') + '  ·  ' + fmtNs(m.to - m.from) + '  ·  ' +
			tr.ncpus + ' CPUs  ·  ' + (tr.hostname || '') + ', kernel ' + (tr.kernel || '?')));
	const warn = [];
	if (tr.lost_events)
		warn.push('The kernel dropped ' + tr.lost_events + ' events: states near the gaps are uncertain.');
	for (const w of tr.warnings || [])
		warn.push(String(w));
	if (m.tl.detail_until_ns !== undefined)
		warn.push('The trace is too large to keep every interval: exact detail stops at ' + fmtNs(m.tl.detail_until_ns) +
			'; after it the timeline shows summaries. Use threadlens html --from/--to for a detailed window.');
	if (m.spansDropped)
		warn.push(m.spansDropped + ' markers were left out (too many to draw): use --from/--to.');
	const k = m.report.kernel_check;
	if (k && k.disagree)
		warn.push('The kernel disagrees with the trace on ' + k.disagree + ' of ' + k.checked +
			' threads: their states are not to be trusted (below: Checked against the kernel).');
	for (const w of warn)
		box.append(el('div', 'tl-warn', w));
	return box;
}

function legendView(m) {
	const box = el('div', 'tl-legend');
	for (const st of m.states) {
		if (st === 'UNKNOWN')
			continue;
		const sw = el('span', 'tl-swatch');
		sw.style.background = STATE_COLOURS[st];
		box.append(el('span', 'tl-key', null, sw, el('span', null, st)));
	}
	return box;
}

/* One 100% bar per thread; click selects the thread everywhere. */
function barsView(m, ui) {
	const box = el('section', 'tl-bars');
	box.append(el('h2', null, 'Where each thread\'s time went'));
	const list = el('div', 'tl-barlist');
	const threads = (m.report.threads || []).slice().sort((a, b) => (b.state_ns.EXECUTING || 0) - (a.state_ns.EXECUTING || 0));
	for (const t of threads) {
		const total = t.lifetime_ns || Object.values(t.state_ns).reduce((a, v) => a + v, 0) || 1;
		const row = el('div', 'tl-barrow');
		row.dataset.tid = t.tid;
		const bar = el('div', 'tl-bar');
		for (const st of m.states) {
			const ns = t.state_ns[st] || 0;
			if (!ns)
				continue;
			const part = el('span', 'tl-part');
			part.style.width = (100 * ns) / total + '%';
			part.style.background = STATE_COLOURS[st];
			part.title = st + ': ' + fmtNs(ns) + ' (' + fmtPct(ns / total) + ')';
			bar.append(part);
		}
		row.append(el('span', 'tl-barlabel', t.name + ' (' + t.tid + ')'), bar,
			el('span', 'tl-barpct', fmtPct((t.state_ns.EXECUTING || 0) / total) + ' executing'));
		row.addEventListener('click', () => ui.selectThread(t.tid, true));
		list.append(row);
	}
	box.append(list);
	box.highlight = (tid) => {
		for (const r of list.children)
			r.classList.toggle('tl-selected', Number(r.dataset.tid) === tid);
	};
	return box;
}

/*
 * The self-check (the report's kernel_check, docs/REPORT.md): per thread,
 * the trace's on-CPU time and run-queue wait next to the kernel's own
 * accounting, the difference in % of the thread's window (dated as the
 * kernel dates when the trace has the clock lags), flagged beyond the
 * tolerance.  Null when nothing was checked (an import, the perf back end
 * without the kernel's counters).
 */
const KCHECK_ROWS = 50;

function kcheckView(m) {
	const k = m.report.kernel_check;
	if (!k || !k.checked)
		return null;
	const dated = !!k.clock_lags, pct = (v) => (v === null || v === undefined ? '–' : v.toFixed(2) + '%');
	const run = dated ? k.max_run_dated_pct : k.max_run_pct, wait = dated ? k.max_wait_dated_pct : k.max_wait_pct;
	const names = new Map((m.report.threads || []).map((t) => [t.tid, t.name]));
	const box = el('section', 'tl-kcheck');
	box.append(el('h2', null, 'Checked against the kernel'),
		el('p', k.disagree ? 'tl-warn' : 'tl-meta', k.disagree
			? 'The kernel disagrees on ' + k.disagree + ' of ' + k.checked + ' threads (beyond 1% of the window or 1 ms): their states are not to be trusted.'
			: k.checked + ' threads agree with the kernel\'s own accounting: on-CPU time within ' + pct(run) + ' of each thread\'s window' +
				(wait === null ? '' : ', run-queue wait within ' + pct(wait)) +
				(k.max_run_ns === undefined ? '' : ' (' + fmtNs(k.max_run_ns) + (k.max_wait_ns === null ? '' : ' and ' + fmtNs(k.max_wait_ns)) +
					' at most; under 1 ms agrees at any window)') +
				(dated ? ', dated as the kernel dates (the recorded clock lags; as recorded ' + pct(k.max_run_pct) + ' and ' + pct(k.max_wait_pct) + ')' : '') + '.'));
	const t = el('table', 'tl-table');
	const diff = dated ? 'dated' : 'trace − kernel';
	t.append(el('tr', null, null, ...['thread', 'tid', 'on-CPU', 'kernel', diff, 'run-queue wait', 'kernel', diff, 'switches ± (vol / invol)']
		.map((h) => el('th', null, h))));
	const dev = (d, w) => (w ? (d >= 0 ? '+' : '') + ((100 * d) / w).toFixed(2) + '%' : '–');
	for (const x of k.threads.slice(0, KCHECK_ROWS)) {
		const w = x.to_ns - x.from_ns, tr = x.trace, kn = x.kernel, hasWait = kn.wait_ns !== null;
		const rd = tr.run_ns - kn.run_ns + (dated ? x.dated_run_ns || 0 : 0);
		const wd = hasWait ? tr.wait_ns - kn.wait_ns + (dated ? x.dated_wait_ns || 0 : 0) : 0;
		const row = el('tr', x.ok ? null : 'tl-flagged', null, el('td', null, names.get(x.tid) || '?'), el('td', null, String(x.tid)),
			el('td', null, fmtNs(tr.run_ns)), el('td', null, fmtNs(kn.run_ns)), el('td', null, dev(rd, w)),
			el('td', null, hasWait ? fmtNs(tr.wait_ns) : '–'), el('td', null, hasWait ? fmtNs(kn.wait_ns) : '–'),
			el('td', null, hasWait ? dev(wd, w) : '–'),
			el('td', null, kn.voluntary === null ? '–' : (tr.voluntary - kn.voluntary) + ' / ' + (tr.involuntary - kn.involuntary)));
		row.dataset.tid = x.tid;
		t.append(row);
	}
	box.append(t);
	if (k.threads.length > KCHECK_ROWS)
		box.append(el('div', 'tl-meta', (k.threads.length - KCHECK_ROWS) + ' more threads: threadlens report FILE'));
	return box;
}

/*
 * The parallel regions (analysis/regions) as the text report shows them:
 * those with parallel rounds, a row each (a click zooms the timeline to
 * the round that lost the most); then each process's OpenMP workers:
 * where their time on a CPU went (inside the regions, at a round's start
 * or barrier, between the regions: the runtime spinning).  Null if none.
 */
const READY_STATES = ['RUNNABLE', 'READY_PREEMPT', 'READY_QUANTUM'];

function regionsView(m, ui) {
	const regs = (m.report.regions || []).filter((g) => g.rounds.parallel > 0);
	const workers = (m.report.processes || []).filter((p) => p.omp_workers && p.omp_workers.threads > 0);
	if (!regs.length && !workers.length)
		return null;
	const box = el('section', 'tl-regions');
	const st = (map, k) => (map && map[k]) || 0;
	const waitOf = (map) => READY_STATES.reduce((a, k) => a + st(map, k), 0) + st(map, 'SYNC_WAIT');
	box.append(el('h2', null, 'Parallel regions'));
	if (regs.length) {
		box.append(el('p', 'tl-meta', 'Regions of markers or of OpenMP that several threads ran at once. mean: first begin to last end of a ' +
			'parallel round; spread: last finish after the mean, % of the rounds; uneven: CPU time inside, (largest − mean) / largest; ' +
			'wait/run: waiting for a CPU or in sync per time executing, from each round\'s start to its end. A row shows its worst round.'));
		const t = el('table', 'tl-table');
		t.append(el('tr', null, null, ...['region', 'pid', 'threads', 'rounds', 'mean', 'spread', 'uneven', 'wait/run']
			.map((h) => el('th', null, h))));
		for (const g of regs) {
			const n = g.threads.reduce((a, x) => a + x.instances, 0), nested = g.threads.reduce((a, x) => a + (x.nested || 0), 0);
			const exec = st(g.before_ns, 'EXECUTING') + st(g.inside_ns, 'EXECUTING') + st(g.after_ns, 'EXECUTING');
			const wait = waitOf(g.before_ns) + waitOf(g.inside_ns) + waitOf(g.after_ns);
			const all = g.rounds.parallel + g.rounds.serial + g.rounds.dynamic;
			/* as regions.h tells them apart: a task's function; an instance cut at the runtime's barriers */
			const note = n && nested === n ? ' (OpenMP tasks)' : g.barriers ? ' (parts between ' + g.barriers + ' barriers)' : '';
			const row = el('tr', null, null, el('td', null, g.name + note), el('td', null, String(g.pid)),
				el('td', null, String(g.threads.filter((x) => x.instances > 0).length)),
				el('td', null, g.rounds.parallel + '/' + all), el('td', null, fmtNs(g.wall_ns / g.rounds.parallel)),
				el('td', null, fmtPct(g.wall_ns ? g.lost_ns / g.wall_ns : 0)),
				el('td', null, fmtPct(g.work_max_ns ? g.work_lost_ns / g.work_max_ns : 0)),
				el('td', null, exec ? Math.round((100 * wait) / exec) + '%' : '–'));
			row.dataset.region = g.name;
			if (g.worst_round && g.worst_round.to_ns > g.worst_round.from_ns) {
				row.classList.add('tl-clickable');
				row.addEventListener('click', () => ui.zoomTo(g.worst_round.from_ns, g.worst_round.to_ns));
			}
			t.append(row);
		}
		box.append(t);
	}
	for (const p of workers) {
		const w = p.omp_workers, part = (v) => (w.exec_ns ? v / w.exec_ns : 0);
		const bar = el('div', 'tl-split', null, ...[['inside', w.inside_ns, 'inside the regions'],
			['around', w.around_ns, 'at a round\'s start or barrier'], ['between', w.between_ns, 'between the regions']]
			.map(([k, v, what]) => {
				const s = el('span', 'tl-split-' + k);
				s.title = what + ': ' + fmtNs(v);
				s.style.width = (100 * part(v)).toFixed(2) + '%';
				return s;
			}));
		box.append(el('div', 'tl-omp', null, el('div', null, 'OpenMP workers of ' + p.name + ' (' + p.pid + '): ' + w.threads +
			(w.threads > 1 ? ' threads, ' : ' thread, ') + fmtNs(w.exec_ns) + ' EXECUTING: ' + fmtPct(part(w.inside_ns)) +
			' inside the regions, ' + fmtPct(part(w.around_ns)) + ' at a round\'s start or barrier, ' + fmtPct(part(w.between_ns)) +
			' between the regions (spinning in the runtime)'), bar));
	}
	return box;
}

/*
 * The most waited-on locks (analysis/locks), as the text report's LOCKS
 * table: a row per lock of a known futex word (a mutex's, or a barrier's),
 * by its name (what holds it: format 1.10) or its address,
 * the first LOCK_ROWS; a click selects its longest waiter on the timeline.
 * Null when the trace names no lock (before format 1.9).
 */
const LOCK_ROWS = 20;

/* A lock's name; a region's label, which many locks share ("[heap]"), with the word's address; else the address. */
function lockLabel(k) {
	return k.name && k.name[0] !== '[' ? k.name : (k.name ? k.name + ' ' : '') + k.addr;
}

function locksView(m, ui) {
	const locks = [];
	for (const p of m.report.processes || [])
		for (const k of p.locks || [])
			locks.push(Object.assign({ pid: p.pid }, k));
	if (!locks.length)
		return null;
	locks.sort((a, b) => b.wait_ns - a.wait_ns);
	const box = el('section', 'tl-locks');
	box.append(el('h2', null, 'Locks'));
	box.append(el('p', 'tl-meta', 'Waits in a lock\'s futex by its word (a mutex, or a barrier): waits that ended, their time ' +
		'(summed over the waiters), the longest; on CPU and convoy: the share of that time in which the holders ran, and in which ' +
		'the last holder waited for a lock itself. A click selects its longest waiter.'));
	const t = el('table', 'tl-table');
	t.append(el('tr', null, null, ...['lock', 'pid', 'waits', 'time', 'max', 'on CPU', 'convoy', 'waiters']
		.map((h) => el('th', null, h))));
	for (const k of locks.slice(0, LOCK_ROWS)) {
		const all = Object.values(k.holder).reduce((a, v) => a + v, 0);
		const share = (v) => fmtPct(all ? v / all : 0);
		const row = el('tr', null, null, el('td', null, lockLabel(k)), el('td', null, String(k.pid)), el('td', null, String(k.waits)),
			el('td', null, fmtNs(k.wait_ns)), el('td', null, fmtNs(k.max_ns)), el('td', null, share(k.holder.running_ns)),
			el('td', null, share(k.convoy_ns)),
			el('td', null, k.waiter_threads.map((w) => w.name + ' ' + fmtPct(k.wait_ns ? w.wait_ns / k.wait_ns : 0)).join(', ') +
				(k.waiters > k.waiter_threads.length ? ', …' : '')));
		row.dataset.lock = k.addr;
		if (k.waiter_threads.length) {
			row.classList.add('tl-clickable');
			row.addEventListener('click', () => ui.selectThread(k.waiter_threads[0].tid, true));
		}
		t.append(row);
	}
	box.append(t);
	if (locks.length > LOCK_ROWS)
		box.append(el('p', 'tl-meta', (locks.length - LOCK_ROWS) + ' more locks in the report\'s JSON'));
	return box;
}

function findingsView(m, ui) {
	const box = el('section', 'tl-findings');
	box.append(el('h2', null, 'Findings'));
	if (!m.findings.length)
		box.append(el('p', null, 'No threading problem found.'));
	m.findings.forEach((f, i) => {
		const card = el('div', 'tl-finding');
		card.append(el('h3', null, (i + 1) + '. ' + f.kind + ': ' + f.title),
			el('div', 'tl-cost', 'costs about ' + fmtNs(f.cost_ns) + ' (' + fmtPct(f.severity) + ' of the ' + (f.severity_of || 'threads\' time') + ')'));
		const links = el('div', 'tl-links');
		(f.windows || []).forEach((w, k) => {
			const a = el('button', 'tl-link', 'show on the timeline' + (f.windows.length > 1 ? ' (' + (k + 1) + ')' : ''));
			a.addEventListener('click', () => {
				if (f.threads && f.threads.length)
					ui.selectThread(f.threads[0].tid, true);
				ui.zoomTo(m.rel(w.from_ns), m.rel(w.to_ns));
			});
			links.append(a);
		});
		for (const t of (f.threads || []).filter((q) => q.tid > 0)) {
			const a = el('button', 'tl-link', t.name + ' (' + t.tid + ')' + (t.role ? ', ' + t.role : ''));
			a.addEventListener('click', () => ui.selectThread(t.tid, true));
			links.append(a);
		}
		card.append(links);
		const more = el('details', null, null, el('summary', null, 'cause, fix and evidence'));
		if (f.cause)
			more.append(el('p', null, 'Cause: ' + f.cause));
		if (f.fix)
			more.append(el('p', null, 'Fix: ' + f.fix));
		for (const e of f.evidence || [])
			more.append(el('div', 'tl-evidence', e.what + ': ' + (e.unit === 'ns' ? fmtNs(e.value) : e.value + (e.unit ? ' ' + e.unit : '')) +
				(e.threshold !== null && e.threshold !== undefined ? ' (' + e.test + ' ' + (e.unit === 'ns' ? fmtNs(e.threshold) : e.threshold + (e.unit ? ' ' + e.unit : '')) + ')' : '')));
		card.append(more);
		box.append(card);
	});
	return box;
}

class Tooltip {
	constructor() {
		this.e = el('div', 'tl-tip');
		this.e.hidden = true;
	}
	show(lines, x, y) {
		this.e.replaceChildren(...lines.map((l, i) => el(i ? 'div' : 'b', null, l)));
		this.e.hidden = false;
		const w = this.e.offsetWidth, h = this.e.offsetHeight;
		this.e.style.left = Math.min(x + 14, window.innerWidth - w - 4) + 'px';
		this.e.style.top = Math.min(y + 14, window.innerHeight - h - 4) + 'px';
	}
	hide() {
		this.e.hidden = true;
	}
}

/* What the tooltip says about a timeline hit (timeline.js hit()). */
function describeHit(m, h) {
	if (!h || !h.r || h.label)
		return null;
	const r = h.r;
	if (h.mark) {
		const s = h.mark;
		return [s.name, m.tl.spans.kinds[s.kind] + (s.frame >= 0 ? ', frame ' + s.frame : ''),
			'start ' + fmtNs(s.s) + ', lasts ' + fmtNs(s.e - s.s)];
	}
	if (r.type === 'frames') {
		const f = r.proc.frames.find((q) => q.s <= h.t && h.t <= q.e);
		return f ? ['frame ' + f.frame, 'start ' + fmtNs(f.s) + ', lasts ' + fmtNs(f.e - f.s)] : null;
	}
	if (h.rec && r.type === 'thread') {
		const q = h.rec, st = m.states[q.k], lines = [st, r.row.j.name + ' (' + r.row.j.tid + ')',
			'start ' + fmtNs(q.s) + ', lasts ' + fmtNs(q.e - q.s)];
		if (q.a >= 0)
			lines.push('CPU ' + q.a);
		if (q.b > 0)
			lines.push((st.startsWith('READY_') ? 'CPU taken by ' : 'woken by ') + m.nameOf(q.b));
		else if (q.b < 0)
			lines.push(q.b === -2 ? 'woken by a device interrupt' : 'woken by an interrupt (a timer)');
		else if (st === 'READY_QUANTUM')
			lines.push('held back: the CPU was idle (a CPU limit ran out: diagnose, cpu-throttled)');
		return lines;
	}
	if (h.rec && r.type === 'cpu') {
		const q = h.rec, what = CPU_WHAT[q.k] || '?';
		return [q.k === 1 ? m.nameOf(q.a) : what, 'CPU ' + r.row.j.cpu + (q.k === 2 || q.k === 3 ? ', ' + what + ' ' + q.b : ''),
			'start ' + fmtNs(q.s) + ', lasts ' + fmtNs(q.e - q.s)];
	}
	if (h.lod) {
		const lines = [(r.type === 'cpu' ? 'CPU ' + r.row.j.cpu : r.row.j.name) + ', ' + fmtNs(m.blockNs) + ' around ' + fmtNs(h.t)];
		for (const [key, share] of h.lod)
			lines.push((r.type === 'cpu' ? (key[0] === 1 ? m.nameOf(key[1]) : CPU_WHAT[key[0]] || 'others') : m.states[key]) + ': ' + fmtPct(share));
		lines.push('zoom in for the exact intervals');
		return lines;
	}
	return null;
}

/* Before and after: `threadlens diff`'s numbers, the states that moved, the findings gone and new. */
/* The profiles of a before and after page of sampled recordings (`diff --json`'s profile). */
function profileDiffView(p) {
	const box = el('div', 'tl-profdiff');
	const clock = p.event.startsWith('cpu-clock') || p.event.startsWith('task-clock');
	const amount = (v) => (clock ? fmtNs(v) : Number(v).toPrecision(4));
	const ch = p.period.change;
	box.append(el('h2', null, 'Samples (' + p.event + ')'),
		el('p', p.period.flagged ? 'tl-flagged' : null, Math.abs(100 * ch).toFixed(1) + '% ' + (ch <= 0 ? 'less ' : 'more ') + p.event +
			' after: ' + amount(p.period.before) + ' → ' + amount(p.period.after) + (p.period.flagged ? ' (past the noise)' : ' (within the noise)')));
	const pct = (v) => (v.before ? ((v.change >= 0 ? '+' : '') + (100 * v.change).toFixed(1) + '%') : v.after ? 'new' : '–');
	const t = el('table', 'tl-table');
	t.append(el('tr', null, null, el('th', null, 'samples'), el('th', null, 'before'), el('th', null, 'after'), el('th', null, 'change')));
	for (const [what, v] of [['all', p.samples], ...p.cpus.map((c) => ['cpu' + c.cpu, c.samples])])
		t.append(el('tr', v.flagged ? 'tl-flagged' : null, null, el('td', null, what), el('td', null, v.before.toFixed(0)),
			el('td', null, v.after.toFixed(0)), el('td', null, pct(v))));
	const f = el('table', 'tl-table');
	f.append(el('tr', null, null, el('th', null, 'function'), el('th', null, 'self before'), el('th', null, 'after'),
		el('th', null, 'change'), el('th', null, 'share before → after')));
	for (const x of p.functions.slice(0, 25))
		f.append(el('tr', x.self.flagged ? 'tl-flagged' : null, null, el('td', null, x.name), el('td', null, x.self.before.toFixed(0)),
			el('td', null, x.self.after.toFixed(0)), el('td', null, pct(x.self)),
			el('td', null, x.share_pct.before.toFixed(1) + '% → ' + x.share_pct.after.toFixed(1) + '%')));
	box.append(t, el('h3', null, 'Functions (self samples; marked: past the noise)'), f);
	/* frames named by offset on a side (a file rebuilt or unreadable) match no function of the other: said */
	for (const [side, other] of [['before', 'after'], ['after', 'before']])
		if (p.unnamed && p.unnamed[side] > 0)
			box.append(el('p', 'tl-meta', p.unnamed[side] + ' samples ' + side + ' have frames named by offset (a file rebuilt ' +
				'since the recording, or unreadable: that side\'s profile names it), which match no function ' + other));
	return box;
}

function diffView(d) {
	const box = el('section', 'tl-diff');
	box.append(el('h1', null, 'threadlens: before and after'),
		el('div', 'tl-meta', d.noise_measured ? 'changes marked when past three standard errors of the run-to-run noise'
			: 'one recording a side: the noise is not known; changes marked past a fixed bar (10%, 5 points of a state)'));
	const names = { fps: 'frames/s', latency_p50_ns: 'frame latency, median', latency_p90_ns: 'frame latency, 90%',
		latency_p99_ns: 'frame latency, 99%', frames: 'complete frames', cpu_pct: 'CPU, % of the CPUs it may use',
		duration_ns: 'duration' };
	const fmt = (k, v) => (v === null || v === undefined ? '–' : k.endsWith('_ns') ? fmtNs(v) : k === 'cpu_pct' ? v.toFixed(1) + '%'
		: k === 'frames' ? Number(v).toFixed(0) : Number(v).toFixed(1));
	const table = el('table', 'tl-table');
	table.append(el('tr', null, null, el('th', null, 'measure'), el('th', null, 'before'), el('th', null, 'after'),
		el('th', null, 'change'), el('th', null, '')));
	for (const [k, v] of Object.entries(d.metrics)) {
		const pct = v.before ? (100 * (v.after - v.before)) / v.before : null;
		const tr = el('tr', v.flagged ? 'tl-flagged' : null, null, el('td', null, names[k] || k), el('td', null, fmt(k, v.before)),
			el('td', null, fmt(k, v.after)), el('td', null, pct === null ? '–' : (pct >= 0 ? '+' : '') + pct.toFixed(1) + '%'),
			el('td', null, v.flagged ? 'changed' : ''));
		table.append(tr);
	}
	box.append(el('h2', null, 'The run'), table);
	const moved = (d.states || []).filter((s) => s.pct.flagged).sort((x, y) => Math.abs(y.pct.change) - Math.abs(x.pct.change));
	const st = el('table', 'tl-table');
	st.append(el('tr', null, null, el('th', null, 'thread'), el('th', null, 'state'), el('th', null, 'before'), el('th', null, 'after'),
		el('th', null, 'change')));
	for (const s of moved.slice(0, 20))
		st.append(el('tr', 'tl-flagged', null, el('td', null, s.thread), el('td', null, s.state), el('td', null, s.pct.before.toFixed(1) + '%'),
			el('td', null, s.pct.after.toFixed(1) + '%'), el('td', null, (s.pct.change >= 0 ? '+' : '') + s.pct.change.toFixed(1) + ' points')));
	box.append(el('h2', null, 'States that moved (share of each thread\'s life; threads matched by name)'),
		moved.length ? st : el('p', null, 'None past the bar.'));
	const list = el('ul', 'tl-changes');
	for (const f of d.findings || [])
		list.append(el('li', f.change === 'gone' ? 'tl-gone' : 'tl-new', (f.change === 'gone' ? 'gone: ' : 'new: ') + f.kind + ' on ' + f.thread));
	box.append(el('h2', null, 'Findings'), (d.findings || []).length ? list : el('p', null, 'The same findings on both sides.'));
	if (d.profile)
		box.append(profileDiffView(d.profile));
	const only = [['only before', d.threads_only_before], ['only after', d.threads_only_after]].filter(([, l]) => l && l.length);
	for (const [what, l] of only)
		box.append(el('div', 'tl-meta', 'Threads ' + what + ': ' + l.join(', ')));
	return box;
}
