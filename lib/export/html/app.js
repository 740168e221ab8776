/*
 * app.js - builds the page from the JSON blocks and links the views: a
 * thread selected anywhere (timeline, bars, findings) is selected in all
 * of them; a finding zooms the timeline to its evidence; a frame picked on
 * the latency chart zooms to it and shows its critical path; a thread
 * selected in the sampling views (profile.js) is selected on the timeline,
 * and their selected bins can zoom the timeline.  A before and
 * after page (a tl-diff block) shows the comparison, the sampling views of
 * both side by side when both were sampled, then both traces in full,
 * their blocks' ids ending in "-a" and "-b"; a thread selected on
 * one side is selected on the other too, by name.
 *
 * window.threadlens exposes the state for the end-to-end tests
 * (tests/html/) and bench/html_paint.py: the view, the rows drawn, the
 * selection; .sides holds both sides of a before and after page.
 */

/* Every view of one trace into `box`; `side` ends its blocks' ids. */
function buildSide(side, box, tip, others, column) {
	const m = new Model(jsonBlock('tl-report' + side), jsonBlock('tl-diagnose' + side), jsonBlock('tl-timeline' + side),
		jsonBlock('tl-frames' + side), jsonBlock('tl-critical' + side));
	let bars = null, frames = null, tl = null;
	const ui = {
		selectThread(tid, scroll, fromOther) {
			tl.selectThread(tid, scroll);
			bars.highlight(tid);
			const row = m.byTid.get(tid);
			if (!fromOther && row)
				others.forEach((o) => o.selectName(row.j.name));
		},
		zoomTo(a, b) {
			tl.zoomTo(a, b);
			tl.box.scrollIntoView({ block: 'nearest' });
		},
		hover(h, x, y) {
			const lines = describeHit(m, h);
			lines ? tip.show(lines, x, y) : tip.hide();
		},
		hideTip() {
			tip.hide();
		},
		selectFrame(id) {
			const f = m.frames_json.frames.find((q) => q.id === id);
			const c = m.critical ? m.critical.frames.find((q) => q.frame === id) : null;
			if (!f)
				return;
			tl.sel.crit = c ? c.path : null;
			tl.sel.frame = id;
			frames.frameInfo.replaceChildren(...frameText(m, id).map((l) => el('div', null, l)));
			const pad = Math.max(1000, (f.end_ns - f.begin_ns) * 0.1);
			ui.zoomTo(f.begin_ns - pad, f.end_ns + pad);
		},
		onView(t) {
			view.textContent = fmtNs(t.v0) + ' – ' + fmtNs(t.v1) + ' (' + fmtNs(t.v1 - t.v0) + ')';
		},
	};
	tl = new Timeline(m, ui);
	const view = el('span', 'tl-view');
	const button = (text, fn) => {
		const b = el('button', null, text);
		b.addEventListener('click', fn);
		return b;
	};
	const tools = el('div', 'tl-tools', null, button('zoom in', () => tl.zoom(0.5)), button('zoom out', () => tl.zoom(2)),
		button('all', () => tl.reset()), view,
		el('span', 'tl-help', 'Ctrl+wheel or W/S zoom · drag, Shift+wheel or A/D pan · Shift+drag: wakeups in a range · click: select'));
	bars = barsView(m, ui);
	frames = m.frames_json ? framesView(m, ui) : null;
	const pj = jsonBlock('tl-profile' + side);
	const profile = pj ? profileView(pj, {
		tip: (lines, x, y) => tip.show(lines, x, y),
		hideTip: () => tip.hide(),
		selectThread: (tid) => ui.selectThread(tid, true),
		zoomTo: (a, b) => ui.zoomTo(a, b),
	}, column ? column.width : 0) : null;
	if (profile && column) /* before and after: the sampling views side by side, above both sides */
		column.box.append(profile.box);
	const pj2 = jsonBlock('tl-predict' + side);
	const predict = pj2 ? predictView(pj2, { tip: (lines, x, y) => tip.show(lines, x, y), hideTip: () => tip.hide() }) : null;
	box.append(...[headerView(m), el('h2', null, 'Timeline'), legendView(m), tools, tl.box, findingsView(m, ui),
		frames, regionsView(m, ui), locksView(m, ui), !column && profile && profile.box, predict && predict.box, spansView(m), bars,
		kcheckView(m)].filter(Boolean));
	if (profile)
		profile.redraw();
	return {
		profile,
		predict: predict && predict.state,
		model: m,
		timeline: tl,
		selectName(name) {
			const r = m.threads.find((q) => q.j.name === name);
			if (r)
				ui.selectThread(r.j.tid, false, true);
		},
		state: () => ({ v0: tl.v0, v1: tl.v1, exact: tl.exact(), threadRows: tl.threadRows(), cpuRows: m.cpus.length,
			selected: tl.sel.tid, drawn: tl.drawn, arrows: tl.arrows || 0, crit: tl.critDrawn || 0, frame: tl.sel.frame,
			tip: tip.e.hidden ? '' : tip.e.textContent }),
		framePoint: (id) => (frames ? frames.lat.pointOf(id) : null),
	};
}

function main() {
	const app = document.getElementById('app');
	const tip = new Tooltip();
	const diff = jsonBlock('tl-diff');
	let sides;
	if (!diff) {
		sides = [buildSide('', app, tip, [])];
	} else {
		const a = el('section', 'tl-side'), b = el('section', 'tl-side'), oa = [], ob = [];
		/* both sampled: their sampling views in two columns, right after the comparison */
		let cols = [null, null], sbs = null;
		if (jsonBlock('tl-profile-a') && jsonBlock('tl-profile-b')) {
			const width = Math.max(420, Math.floor((window.innerWidth - 64) / 2));
			cols = ['Before', 'After'].map((what) => ({ width, box: el('div', 'tl-sbscol', null, el('h2', null, what)) }));
			sbs = el('section', 'tl-sbs', null, cols[0].box, cols[1].box);
		}
		app.append(...[diffView(diff), sbs, el('h1', 'tl-sidehead', 'Before: ' + diff.before.join(', ')), a,
			el('h1', 'tl-sidehead', 'After: ' + diff.after.join(', ')), b].filter(Boolean));
		sides = [buildSide('-a', a, tip, oa, cols[0]), buildSide('-b', b, tip, ob, cols[1])];
		oa.push(sides[1]);
		ob.push(sides[0]);
	}
	app.append(tip.e);
	for (const s of sides)
		s.timeline.resize();
	window.addEventListener('resize', () => sides.forEach((s) => s.timeline.resize()));
	window.threadlens = Object.assign({ sides, diff }, sides[0]);
	window.threadlens.readyMs = performance.now(); /* since the navigation began: bench/html_paint.py */
	document.body.dataset.ready = '1';
}

main();
