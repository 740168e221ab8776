/*
 * predict.js - the prediction's views (html --directives: the tl-predict
 * block, `predict --json`): the speedup for 1..N cores against the Amdahl
 * bound and the ideal, and a bar per core count of where the cores' time
 * would go (each category's core time over the cores, so a bar is as tall
 * as the predicted time), then a table per parallel region.
 */

const PCAT_COLOURS = { sequential: '#8a8a8a', parallel: '#009e73', imbalance: '#e69f00', limited: '#f0e442',
	overhead: '#d55e00', idle: '#e2e2e2' };

function predictView(j, tui) {
	const box = el('section', 'tl-predict'), P = j.predictions, n = P.length;
	const state = { lines: 0, bars: 0, barTops: [], times: P.map((p) => p.time_ns) };
	box.append(el('h2', null, 'Predicted speedup (threadlens predict)'),
		el('div', 'tl-meta', j.tasks + ' tasks of thread ' + j.tid + ', ' + fmtNs(j.sequential_ns) + ' sequential, ' +
			fmtPct(j.parallel_regions_ns / (j.sequential_ns || 1)) + ' of it in parallel regions; runtime costs: ' +
			(j.platform.measured ? 'measured (threadlens calibrate)' : 'none (no --platform file)')));
	const hover = (canvas, X, lines) => {
		canvas.addEventListener('mousemove', (e) => {
			const b = canvas.getBoundingClientRect(), x = e.clientX - b.left;
			let k = 0;
			for (let i = 1; i < n; i++)
				if (Math.abs(X(i + 1) - x) < Math.abs(X(k + 1) - x))
					k = i;
			tui.tip(lines(P[k]), e.clientX, e.clientY);
		});
		canvas.addEventListener('mouseleave', () => tui.hideTip());
	};
	/* speedup */
	{
		const [c, ctx, w] = chartCanvas(CHART_H), top = Math.max(n, ...P.map((p) => p.amdahl));
		/* the axis labels only the whole core counts among its ticks */
		const [X, Y] = axes(ctx, w, CHART_H, 1, Math.max(n, 2), 0, top,
			(x) => (Math.abs(x - Math.round(x)) < 1e-9 ? Math.round(x) + ' cores' : ''), (y) => y.toFixed(1) + 'x');
		const line = (colour, dash, f) => {
			ctx.strokeStyle = colour;
			ctx.setLineDash(dash);
			ctx.lineWidth = 2;
			ctx.beginPath();
			P.forEach((p, i) => (i ? ctx.lineTo(X(p.cores), Y(f(p))) : ctx.moveTo(X(p.cores), Y(f(p)))));
			ctx.stroke();
			ctx.setLineDash([]);
			ctx.lineWidth = 1;
			state.lines++;
		};
		line('#cccccc', [2, 3], (p) => p.cores);
		line('#0072b2', [6, 4], (p) => p.amdahl);
		line('#009e73', [], (p) => p.speedup);
		hover(c, X, (p) => [p.cores + ' cores: ' + fmtNs(p.time_ns), 'speedup ' + p.speedup.toFixed(2) + 'x, efficiency ' +
			fmtPct(p.efficiency), 'Amdahl bound ' + p.amdahl.toFixed(2) + 'x']);
		const legend = el('div', 'tl-legend');
		for (const [name, colour] of [['predicted', '#009e73'], ['Amdahl bound', '#0072b2'], ['ideal', '#cccccc']]) {
			const sw = el('span', 'tl-swatch');
			sw.style.background = colour;
			legend.append(el('span', 'tl-key', null, sw, el('span', null, name)));
		}
		box.append(legend, c);
	}
	/* cycle stacks */
	{
		const [c, ctx, w] = chartCanvas(CHART_H + 20), tmax = Math.max(...P.map((p) => p.time_ns));
		const [X, Y] = axes(ctx, w, CHART_H + 20, 0.5, n + 0.5, 0, tmax, () => '', fmtNs);
		const bw = Math.max(2, (X(2) - X(1)) * 0.7);
		ctx.fillStyle = '#444';
		ctx.textBaseline = 'top';
		for (const p of P) /* each bar's core count under it */
			if (n <= 16 || p.cores % Math.ceil(n / 16) === 0 || p.cores === 1)
				ctx.fillText(String(p.cores), X(p.cores) - 4, CHART_H + 20 - PAD_B + 4);
		for (const p of P) {
			let acc = 0;
			for (const cat of Object.keys(PCAT_COLOURS)) {
				const v = p.core_ns[cat] / p.cores;
				if (!v)
					continue;
				ctx.fillStyle = PCAT_COLOURS[cat];
				ctx.fillRect(X(p.cores) - bw / 2, Y(acc + v), bw, Y(acc) - Y(acc + v));
				acc += v;
			}
			state.barTops.push(acc);
			state.bars++;
		}
		hover(c, (k) => X(k), (p) => [p.cores + ' cores: ' + fmtNs(p.time_ns)].concat(
			Object.keys(PCAT_COLOURS).filter((cat) => p.core_ns[cat]).map((cat) => cat + ': ' +
				fmtPct(p.core_ns[cat] / (p.cores * p.time_ns || 1)))));
		const legend = el('div', 'tl-legend');
		for (const [cat, colour] of Object.entries(PCAT_COLOURS)) {
			const sw = el('span', 'tl-swatch');
			sw.style.background = colour;
			legend.append(el('span', 'tl-key', null, sw, el('span', null, cat)));
		}
		box.append(el('h3', null, 'Where the cores\' time would go (a bar per core count, as tall as the predicted time)'), legend, c);
	}
	/* regions */
	for (const g of j.regions || []) {
		const t = el('table', 'tl-table');
		t.append(el('tr', null, null, el('th', null, 'cores'), el('th', null, 'time'), el('th', null, 'speedup'),
			...Object.keys(PCAT_COLOURS).slice(1, 5).map((cat) => el('th', null, cat))));
		for (const p of g.predictions)
			t.append(el('tr', null, null, el('td', null, p.cores), el('td', null, fmtNs(p.time_ns)),
				el('td', null, (g.sequential_ns / (p.time_ns || 1)).toFixed(2) + 'x'),
				...Object.keys(PCAT_COLOURS).slice(1, 5).map((cat) => el('td', null, fmtPct(p.core_ns[cat] / (p.cores * p.time_ns || 1))))));
		box.append(el('h3', null, 'Region ' + g.task + ': ' + g.instances + ' instance' + (g.instances === 1 ? '' : 's') + ', ' +
			fmtNs(g.sequential_ns) + ' sequential'), t);
	}
	return { box, state };
}
