/*
 * app.js - builds the page from the JSON blocks and links the views: a
 * thread selected anywhere (timeline, bars, findings) is selected in all
 * of them; a finding zooms the timeline to its evidence.
 *
 * window.threadlens exposes the state for the end-to-end tests
 * (tests/html/): the view, the rows drawn, the selection.
 */
function main() {
	const m = new Model(jsonBlock('tl-report'), jsonBlock('tl-diagnose'), jsonBlock('tl-timeline'));
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
	app.append(headerView(m), el('h2', null, 'Timeline'), legendView(m), tools, tl.box, findingsView(m, ui), bars, tip.e);
	tl.resize();
	window.addEventListener('resize', () => tl.resize());
	window.threadlens = {
		model: m,
		timeline: tl,
		state: () => ({ v0: tl.v0, v1: tl.v1, exact: tl.exact(), threadRows: tl.threadRows(), cpuRows: m.cpus.length,
			selected: tl.sel.tid, drawn: tl.drawn, arrows: tl.arrows || 0, tip: tip.e.hidden ? '' : tip.e.textContent }),
	};
	window.threadlens.readyMs = performance.now(); /* since the navigation began: bench/html_paint.py */
	document.body.dataset.ready = '1';
}

main();
