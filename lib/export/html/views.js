/*
 * views.js - the report's other views, linked to the timeline: the header,
 * the legend, the occupation bars (one stacked bar per thread, as in the
 * Extended Thread State Analysis), the findings (each links to its place
 * on the timeline), and the tooltip.
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

function findingsView(m, ui) {
	const box = el('section', 'tl-findings');
	box.append(el('h2', null, 'Findings'));
	if (!m.findings.length)
		box.append(el('p', null, 'No threading problem found.'));
	m.findings.forEach((f, i) => {
		const card = el('div', 'tl-finding');
		card.append(el('h3', null, (i + 1) + '. ' + f.kind + ': ' + f.title),
			el('div', 'tl-cost', 'costs about ' + fmtNs(f.cost_ns) + ' (' + fmtPct(f.severity) + ' of the threads\' time)'));
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
