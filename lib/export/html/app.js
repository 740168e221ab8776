/*
 * app.js - builds the page from the JSON blocks and links the views: a
 * thread selected anywhere (timeline, bars, findings) is selected in all
 * of them; a finding zooms the timeline to its evidence; a frame picked on
 * the latency chart zooms to it and shows its critical path.
 *
 * window.threadlens exposes the state for the end-to-end tests
 * (tests/html/): the view, the rows drawn, the selection.
 */
function main() {
	const m = new Model(jsonBlock('tl-report'), jsonBlock('tl-diagnose'), jsonBlock('tl-timeline'), jsonBlock('tl-frames'),
		jsonBlock('tl-critical'));
	const app = document.getElementById('app');
	const tip = new Tooltip();
	let bars = null;
	const ui = {
		selectThread(tid, scroll) {
			tl.selectThread(tid, scroll);
			bars.highlight(tid);
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
	const tl = new Timeline(m, ui);
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
	const frames = m.frames_json ? framesView(m, ui) : null;
	app.append(headerView(m), el('h2', null, 'Timeline'), legendView(m), tools, tl.box, findingsView(m, ui), frames, bars, tip.e);
	tl.resize();
	window.addEventListener('resize', () => tl.resize());
	window.threadlens = {
		model: m,
		timeline: tl,
		state: () => ({ v0: tl.v0, v1: tl.v1, exact: tl.exact(), threadRows: tl.threadRows(), cpuRows: m.cpus.length,
			selected: tl.sel.tid, drawn: tl.drawn, arrows: tl.arrows || 0, crit: tl.critDrawn || 0, frame: tl.sel.frame,
			tip: tip.e.hidden ? '' : tip.e.textContent }),
		framePoint: (id) => (frames ? frames.lat.pointOf(id) : null),
	};
	window.threadlens.readyMs = performance.now(); /* since the navigation began: bench/html_paint.py */
	document.body.dataset.ready = '1';
}

main();
