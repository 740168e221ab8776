/*
 * profile.js - the sampling views, for a trace recorded with --sample (the
 * tl-profile block: `profile --json` with profile.h's cells, the samples
 * counted by time bin, CPU, thread and stack):
 *
 *   - the CPUs as a heatmap (CPU x time bin) of the counted event's samples and as parallel coordinates
 *     (one axis per CPU, one line per bin; hover highlights a bin in both);
 *   - the threads per bin, each cell coloured by the CPU its samples ran
 *     on, a tick where the thread moved to another CPU;
 *   - with several events, each ratio both give (IPC...) over time, per
 *     CPU and in all;
 *   - a flame graph (callers below their callees; click a frame to zoom to
 *     it, the bottom bar to zoom out; search colours the matches and says
 *     their share) and the top functions of the selection.
 *
 * Every view shows the same selection of samples: a thread (the menu, or a
 * click on a thread's row), a range of bins (drag on the heatmap) and the
 * searched function (the threads view counts only the samples whose stack
 * holds it).  "Show on the timeline" zooms the thread-state timeline to the
 * selected bins: from a hot second to what the threads were doing then.
 */

const CPU_PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#555555'];

function cpuColour(c) {
	return c < CPU_PALETTE.length ? CPU_PALETTE[c] : threadColour(c + 7919);
}

/* Warm colours for the flame graph, stable per name; the kernel's in greys. */
function flameColour(name, module) {
	let h = 0;
	for (const ch of name)
		h = (h * 31 + ch.charCodeAt(0)) >>> 0;
	if (module === '[kernel]')
		return 'hsl(30,8%,' + (62 + (h % 16)) + '%)';
	return 'hsl(' + (h % 50) + ',' + (70 + (h >>> 8) % 20) + '%,' + (55 + (h >>> 16) % 15) + '%)';
}

class Profile {
	constructor(j, width) {
		this.j = j;
		this.width = width || 900; /* the views' width in CSS pixels */
		this.funcs = j.functions;
		this.stacks = j.stacks;
		this.nbins = j.bins.n;
		const c = j.cells, n = c.length / 5;
		this.n = n;
		this.stack = new Int32Array(n);
		this.bin = new Int32Array(n);
		this.cpu = new Int32Array(n);
		this.tid = new Int32Array(n);
		this.count = new Float64Array(n);
		for (let i = 0; i < n; i++) {
			this.stack[i] = c[5 * i];
			this.bin[i] = c[5 * i + 1];
			this.cpu[i] = c[5 * i + 2];
			this.tid[i] = c[5 * i + 3];
			this.count[i] = c[5 * i + 4];
		}
		this.ncpus = Math.max(j.per_cpu.length, 1);
		this.threads = j.threads;
		this.names = new Map(j.threads.map((t) => [t.tid, t.name]));
		this.sel = { tid: null, b0: 0, b1: this.nbins, match: '' };
		this.matchStack = null;
	}
	binNs(b) {
		return this.j.bins.from_ns + b * this.j.bins.bin_ns;
	}
	/* The stacks that hold a function whose name contains the search text (null: no search). */
	matching() {
		const q = this.sel.match.toLowerCase();
		if (!q)
			return null;
		const hit = this.funcs.map((f) => f.name.toLowerCase().includes(q));
		return this.stacks.map((s) => s.some((f) => hit[f]));
	}
	/* Calls fn(i) for each cell of the selection; `all` keeps every bin, `any` every thread. */
	each(fn, opt = {}) {
		const s = this.sel, m = opt.matching ? this.matching() : null;
		for (let i = 0; i < this.n; i++) {
			if (!opt.allBins && (this.bin[i] < s.b0 || this.bin[i] >= s.b1))
				continue;
			if (!opt.anyThread && s.tid !== null && this.tid[i] !== s.tid)
				continue;
			if (m && !m[this.stack[i]])
				continue;
			fn(i);
		}
	}
}

/* The flame graph's tree of the selection: {f (function index, -1 for the root), n, kids: Map}. */
function flameTree(p) {
	const root = { f: -1, n: 0, kids: new Map(), parent: null };
	p.each((i) => {
		const c = p.count[i];
		let node = root;
		root.n += c;
		for (const f of p.stacks[p.stack[i]]) {
			let k = node.kids.get(f);
			if (!k)
				node.kids.set(f, (k = { f, n: 0, kids: new Map(), parent: node }));
			k.n += c;
			node = k;
		}
	});
	return root;
}

const FLAME_ROW = 17;

class FlameGraph {
	constructor(p, ui) {
		this.p = p;
		this.ui = ui;
		this.canvas = el('canvas', 'tl-flame');
		this.info = el('div', 'tl-meta');
		this.rects = [];
		this.zoomPath = []; /* function indices from the root to the zoomed frame */
		this.canvas.addEventListener('mousemove', (e) => {
			const r = this.hit(e);
			r ? ui.tip(this.describe(r), e.clientX, e.clientY) : ui.hideTip();
		});
		this.canvas.addEventListener('mouseleave', () => ui.hideTip());
		this.canvas.addEventListener('click', (e) => {
			const r = this.hit(e);
			if (!r)
				return;
			this.zoomPath = r.path;
			this.draw();
		});
	}
	hit(e) {
		const b = this.canvas.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
		return this.rects.find((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + FLAME_ROW) || null;
	}
	name(f) {
		return f < 0 ? 'all samples' : this.p.funcs[f].name;
	}
	describe(r) {
		const f = r.node.f, mod = f >= 0 ? this.p.funcs[f].module : '';
		return [this.name(f), r.node.n + ' samples, ' + fmtPct(r.node.n / (this.total || 1)) + ' of the selection' +
			(mod ? ' · ' + mod : ''), 'click: zoom to it' + (r.path.length ? '' : ' (all)')];
	}
	draw() {
		const p = this.p, root = flameTree(p), q = p.sel.match.toLowerCase();
		this.total = root.n;
		/* the zoomed frame, as far down its path as the selection still has it */
		let top = root, path = [];
		for (const f of this.zoomPath) {
			const k = top.kids.get(f);
			if (!k)
				break;
			top = k;
			path.push(f);
		}
		let depth = 0;
		const measure = (n, d) => {
			depth = Math.max(depth, d);
			for (const k of n.kids.values())
				measure(k, d + 1);
		};
		measure(top, path.length);
		const w = this.p.width, h = (depth + 1) * FLAME_ROW + 2, ctx = sizeCanvas(this.canvas, w, h);
		ctx.textBaseline = 'middle';
		this.rects = [];
		const isHit = (f) => q && f >= 0 && this.name(f).toLowerCase().includes(q);
		const box = (node, nodePath, x, width, d) => {
			const y = h - (d + 1) * FLAME_ROW, f = node.f, name = this.name(f);
			const hitq = isHit(f);
			ctx.fillStyle = hitq ? '#e040fb' : f < 0 ? '#d8d8d8' : flameColour(name, p.funcs[f].module);
			ctx.fillRect(x, y, Math.max(width - 1, 0.5), FLAME_ROW - 1);
			if (width > 30) {
				ctx.fillStyle = '#111';
				ctx.fillText(name, x + 3, y + FLAME_ROW / 2, width - 6);
			}
			this.rects.push({ x, y, w: width, node, path: nodePath });
		};
		/* the ancestors of the zoomed frame, full width below it */
		let n = root;
		box(root, [], 0, w, 0);
		for (let d = 0; d < path.length; d++) {
			n = n.kids.get(path[d]);
			box(n, path.slice(0, d + 1), 0, w, d + 1);
		}
		const scale = w / (top.n || 1);
		const walk = (node, nodePath, x, d) => {
			let cx = x;
			for (const k of [...node.kids.values()].sort((a, b) => b.n - a.n)) {
				const kw = k.n * scale, kp = nodePath.concat(k.f);
				if (kw >= 0.5) { /* narrower frames are not drawn, nor their callees */
					box(k, kp, cx, kw, d + 1);
					walk(k, kp, cx, d + 1);
				}
				cx += kw;
			}
		};
		walk(top, path, 0, path.length);
		/* the search's share: the samples of the zoomed frame with a match in their stack, drawn or not */
		const matchedIn = (node) => (isHit(node.f) ? node.n : [...node.kids.values()].reduce((a, k) => a + matchedIn(k), 0));
		const matched = q ? (path.some(isHit) ? top.n : matchedIn(top)) : 0;
		this.zoomed = path.length ? this.name(path[path.length - 1]) : '';
		this.matched = q ? matched / (top.n || 1) : null;
		this.info.textContent = root.n + ' samples' + (path.length ? ', zoomed to ' + this.zoomed + ' (' + top.n + ')' : '') +
			(q ? ' · "' + p.sel.match + '": ' + fmtPct(this.matched) + (path.length ? ' of the zoomed frame' : ' of the samples') : '');
	}
	/* The middle of a frame drawn for function `name` (the widest), in page pixels, for the tests. */
	frameAt(name) {
		const r = this.rects.filter((q) => q.node.f >= 0 && this.p.funcs[q.node.f].name === name).sort((a, b) => b.w - a.w)[0];
		if (!r)
			return null;
		const b = this.canvas.getBoundingClientRect();
		return [b.left + r.x + r.w / 2, b.top + r.y + FLAME_ROW / 2, r.w];
	}
}

const HEAT_ROW = 16, HEAT_LABEL = 60;

/* The CPUs by time bin: a heatmap and parallel coordinates; drag on the heatmap selects bins. */
class CpuViews {
	constructor(p, ui) {
		this.p = p;
		this.ui = ui;
		this.heat = el('canvas', 'tl-chart');
		this.pc = el('canvas', 'tl-chart');
		this.hoverBin = -1;
		let drag = null;
		const binAt = (e) => {
			const b = this.heat.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
			const bin = Math.floor((x - HEAT_LABEL) / this.cw), cpu = Math.floor(y / HEAT_ROW);
			return bin >= 0 && bin < p.nbins && cpu >= 0 && cpu < p.ncpus ? { bin, cpu } : null;
		};
		this.heat.addEventListener('mousedown', (e) => {
			const h = binAt(e);
			drag = h ? h.bin : null;
		});
		this.heat.addEventListener('mousemove', (e) => {
			const h = binAt(e);
			this.hover(h ? h.bin : -1);
			if (!h)
				return ui.hideTip();
			const v = this.grid[h.cpu * p.nbins + h.bin];
			ui.tip(['cpu' + h.cpu + ', ' + fmtNs(p.binNs(h.bin)) + ' – ' + fmtNs(p.binNs(h.bin + 1)),
				v + ' samples' + (v ? ', most in ' + this.topOf(h.bin, h.cpu) : ''),
				'drag: select these bins'], e.clientX, e.clientY);
		});
		this.heat.addEventListener('mouseleave', () => {
			this.hover(-1);
			ui.hideTip();
		});
		window.addEventListener('mouseup', (e) => {
			if (drag === null)
				return;
			const h = binAt(e), a = drag, b = h ? h.bin : a;
			drag = null;
			ui.selectBins(Math.min(a, b), Math.max(a, b) + 1);
		});
		this.pc.addEventListener('mousemove', (e) => {
			const bin = this.pcHit(e);
			this.hover(bin);
			if (bin < 0)
				return ui.hideTip();
			ui.tip([fmtNs(p.binNs(bin)) + ' – ' + fmtNs(p.binNs(bin + 1)),
				Array.from({ length: p.ncpus }, (_, c) => 'cpu' + c + ': ' + this.grid[c * p.nbins + bin]).join(', ')], e.clientX, e.clientY);
		});
		this.pc.addEventListener('mouseleave', () => {
			this.hover(-1);
			ui.hideTip();
		});
	}
	/* The most sampled function (innermost) of a bin on a CPU, in the selection's threads. */
	topOf(bin, cpu) {
		const p = this.p, n = new Map();
		p.each((i) => {
			if (p.bin[i] === bin && p.cpu[i] === cpu) {
				const s = p.stacks[p.stack[i]], f = s[s.length - 1];
				n.set(f, (n.get(f) || 0) + p.count[i]);
			}
		}, { allBins: true, matching: true });
		let best = -1, bn = 0;
		for (const [f, c] of n)
			if (c > bn)
				[best, bn] = [f, c];
		return best >= 0 ? p.funcs[best].name : '-';
	}
	draw() {
		const p = this.p;
		this.grid = new Float64Array(p.ncpus * p.nbins);
		p.each((i) => {
			if (p.cpu[i] >= 0 && p.cpu[i] < p.ncpus)
				this.grid[p.cpu[i] * p.nbins + p.bin[i]] += p.count[i];
		}, { allBins: true, matching: true });
		this.max = Math.max(1, ...this.grid);
		this.drawHeat();
		this.drawPc();
	}
	drawHeat() {
		const p = this.p, w = p.width, h = p.ncpus * HEAT_ROW + 18, ctx = sizeCanvas(this.heat, w, h);
		this.cw = (w - HEAT_LABEL) / p.nbins;
		this.cells = 0;
		ctx.textBaseline = 'middle';
		for (let c = 0; c < p.ncpus; c++) {
			ctx.fillStyle = '#444';
			ctx.fillText('cpu' + c, 4, c * HEAT_ROW + HEAT_ROW / 2);
			for (let b = 0; b < p.nbins; b++) {
				const v = this.grid[c * p.nbins + b];
				if (!v)
					continue;
				this.cells++;
				/* white to dark red: lightness by the share of the busiest cell */
				ctx.fillStyle = 'hsl(5,80%,' + (92 - 62 * (v / this.max)) + '%)';
				ctx.fillRect(HEAT_LABEL + b * this.cw, c * HEAT_ROW, Math.max(this.cw - 0.5, 0.5), HEAT_ROW - 1);
			}
		}
		const s = p.sel;
		if (s.b0 > 0 || s.b1 < p.nbins) {
			ctx.strokeStyle = '#000';
			ctx.lineWidth = 2;
			ctx.strokeRect(HEAT_LABEL + s.b0 * this.cw, 1, (s.b1 - s.b0) * this.cw, p.ncpus * HEAT_ROW - 2);
			ctx.lineWidth = 1;
		}
		if (this.hoverBin >= 0) {
			ctx.strokeStyle = '#0072b2';
			ctx.strokeRect(HEAT_LABEL + this.hoverBin * this.cw, 0.5, this.cw, p.ncpus * HEAT_ROW - 1);
		}
		ctx.fillStyle = '#444';
		ctx.textBaseline = 'top';
		for (let i = 0; i <= 4; i++) {
			const b = Math.round((p.nbins * i) / 4);
			ctx.fillText(fmtNs(p.binNs(b)), HEAT_LABEL + b * this.cw - (i === 4 ? 40 : 0), p.ncpus * HEAT_ROW + 4);
		}
	}
	pcGeometry() {
		const p = this.p, w = p.width, h = 150, n = p.ncpus;
		const X = (c) => HEAT_LABEL + (n > 1 ? (c * (w - HEAT_LABEL - 30)) / (n - 1) : (w - HEAT_LABEL) / 2);
		const Y = (v) => 10 + (h - 30) * (1 - v / this.max);
		return { w, h, X, Y };
	}
	drawPc() {
		const p = this.p, g = this.pcGeometry(), ctx = sizeCanvas(this.pc, g.w, g.h);
		this.lines = 0;
		const line = (b, colour, width) => {
			ctx.strokeStyle = colour;
			ctx.lineWidth = width;
			ctx.beginPath();
			for (let c = 0; c < p.ncpus; c++)
				(c ? ctx.lineTo : ctx.moveTo).call(ctx, g.X(c), g.Y(this.grid[c * p.nbins + b]));
			if (p.ncpus === 1)
				ctx.lineTo(g.X(0) + 4, g.Y(this.grid[b]));
			ctx.stroke();
		};
		for (let b = 0; b < p.nbins; b++) {
			if (b >= p.sel.b0 && b < p.sel.b1) {
				line(b, '#0072b240', 1);
				this.lines++;
			}
		}
		if (this.hoverBin >= 0)
			line(this.hoverBin, '#d55e00', 2.5);
		ctx.lineWidth = 1;
		ctx.fillStyle = '#444';
		for (let c = 0; c < p.ncpus; c++) {
			ctx.strokeStyle = '#999';
			ctx.beginPath();
			ctx.moveTo(g.X(c), g.Y(this.max));
			ctx.lineTo(g.X(c), g.Y(0));
			ctx.stroke();
			ctx.fillText('cpu' + c, g.X(c) - 12, g.h - 8);
		}
		ctx.fillText(String(this.max), 4, g.Y(this.max) + 4);
		ctx.fillText('0', 4, g.Y(0));
	}
	/* The selected bin whose line passes nearest the pointer, or -1. */
	pcHit(e) {
		const p = this.p, g = this.pcGeometry(), b = this.pc.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
		if (p.ncpus < 2)
			return -1;
		let c = 0;
		while (c < p.ncpus - 2 && x > g.X(c + 1))
			c++;
		const t = clamp((x - g.X(c)) / (g.X(c + 1) - g.X(c)), 0, 1);
		let best = -1, bd = 6;
		for (let bin = p.sel.b0; bin < p.sel.b1; bin++) {
			const ly = g.Y(this.grid[c * p.nbins + bin]) * (1 - t) + g.Y(this.grid[(c + 1) * p.nbins + bin]) * t;
			if (Math.abs(ly - y) < bd)
				[best, bd] = [bin, Math.abs(ly - y)];
		}
		return best;
	}
	hover(bin) {
		if (bin === this.hoverBin)
			return;
		this.hoverBin = bin;
		this.drawHeat();
		this.drawPc();
	}
}

/* The threads by bin, each cell in the colour of the CPU most of its samples ran on; a tick at a move. */
function threadBins(p) {
	const rows = new Map();
	p.each((i) => {
		let r = rows.get(p.tid[i]);
		if (!r)
			rows.set(p.tid[i], (r = { tid: p.tid[i], n: 0, bins: new Map() }));
		r.n += p.count[i];
		let b = r.bins.get(p.bin[i]);
		if (!b)
			r.bins.set(p.bin[i], (b = new Float64Array(p.ncpus + 1)));
		b[Math.min(Math.max(p.cpu[i], 0), p.ncpus)] += p.count[i];
		b[p.ncpus] += p.count[i];
	}, { anyThread: true, matching: true });
	return [...rows.values()].sort((a, b) => b.n - a.n);
}

class ThreadsView {
	constructor(p, ui) {
		this.p = p;
		this.canvas = el('canvas', 'tl-chart');
		this.canvas.addEventListener('mousemove', (e) => {
			const h = this.hit(e);
			if (!h)
				return ui.hideTip();
			const lines = [(p.names.get(h.row.tid) || '?') + ' (' + h.row.tid + ')'];
			if (h.bin >= 0) {
				const v = h.row.bins.get(h.bin);
				lines.push(fmtNs(p.binNs(h.bin)) + ' – ' + fmtNs(p.binNs(h.bin + 1)) + ': ' + (v ? v[p.ncpus] : 0) + ' samples');
				if (v)
					lines.push(Array.from({ length: p.ncpus }, (_, c) => (v[c] ? 'cpu' + c + ' ' + v[c] : '')).filter(Boolean).join(', '));
			}
			lines.push(h.row.moves + ' moves between CPUs · click: select this thread');
			ui.tip(lines, e.clientX, e.clientY);
		});
		this.canvas.addEventListener('mouseleave', () => ui.hideTip());
		this.canvas.addEventListener('click', (e) => {
			const h = this.hit(e);
			if (h)
				ui.selectThread(p.sel.tid === h.row.tid ? null : h.row.tid);
		});
	}
	hit(e) {
		const b = this.canvas.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
		const row = this.rows[Math.floor(y / HEAT_ROW)];
		if (!row)
			return null;
		const bin = x >= 160 ? Math.floor((x - 160) / this.cw) : -1;
		return { row, bin: bin < this.p.nbins ? bin : -1 };
	}
	draw() {
		const p = this.p, rows = threadBins(p).slice(0, 40), w = p.width, h = Math.max(1, rows.length) * HEAT_ROW + 2;
		const ctx = sizeCanvas(this.canvas, w, h);
		ctx.textBaseline = 'middle';
		this.rows = rows;
		this.cw = (w - 160) / p.nbins;
		this.moves = 0;
		rows.forEach((r, i) => {
			const y = i * HEAT_ROW;
			if (p.sel.tid === r.tid) {
				ctx.fillStyle = '#fff3b0';
				ctx.fillRect(0, y, w, HEAT_ROW);
			}
			let max = 1, last = -1;
			for (const v of r.bins.values())
				max = Math.max(max, v[p.ncpus]);
			r.moves = 0;
			for (let b = 0; b < p.nbins; b++) {
				const v = r.bins.get(b);
				if (!v)
					continue;
				let cpu = 0;
				for (let k = 1; k < p.ncpus; k++)
					if (v[k] > v[cpu])
						cpu = k;
				ctx.globalAlpha = 0.35 + (0.65 * v[p.ncpus]) / max;
				ctx.fillStyle = cpuColour(cpu);
				ctx.fillRect(160 + b * this.cw, y + 1, Math.max(this.cw - 0.5, 0.5), HEAT_ROW - 2);
				ctx.globalAlpha = 1;
				if (last >= 0 && cpu !== last) {
					r.moves++;
					ctx.fillStyle = '#000';
					ctx.fillRect(160 + b * this.cw - 1, y, 2, HEAT_ROW);
				}
				last = cpu;
			}
			this.moves += r.moves;
			ctx.fillStyle = '#222';
			ctx.fillText((p.names.get(r.tid) || '?') + ' (' + r.tid + ') ' + r.n, 4, y + HEAT_ROW / 2, 150);
		});
	}
}

/*
 * A ratio of two sampled events over time (IPC, page faults per ms of
 * CPU...: the block's ratio_defs whose two events were recorded): a line
 * per CPU and a thick one for all, per bin; the selected bins shaded.
 */
class RatioChart {
	constructor(p, def, ui) {
		const j = p.j, names = j.events.map((e) => e.name);
		this.p = p;
		this.def = def;
		this.num = j.event_bins[names.indexOf(def.num)];
		this.den = j.event_bins[names.indexOf(def.den)];
		this.canvas = el('canvas', 'tl-chart');
		this.canvas.addEventListener('mousemove', (e) => {
			const b = this.canvas.getBoundingClientRect(), bin = Math.floor((e.clientX - b.left - HEAT_LABEL) / this.cw);
			if (bin < 0 || bin >= p.nbins)
				return ui.hideTip();
			const v = (c) => this.value(bin, bin + 1, c);
			ui.tip([def.name + ', ' + fmtNs(p.binNs(bin)) + ' – ' + fmtNs(p.binNs(bin + 1)),
				'all CPUs: ' + fmtRatio(v(-1)),
				Array.from({ length: p.ncpus }, (_, c) => 'cpu' + c + ': ' + fmtRatio(v(c))).join(', ')], e.clientX, e.clientY);
		});
		this.canvas.addEventListener('mouseleave', () => ui.hideTip());
	}
	/* The ratio over bins [b0, b1) on CPU c (-1: all); null where the denominator is 0. */
	value(b0, b1, c) {
		const p = this.p;
		let n = 0, d = 0;
		for (let b = b0; b < b1; b++)
			for (let k = c < 0 ? 0 : c; k < (c < 0 ? p.ncpus : c + 1); k++) {
				n += this.num[b * p.ncpus + k];
				d += this.den[b * p.ncpus + k];
			}
		return d ? (this.def.scale * n) / d : null;
	}
	draw() {
		const p = this.p, w = p.width, h = 130, ctx = sizeCanvas(this.canvas, w, h);
		this.cw = (w - HEAT_LABEL) / p.nbins;
		let max = 0;
		for (let b = 0; b < p.nbins; b++)
			for (let c = -1; c < p.ncpus; c++)
				max = Math.max(max, this.value(b, b + 1, c) || 0);
		max = max || 1;
		const Y = (v) => 8 + (h - 28) * (1 - v / max);
		ctx.fillStyle = '#f3f3f3';
		ctx.fillRect(HEAT_LABEL + p.sel.b0 * this.cw, 0, (p.sel.b1 - p.sel.b0) * this.cw, h - 20);
		this.lines = 0;
		for (let c = p.ncpus - 1; c >= -1; c--) {
			ctx.strokeStyle = c < 0 ? '#222' : cpuColour(c);
			ctx.lineWidth = c < 0 ? 2 : 1;
			ctx.beginPath();
			let open = false;
			for (let b = 0; b < p.nbins; b++) {
				const v = this.value(b, b + 1, c), x = HEAT_LABEL + (b + 0.5) * this.cw;
				if (v === null) {
					open = false;
					continue;
				}
				open ? ctx.lineTo(x, Y(v)) : ctx.moveTo(x, Y(v));
				open = true;
			}
			ctx.stroke();
			this.lines++;
		}
		ctx.lineWidth = 1;
		ctx.fillStyle = '#444';
		ctx.fillText(fmtRatio(max), 4, Y(max) + 4);
		ctx.fillText('0', 4, Y(0));
		/* the selection's value, in all and per CPU */
		this.selected = this.value(p.sel.b0, p.sel.b1, -1);
		ctx.fillText(this.def.name + ' in the selected bins: ' + fmtRatio(this.selected) + ' (' +
			Array.from({ length: p.ncpus }, (_, c) => 'cpu' + c + ' ' + fmtRatio(this.value(p.sel.b0, p.sel.b1, c))).join(', ') + ')',
			HEAT_LABEL, h - 6);
	}
}

function fmtRatio(v) {
	return v === null ? '–' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3);
}

/* The top functions of the selection, self and total; a click on one searches it. */
function topTable(p, ui) {
	const self = new Map(), total = new Map();
	let all = 0;
	p.each((i) => {
		const s = p.stacks[p.stack[i]], c = p.count[i];
		all += c;
		self.set(s[s.length - 1], (self.get(s[s.length - 1]) || 0) + c);
		for (const f of new Set(s))
			total.set(f, (total.get(f) || 0) + c);
	});
	const t = el('table', 'tl-table');
	t.append(el('tr', null, null, el('th', null, 'function'), el('th', null, 'self'), el('th', null, 'total'), el('th', null, 'module')));
	for (const [f, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
		const name = el('td', 'tl-fn', p.funcs[f].name);
		name.addEventListener('click', () => ui.search(p.funcs[f].name));
		t.append(el('tr', null, null, name, el('td', null, fmtPct(n / all)), el('td', null, fmtPct(total.get(f) / all)),
			el('td', null, p.funcs[f].module)));
	}
	return t;
}

/* The sampling views of one trace; width: of the charts (900 px; narrower side by side). */
function profileView(j, tui, width) {
	const p = new Profile(j, width), box = el('section', 'tl-profile');
	/* files no names came from (profile_files.c): their frames are file+offset, said so */
	const unnamed = [['rebuilt', 'rebuilt since the recording'], ['unreadable', 'that could not be read']]
		.filter(([k]) => (j[k + '_files'] || []).length)
		.map(([k, what]) => '; ' + j[k] + ' with frames in files ' + what + ', named by offset: ' + j[k + '_files'].join(', '));
	const summary = el('div', 'tl-meta', j.event + ': ' + j.samples + ' samples (' + fmtNs(j.period) + ' of periods), ' +
		j.kernel + ' in the kernel, ' + j.unresolved + ' in no mapping' + (j.mappings ? '' : ' (the trace has no code mappings: record it again to name user code)') +
		unnamed.join(''));
	const selText = el('span', 'tl-view');
	const menu = el('select');
	menu.append(el('option', null, 'all threads'));
	for (const t of p.threads) {
		const o = el('option', null, t.name + ' (' + t.tid + '): ' + t.samples);
		o.value = String(t.tid);
		menu.append(o);
	}
	const find = el('input');
	find.type = 'search';
	find.placeholder = 'search a function';
	const ui = {
		tip: (lines, x, y) => tui.tip(lines, x, y),
		hideTip: () => tui.hideTip(),
		selectThread(tid) {
			p.sel.tid = tid;
			menu.value = tid === null ? 'all threads' : String(tid);
			redraw();
			if (tid !== null)
				tui.selectThread(tid);
		},
		selectBins(b0, b1) {
			p.sel.b0 = clamp(b0, 0, p.nbins);
			p.sel.b1 = clamp(b1, p.sel.b0 + 1, p.nbins);
			redraw();
		},
		search(text) {
			p.sel.match = text;
			find.value = text;
			redraw();
		},
	};
	const cpus = new CpuViews(p, ui), threads = new ThreadsView(p, ui), flame = new FlameGraph(p, ui);
	const have = new Set((j.events || []).map((e) => e.name));
	const ratios = (j.ratio_defs || []).filter((d) => j.event_bins && have.has(d.num) && have.has(d.den)).map((d) => new RatioChart(p, d, ui));
	const tableBox = el('div');
	const redraw = () => {
		const s = p.sel;
		selText.textContent = (s.tid === null ? 'all threads' : (p.names.get(s.tid) || '?') + ' (' + s.tid + ')') + ', ' +
			fmtNs(p.binNs(s.b0)) + ' – ' + fmtNs(p.binNs(s.b1)) + (s.match ? ', stacks with "' + s.match + '"' : '');
		cpus.draw();
		threads.draw();
		flame.draw();
		ratios.forEach((r) => r.draw());
		tableBox.replaceChildren(topTable(p, ui));
	};
	menu.addEventListener('change', () => ui.selectThread(menu.value === 'all threads' ? null : Number(menu.value)));
	find.addEventListener('input', () => ui.search(find.value));
	const button = (text, fn) => {
		const b = el('button', null, text);
		b.addEventListener('click', fn);
		return b;
	};
	const toTimeline = button('show on the timeline', () => tui.zoomTo(p.binNs(p.sel.b0), p.binNs(p.sel.b1)));
	const legend = el('div', 'tl-legend');
	for (let c = 0; c < p.ncpus; c++) {
		const sw = el('span', 'tl-swatch');
		sw.style.background = cpuColour(c);
		legend.append(el('span', 'tl-key', null, sw, el('span', null, 'cpu' + c)));
	}
	box.append(el('h2', null, 'Samples'), summary,
		el('div', 'tl-tools', null, menu, find, button('all bins', () => ui.selectBins(0, p.nbins)),
			button('clear', () => {
				p.sel.tid = null;
				menu.value = 'all threads';
				ui.search('');
				ui.selectBins(0, p.nbins);
			}), toTimeline, selText),
		el('h3', null, 'Samples per CPU, every ' + fmtNs(j.bins.bin_ns) + ' (drag to select a time range)'), cpus.heat,
		el('h3', null, 'The same bins, one axis per CPU (one line per bin)'), cpus.pc,
		el('h3', null, 'Threads: the CPU each ran on, every ' + fmtNs(j.bins.bin_ns) + ' (a black tick: it moved)'), legend, threads.canvas,
		...ratios.flatMap((r) => [el('h3', null, r.def.name + ' over time, per CPU (thick: all CPUs)'), r.canvas]),
		el('h3', null, 'Flame graph (click a frame to zoom, the bottom bar to zoom out)'), flame.info, flame.canvas,
		el('h3', null, 'Top functions of the selection'), tableBox);
	return { box, p, cpus, threads, flame, ratios, redraw, ui };
}
