/*
 * frames.js - the frames views (for a trace whose program marked frames):
 * throughput over time, each frame's latency (click a frame to show it on
 * the timeline with its critical path), the per-step breakdown of every
 * frame, and the distribution of the latency or of a step: a histogram and
 * the execution-time profile (the share of frames slower than x, on a
 * logarithmic probability axis, as in the seed's ETPs).
 */

const CHART_H = 170, PAD_L = 62, PAD_B = 24, PAD_T = 8;

/* A canvas sized for the page; returns [canvas, ctx, width]. */
function chartCanvas(h) {
	const c = el('canvas', 'tl-chart'), w = 900;
	return [c, sizeCanvas(c, w, h), w];
}

/* Axes: x from x0 to x1 (fmtX labels), y from 0 (or y0) to y1 (fmtY); returns the mapping. */
function axes(ctx, w, h, x0, x1, y0, y1, fmtX, fmtY, logY) {
	const X = (x) => PAD_L + ((x - x0) * (w - PAD_L - 8)) / (x1 - x0 || 1);
	const Y = logY ? (y) => PAD_T + ((Math.log10(y1) - Math.log10(Math.max(y, y0))) * (h - PAD_T - PAD_B)) / (Math.log10(y1) - Math.log10(y0))
		: (y) => PAD_T + ((y1 - y) * (h - PAD_T - PAD_B)) / (y1 - y0 || 1);
	ctx.strokeStyle = '#999';
	ctx.fillStyle = '#444';
	ctx.beginPath();
	ctx.moveTo(PAD_L, PAD_T);
	ctx.lineTo(PAD_L, h - PAD_B);
	ctx.lineTo(w - 8, h - PAD_B);
	ctx.stroke();
	ctx.textBaseline = 'top';
	for (let i = 0; i <= 4; i++) {
		const x = x0 + ((x1 - x0) * i) / 4;
		ctx.fillText(fmtX(x), X(x) - (i === 4 ? 40 : 0), h - PAD_B + 4);
	}
	ctx.textBaseline = 'middle';
	const ticks = logY ? Array.from({ length: Math.round(Math.log10(y1 / y0)) + 1 }, (_, i) => y1 / Math.pow(10, i)) : [0, 1, 2, 3, 4].map((i) => y0 + ((y1 - y0) * i) / 4);
	for (const y of ticks) {
		ctx.fillText(fmtY(y), 4, Y(y), PAD_L - 8);
		ctx.strokeStyle = '#eee';
		ctx.beginPath();
		ctx.moveTo(PAD_L + 1, Y(y));
		ctx.lineTo(w - 8, Y(y));
		ctx.stroke();
	}
	return [X, Y];
}

/* Steps get Okabe and Ito's colours in the order first asked for, then hashed ones. */
const STEP_PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#555555'];
const stepColours = new Map();
function stepColour(name) {
	if (!stepColours.has(name)) {
		let h = 0;
		for (const ch of name)
			h = (h * 31 + ch.charCodeAt(0)) >>> 0;
		stepColours.set(name, stepColours.size < STEP_PALETTE.length ? STEP_PALETTE[stepColours.size] : threadColour(h));
	}
	return stepColours.get(name);
}

function framesView(m, ui) {
	const F = m.frames_json, box = el('section', 'tl-framesview');
	box.append(el('h2', null, 'Frames'));
	const done = F.frames.filter((f) => f.complete).sort((a, b) => a.id - b.id);
	const s = F.summary;
	box.append(el('div', 'tl-meta', done.length + ' complete frames, ' + s.fps.toFixed(1) + ' frames/s; latency median ' +
		fmtNs(s.latency.p50_ns) + ', 90% ' + fmtNs(s.latency.p90_ns) + ', max ' + fmtNs(s.latency.max_ns)));
	if (!done.length)
		return box;

	/* throughput over time: frames ended per bin */
	{
		const bins = Math.max(4, Math.min(60, Math.floor(done.length / 3))), w0 = m.from, span = m.to - m.from || 1;
		const counts = new Array(bins).fill(0);
		for (const f of done)
			counts[Math.min(bins - 1, Math.floor(((f.end_ns - w0) * bins) / span))]++;
		const fps = counts.map((c) => c / (span / bins / 1e9));
		const [c, ctx, w] = chartCanvas(CHART_H);
		const [X, Y] = axes(ctx, w, CHART_H, w0, m.to, 0, Math.max(...fps) * 1.1 || 1, fmtNs, (y) => y.toFixed(0) + '/s');
		ctx.strokeStyle = '#0072b2';
		ctx.lineWidth = 1.5;
		ctx.beginPath();
		fps.forEach((v, i) => {
			const xa = X(w0 + (i * span) / bins), xb = X(w0 + ((i + 1) * span) / bins);
			i ? ctx.lineTo(xa, Y(v)) : ctx.moveTo(xa, Y(v));
			ctx.lineTo(xb, Y(v));
		});
		ctx.stroke();
		box.append(el('h3', null, 'Throughput (frames ended per second)'), c);
	}

	/* latency per frame: click one to see it on the timeline */
	const lat = {};
	{
		const [c, ctx, w] = chartCanvas(CHART_H);
		const maxLat = Math.max(...done.map((f) => f.latency_ns));
		const [X, Y] = axes(ctx, w, CHART_H, m.from, m.to, 0, maxLat * 1.1, fmtNs, fmtNs);
		const crit = new Set((m.critical ? m.critical.frames : []).map((f) => f.frame));
		for (const f of done) {
			ctx.fillStyle = crit.has(f.id) ? '#d55e00' : '#0072b2';
			ctx.fillRect(X(f.end_ns) - 2, Y(f.latency_ns) - 2, 4, 4);
		}
		lat.pointOf = (id) => {
			const f = done.find((q) => q.id === id), r = c.getBoundingClientRect();
			return f ? [r.left + X(f.end_ns), r.top + Y(f.latency_ns)] : null;
		};
		c.addEventListener('click', (e) => {
			const r = c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
			let best = null, bd = 64;
			for (const f of done) {
				const d = Math.hypot(X(f.end_ns) - x, Y(f.latency_ns) - y);
				if (d < bd) {
					bd = d;
					best = f;
				}
			}
			if (best)
				ui.selectFrame(best.id);
		});
		box.append(el('h3', null, 'Latency of each frame (orange: its critical path is kept; click a frame)'), c);
	}
	box.frameInfo = el('div', 'tl-frameinfo');
	box.append(box.frameInfo);

	/* per-step breakdown: a stacked bar per frame */
	const steps = F.steps.map((q) => q.name);
	steps.forEach(stepColour);
	{
		const [c, ctx, w] = chartCanvas(CHART_H);
		const tot = (f) => f.steps.reduce((a, q) => a + q.ns, 0);
		const maxT = Math.max(...done.map(tot)) || 1;
		const [X, Y] = axes(ctx, w, CHART_H, 0, done.length, 0, maxT * 1.05, (x) => 'frame ' + (done[Math.min(done.length - 1, Math.floor(x))] || {}).id, fmtNs);
		const bw = Math.max(1, X(1) - X(0) - 1);
		done.forEach((f, i) => {
			let y = 0;
			for (const q of f.steps) {
				ctx.fillStyle = stepColour(q.name);
				ctx.fillRect(X(i), Y(y + q.ns), bw, Y(y) - Y(y + q.ns));
				y += q.ns;
			}
		});
		const legend = el('div', 'tl-legend');
		for (const name of steps) {
			const sw = el('span', 'tl-swatch');
			sw.style.background = stepColour(name);
			legend.append(el('span', 'tl-key', null, sw, el('span', null, name)));
		}
		box.append(el('h3', null, 'Time in each step, per frame (summed over the step\'s threads)'), c, legend);
	}

	/* distribution: histogram and execution-time profile */
	const choices = [{ label: 'frame latency', values: () => done.map((f) => f.latency_ns) }];
	for (const name of steps)
		choices.push({ label: name, values: () => done.map((f) => f.steps.filter((q) => q.name === name).reduce((a, q) => a + q.ns, 0)).filter((v) => v > 0) });
	box.append(el('h3', null, 'Distribution'), distView(choices, 'frames'));
	box.lat = lat;
	return box;
}

/*
 * A histogram and an execution-time profile of one of `choices`
 * ({label, values()}: durations in ns), picked from a list.
 */
function distView(choices, what) {
	const box = el('div', 'tl-dist'), pick = el('select', 'tl-pick');
	for (const c of choices)
		pick.append(el('option', null, c.label));
	const hc = chartCanvas(CHART_H), ec = chartCanvas(CHART_H), info = el('div', 'tl-meta');
	const draw = () => {
		const vals = choices[pick.selectedIndex].values().slice().sort((a, b) => a - b);
		for (const [cv, ctx] of [hc, ec])
			ctx.clearRect(0, 0, cv.width, cv.height);
		info.textContent = vals.length + ' ' + what + (vals.length ? ', median ' + fmtNs(vals[Math.floor(vals.length / 2)]) + ', max ' + fmtNs(vals[vals.length - 1]) : '');
		if (!vals.length)
			return;
		const lo = vals[0], hi = vals[vals.length - 1], nb = Math.min(40, Math.max(5, Math.ceil(Math.sqrt(vals.length))));
		const width = (hi - lo) / nb || 1, counts = new Array(nb).fill(0);
		for (const v of vals)
			counts[Math.min(nb - 1, Math.floor((v - lo) / width))]++;
		{
			const [, ctx, w] = hc;
			const [X, Y] = axes(ctx, w, CHART_H, lo, lo + nb * width, 0, Math.max(...counts) * 1.1, fmtNs, (y) => y.toFixed(0));
			ctx.fillStyle = '#009e73';
			counts.forEach((n, i) => ctx.fillRect(X(lo + i * width) + 0.5, Y(n), Math.max(1, X(lo + width) - X(lo) - 1), Y(0) - Y(n)));
		}
		{
			const [, ctx, w] = ec, n = vals.length, pmin = 1 / n;
			const [X, Y] = axes(ctx, w, CHART_H, lo, hi > lo ? hi : lo + 1, Math.pow(10, Math.floor(Math.log10(pmin))), 1, fmtNs,
				(p) => (p >= 0.01 ? (100 * p).toFixed(0) : (100 * p).toPrecision(1)) + '%', true);
			ctx.strokeStyle = '#d55e00';
			ctx.lineWidth = 1.5;
			ctx.beginPath();
			vals.forEach((v, i) => {
				const p = (n - i) / n; /* share of values >= v */
				i ? ctx.lineTo(X(v), Y(p)) : ctx.moveTo(X(v), Y(p));
			});
			ctx.stroke();
		}
	};
	pick.addEventListener('change', draw);
	box.append(pick, info, el('div', 'tl-meta', 'histogram'), hc[0],
		el('div', 'tl-meta', 'execution-time profile: share of ' + what + ' taking longer than x (log scale)'), ec[0]);
	draw();
	return box;
}

/* Every region, task and function marked (the markers' spans): their execution times. */
function spansView(m) {
	const by = new Map();
	for (const list of m.marks.values())
		for (const sp of list) {
			const key = m.tl.spans.kinds[sp.kind] + ' ' + sp.name;
			if (!by.has(key))
				by.set(key, []);
			by.get(key).push(sp.e - sp.s);
		}
	const choices = [...by.entries()].filter(([, v]) => v.length >= 2).sort((a, b) => b[1].length - a[1].length)
		.map(([label, v]) => ({ label, values: () => v }));
	if (!choices.length)
		return null;
	const box = el('section', 'tl-spansview');
	box.append(el('h2', null, 'Execution times of the marked regions, tasks and functions'), distView(choices, 'instances'));
	return box;
}

/* What the page says about a selected frame; its critical path, if kept. */
function frameText(m, id) {
	const f = m.frames_json.frames.find((q) => q.id === id);
	const c = m.critical ? m.critical.frames.find((q) => q.frame === id) : null;
	const lines = [];
	if (f)
		lines.push('frame ' + id + ': ' + fmtNs(f.latency_ns) + ' from ' + fmtNs(f.begin_ns));
	if (c) {
		lines.push('critical path (red on the timeline), where the latency went:');
		for (const p of c.parts.slice(0, 6))
			lines.push('  ' + p.name + ' (' + p.tid + ') ' + p.state + (p.by_name ? ' behind ' + p.by_name : '') + ': ' + fmtNs(p.ns) +
				' (' + fmtPct(p.ns / c.latency_ns) + ')');
	} else {
		lines.push('its critical path is kept only for the ' + (m.critical ? m.critical.frames.length : 0) +
			' longest frames: threadlens critical --frame ' + id + ' shows it');
	}
	return lines;
}
