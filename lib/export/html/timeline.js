/*
 * timeline.js - the timeline: one canvas with a time axis, a row per
 * thread grouped by process (states, with the markers above and the
 * process's frames on top; a process of one thread without frames is one
 * row, its label in the process headers' look: a build's thousand
 * compilers are a thousand rows, not two), then a row per CPU (who ran, interrupts) and
 * the CPU utilization.  Rows scroll vertically inside their box; time
 * zooms and pans: Ctrl+wheel or W/S zoom, Shift+wheel, drag or A/D pan,
 * double-click shows everything.
 *
 * Drawing is bounded by the pixels, not the events: a view whose blocks
 * hold more than EXACT_RECORDS records (on the trace's average) draws each
 * row from its per-block summary; a narrower one draws the exact records
 * of the blocks it covers.  Either
 * way, what is narrower than a pixel is summed into that pixel's column
 * and drawn as a stack of its states' shares.
 */

const LABEL_W = 210, AXIS_H = 28, ROW_H = 16, MARK_H = 10, HEAD_H = 20, FRAME_H = 12, UTIL_H = 56;
const EXACT_RECORDS = 250000, MAX_FRAME_LANES = 4, MAX_ARROWS = 400;

/*
 * Sums what is narrower than a pixel into that pixel's column; draws the
 * rest as rectangles over every pixel they touch, each run of one colour
 * as one (a state split at block boundaries, or drawn from the blocks'
 * summaries, comes in pieces: drawn apart at fractional edges, each seam
 * showed as a lighter line through a bar that should be solid).  The
 * columns are drawn last, over the rectangles: a stack of their states'
 * shares from the bottom, the neighbour's colour above.
 */
class Painter {
	constructor(ctx, x, w, v0, v1, y, h, colour) {
		Object.assign(this, { ctx, x, w, v0, y, h, colour });
		this.k = w / (v1 - v0);
		this.nsPerPx = (v1 - v0) / w;
		this.col = -1;
		this.acc = new Map();
		this.run = null; /* the rectangle being extended: { c, xa, xb } */
		this.cols = [];  /* finished columns: [col, Map colour -> ns], drawn by flush() */
	}
	seg(s, e, key) {
		let xa = this.x + (s - this.v0) * this.k, xb = this.x + (e - this.v0) * this.k;
		if (xb <= this.x || xa >= this.x + this.w)
			return;
		xa = Math.max(xa, this.x);
		xb = Math.min(xb, this.x + this.w);
		const c = this.colour(key);
		if (!c)
			return;
		if (xb - xa >= 1) {
			this.flushColumn();
			if (this.run && this.run.c === c && Math.abs(xa - this.run.xb) < 1e-6) {
				this.run.xb = xb;
				return;
			}
			this.flushRun();
			this.run = { c, xa, xb };
			return;
		}
		this.flushRun();
		const col = Math.floor(xa);
		if (col !== this.col) {
			this.flushColumn();
			this.col = col;
		}
		this.acc.set(c, (this.acc.get(c) || 0) + (e - s));
	}
	/* Draws what is pending: the row is done. */
	flush() {
		this.flushColumn();
		this.flushRun();
		for (const [col, acc] of this.cols) {
			let y = this.y + this.h;
			for (const [c, ns] of acc) {
				const h = Math.min(this.h, (this.h * ns) / this.nsPerPx);
				this.ctx.fillStyle = c;
				this.ctx.fillRect(col, y - h, 1, h);
				y -= h;
			}
		}
		this.cols = [];
	}
	flushRun() {
		if (!this.run)
			return;
		const a = Math.floor(this.run.xa), b = Math.ceil(this.run.xb);
		this.ctx.fillStyle = this.run.c;
		this.ctx.fillRect(a, this.y, b - a, this.h);
		this.run = null;
	}
	flushColumn() {
		if (this.col < 0)
			return;
		this.cols.push([this.col, this.acc]);
		this.acc = new Map();
		this.col = -1;
	}
}

class Timeline {
	constructor(model, ui) {
		this.m = model;
		this.ui = ui;
		this.v0 = model.from;
		this.v1 = Math.max(model.to, model.from + 1);
		this.sel = { tid: null, iv: null, range: null };
		this.box = el('div', 'tl-scroll');
		this.spacer = el('div', 'tl-spacer');
		this.canvas = el('canvas', 'tl-canvas');
		this.canvas.tabIndex = 0;
		this.box.append(this.canvas, this.spacer);
		this.layout();
		this.listen();
	}

	/* The rows, top to bottom: {type, y, h, row (a Row), proc, cpu}. */
	layout() {
		const rows = [];
		let y = 0;
		const add = (r) => {
			r.y = y;
			y += r.h;
			rows.push(r);
		};
		for (const p of this.m.processes) {
			/* a process of one thread, its leader, without frames: one row, labelled as the process */
			if (p.threads.length === 1 && !p.frames.length && p.threads[0].j.tid === p.pid) {
				const r = p.threads[0], marks = this.m.marks.get(r.j.tid);
				add({ type: 'thread', h: ROW_H + (marks ? MARK_H : 0), row: r, marks, solo: true });
				continue;
			}
			add({ type: 'proc', h: HEAD_H, proc: p });
			if (p.frames.length)
				add({ type: 'frames', h: FRAME_H * Math.min(p.frames.lanes, MAX_FRAME_LANES) + 2, proc: p });
			for (const r of p.threads) {
				const marks = this.m.marks.get(r.j.tid);
				add({ type: 'thread', h: ROW_H + (marks ? MARK_H : 0), row: r, marks });
			}
		}
		add({ type: 'head', h: HEAD_H, text: 'CPUs' });
		for (const c of this.m.cpus)
			add({ type: 'cpu', h: ROW_H, row: c });
		add({ type: 'util', h: UTIL_H });
		this.rows = rows;
		this.height = y;
	}

	threadRows() {
		return this.rows.filter((r) => r.type === 'thread').length;
	}

	/* Exact records when the view holds at most EXACT_RECORDS of them (on average), else the summaries. */
	exact() {
		if (this.perBlock === undefined) {
			const rows = this.m.threads.concat(this.m.cpus);
			this.perBlock = rows.reduce((a, r) => a + r.j.records, 0) / this.m.blocks;
		}
		return ((this.v1 - this.v0) / this.m.blockNs + 1) * this.perBlock <= EXACT_RECORDS;
	}

	/* Blocks overlapping the view. */
	blockRange() {
		const b0 = Math.max(0, Math.floor((this.v0 - this.m.from) / this.m.blockNs));
		const b1 = Math.min(this.m.blocks - 1, Math.floor((this.v1 - this.m.from) / this.m.blockNs));
		return [b0, b1];
	}

	resize() {
		const w = this.box.clientWidth, h = Math.min(this.box.clientHeight, AXIS_H + this.height);
		const dpr = window.devicePixelRatio || 1;
		this.cw = w;
		this.ch = Math.max(h, AXIS_H + 20);
		this.canvas.width = Math.round(w * dpr);
		this.canvas.height = Math.round(this.ch * dpr);
		this.canvas.style.width = w + 'px';
		this.canvas.style.height = this.ch + 'px';
		this.dpr = dpr;
		this.spacer.style.height = Math.max(0, AXIS_H + this.height - this.ch) + 'px';
		this.draw();
	}

	x(t) {
		return LABEL_W + ((t - this.v0) * (this.cw - LABEL_W)) / (this.v1 - this.v0);
	}
	t(x) {
		return this.v0 + ((x - LABEL_W) * (this.v1 - this.v0)) / (this.cw - LABEL_W);
	}

	draw() {
		if (!this.cw)
			return;
		const ctx = this.canvas.getContext('2d');
		ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
		ctx.clearRect(0, 0, this.cw, this.ch);
		ctx.font = '11px sans-serif';
		ctx.textBaseline = 'middle';
		const top = this.box.scrollTop, exact = this.exact();
		this.drawn = 0;
		for (const r of this.rows) {
			const y = AXIS_H + r.y - top;
			if (y + r.h < AXIS_H || y > this.ch)
				continue;
			ctx.save();
			ctx.beginPath();
			ctx.rect(0, AXIS_H, this.cw, this.ch - AXIS_H);
			ctx.clip();
			this.drawRow(ctx, r, y, exact);
			ctx.restore();
		}
		this.drawCritical(ctx, top);
		this.drawArrows(ctx, top);
		this.drawAxis(ctx);
		this.ui.onView && this.ui.onView(this);
	}

	drawRow(ctx, r, y, exact) {
		const W = this.cw - LABEL_W, selected = r.row && r.row.kind === 'thread' && r.row.j.tid === this.sel.tid;
		if (selected) {
			ctx.fillStyle = '#fff3b0';
			ctx.fillRect(0, y, this.cw, r.h);
		}
		ctx.fillStyle = '#222';
		if (r.type === 'proc' || r.type === 'head') {
			ctx.fillStyle = '#eef0f3';
			ctx.fillRect(0, y, this.cw, r.h);
			ctx.fillStyle = '#222';
			ctx.font = 'bold 12px sans-serif';
			ctx.fillText(r.type === 'proc' ? r.proc.name + ' (' + r.proc.pid + ')' : r.text, 6, y + r.h / 2, LABEL_W + W - 12);
			ctx.font = '11px sans-serif';
			return;
		}
		if (r.type === 'frames') {
			ctx.fillText('frames', 16, y + r.h / 2, LABEL_W - 20);
			this.drawFrames(ctx, r, y);
			return;
		}
		if (r.type === 'util') {
			ctx.fillText('CPU utilization', 16, y + r.h / 2, LABEL_W - 20);
			this.drawUtil(ctx, y + 4, r.h - 8);
			return;
		}
		const label = r.type === 'cpu' ? 'CPU ' + r.row.j.cpu : r.row.j.name + ' (' + r.row.j.tid + ')';
		const barY = y + (r.marks ? MARK_H : 0);
		if (r.solo) {
			/* a process's only row: its label in the process headers' look */
			ctx.fillStyle = selected ? '#fff3b0' : '#eef0f3';
			ctx.fillRect(0, y, LABEL_W, r.h);
			ctx.fillStyle = '#222';
			ctx.font = 'bold 12px sans-serif';
			ctx.fillText(label, 6, barY + ROW_H / 2, LABEL_W - 10);
			ctx.font = '11px sans-serif';
		} else {
			ctx.fillText(label, 16, barY + ROW_H / 2, LABEL_W - 20);
		}
		if (r.marks)
			this.drawMarks(ctx, r.marks, y, MARK_H - 1);
		const dim = r.type === 'cpu' && this.sel.tid !== null;
		const colour = r.type === 'cpu' ? (key) => this.cpuColour(key, dim) : (key) => STATE_COLOURS[this.m.states[key]];
		const p = new Painter(ctx, LABEL_W, W, this.v0, this.v1, barY + 1, ROW_H - 2, colour);
		const [b0, b1] = this.blockRange();
		for (let b = b0; b <= b1; b++) {
			if (exact) {
				for (const rec of r.row.block(b)) {
					p.seg(rec.s, rec.e, r.type === 'cpu' ? [rec.k, rec.a] : rec.k);
					this.drawn++;
				}
			} else {
				let s = this.m.from + b * this.m.blockNs;
				for (const [key, share] of r.row.lod()[b]) {
					const e = s + share * this.m.blockNs;
					p.seg(s, e, key);
					s = e;
				}
			}
		}
		p.flush();
		if (exact && this.sel.iv && this.sel.iv.row === r.row) {
			const iv = this.sel.iv;
			ctx.strokeStyle = '#000';
			ctx.lineWidth = 2;
			ctx.strokeRect(this.x(iv.s), barY + 1, Math.max(2, this.x(iv.e) - this.x(iv.s)), ROW_H - 2);
		}
	}

	cpuColour(key, dim) {
		const [what, tid] = key;
		if (what === 0)
			return null;
		let c = what === 1 ? threadColour(tid) : what === 255 ? '#999999' : CPU_COLOURS[what];
		if (dim && !(what === 1 && tid === this.sel.tid))
			return what === 1 ? '#d8d8d8' : c;
		return c;
	}

	drawMarks(ctx, marks, y, h) {
		const W = this.cw - LABEL_W;
		let lastCol = -1;
		for (const s of marks) {
			if (s.e < this.v0 || s.s > this.v1)
				continue;
			const xa = Math.max(LABEL_W, this.x(s.s)), xb = Math.min(LABEL_W + W, this.x(s.e));
			if (xb - xa < 1 && Math.floor(xa) === lastCol)
				continue;
			lastCol = Math.floor(xa);
			const d = Math.min(s.depth, 2), yy = y + d * 3, hh = h - d * 3;
			ctx.fillStyle = threadColour(s.name.length * 7919 + s.name.charCodeAt(0) * 31 + (s.kind << 4));
			ctx.fillRect(xa, yy, Math.max(1, xb - xa), hh);
			if (xb - xa > 40 && d === 0) {
				ctx.fillStyle = '#fff';
				ctx.fillText(s.name, xa + 2, yy + hh / 2, xb - xa - 4);
			}
		}
	}

	drawFrames(ctx, r, y) {
		for (const f of r.proc.frames) {
			if (f.e < this.v0 || f.s > this.v1)
				continue;
			const lane = Math.min(f.lane, MAX_FRAME_LANES - 1), yy = y + 1 + lane * FRAME_H;
			const xa = Math.max(LABEL_W, this.x(f.s)), xb = Math.min(this.cw, this.x(f.e));
			ctx.fillStyle = f.frame % 2 ? '#7b8fc7' : '#a9b8e0';
			ctx.fillRect(xa, yy, Math.max(1, xb - xa), FRAME_H - 2);
			if (xb - xa > 50) {
				ctx.fillStyle = '#fff';
				ctx.fillText('frame ' + f.frame, xa + 2, yy + FRAME_H / 2, xb - xa - 4);
			}
		}
	}

	/* Busy share per block (all CPUs, and each), from the summaries. */
	drawUtil(ctx, y, h) {
		const [b0, b1] = this.blockRange(), n = this.m.cpus.length;
		const busy = (row, b) => row.lod()[b].reduce((a, [[what], share]) => a + (what === 0 || what === 4 ? 0 : share), 0);
		ctx.fillStyle = '#f6f6f6';
		ctx.fillRect(LABEL_W, y, this.cw - LABEL_W, h);
		const pts = [];
		for (let b = b0; b <= b1; b++) {
			const s = this.m.from + b * this.m.blockNs;
			const each = this.m.cpus.map((c) => busy(c, b));
			pts.push([this.x(s), this.x(s + this.m.blockNs), each, each.reduce((a, v) => a + v, 0) / n]);
		}
		ctx.fillStyle = '#9fd8c4';
		for (const [xa, xb, , tot] of pts)
			ctx.fillRect(xa, y + h * (1 - Math.min(1, tot)), Math.max(1, xb - xa), h * Math.min(1, tot));
		for (let c = 0; c < n; c++) {
			ctx.strokeStyle = threadColour(c + 1);
			ctx.lineWidth = 1;
			ctx.beginPath();
			pts.forEach(([xa, xb, each], i) => {
				const yy = y + h * (1 - Math.min(1, each[c]));
				i ? ctx.lineTo(xa, yy) : ctx.moveTo(xa, yy);
				ctx.lineTo(xb, yy);
			});
			ctx.stroke();
		}
	}

	drawAxis(ctx) {
		const W = this.cw - LABEL_W, span = this.v1 - this.v0;
		ctx.fillStyle = '#fff';
		ctx.fillRect(0, 0, this.cw, AXIS_H);
		ctx.strokeStyle = '#ccc';
		ctx.beginPath();
		ctx.moveTo(0, AXIS_H - 0.5);
		ctx.lineTo(this.cw, AXIS_H - 0.5);
		ctx.stroke();
		let step = Math.pow(10, Math.floor(Math.log10(span / 8)));
		if (span / step > 16)
			step *= 5;
		else if (span / step > 8)
			step *= 2;
		ctx.fillStyle = '#333';
		ctx.strokeStyle = '#999';
		for (let t = Math.ceil(this.v0 / step) * step; t <= this.v1; t += step) {
			const x = this.x(t);
			ctx.beginPath();
			ctx.moveTo(x, AXIS_H - 8);
			ctx.lineTo(x, AXIS_H);
			ctx.stroke();
			ctx.fillText(fmtNs(t), x + 2, AXIS_H / 2);
		}
		ctx.fillStyle = '#555';
		ctx.fillText(this.exact() ? 'exact' : 'summary', 6, AXIS_H / 2, LABEL_W - 12);
		if (this.sel.range) {
			const [a, b] = this.sel.range;
			ctx.fillStyle = 'rgba(0,114,178,0.15)';
			ctx.fillRect(this.x(a), AXIS_H, this.x(b) - this.x(a), this.ch - AXIS_H);
		}
		void W;
	}

	rowOfThread(tid) {
		return this.rows.find((r) => r.type === 'thread' && r.row.j.tid === tid);
	}

	/* Wakeup arrows: the selected interval's waker, or every wakeup inside the selected range. */
	drawArrows(ctx, top) {
		if (!this.exact())
			return;
		const arrows = [];
		if (this.sel.iv && this.sel.iv.b > 0) {
			const iv = this.sel.iv, st = this.m.states[iv.k];
			arrows.push([iv.b, iv.row.j.tid, st === 'RUNNABLE' || st === 'NEW' ? iv.s : iv.e]);
		}
		if (this.sel.range) {
			const [a, b] = this.sel.range, [b0, b1] = [Math.floor((a - this.m.from) / this.m.blockNs), Math.floor((b - this.m.from) / this.m.blockNs)];
			for (const r of this.m.threads)
				for (let k = Math.max(0, b0); k <= Math.min(b1, this.m.blocks - 1) && arrows.length < MAX_ARROWS; k++)
					for (const rec of r.block(k))
						if (!rec.cont && rec.b > 0 && rec.s >= a && rec.s <= b && this.m.states[rec.k] === 'RUNNABLE')
							arrows.push([rec.b, r.j.tid, rec.s]);
		}
		this.arrows = arrows.length;
		ctx.strokeStyle = '#c00';
		ctx.fillStyle = '#c00';
		ctx.lineWidth = 1.5;
		for (const [from, to, t] of arrows) {
			const ra = this.rowOfThread(from), rb = this.rowOfThread(to);
			if (!ra || !rb)
				continue;
			const x = this.x(t), ya = AXIS_H + ra.y - top + ra.h - ROW_H / 2, yb = AXIS_H + rb.y - top + rb.h - ROW_H / 2;
			ctx.beginPath();
			ctx.moveTo(x, ya);
			ctx.lineTo(x, yb);
			ctx.stroke();
			const d = yb > ya ? -6 : 6;
			ctx.beginPath();
			ctx.moveTo(x, yb);
			ctx.lineTo(x - 4, yb + d);
			ctx.lineTo(x + 4, yb + d);
			ctx.fill();
		}
	}

	/* A selected frame's critical path: a red band over each stretch, a line where it changes thread. */
	drawCritical(ctx, top) {
		this.critDrawn = 0;
		if (!this.sel.crit)
			return;
		let prev = null;
		ctx.fillStyle = 'rgba(213,0,0,0.35)';
		ctx.strokeStyle = '#c00';
		ctx.lineWidth = 2;
		for (const seg of this.sel.crit) {
			const r = this.rowOfThread(seg.tid);
			if (!r)
				continue;
			const xa = Math.max(LABEL_W, this.x(seg.from_ns)), xb = Math.min(this.cw, this.x(seg.to_ns)), y = AXIS_H + r.y - top + r.h - ROW_H;
			if (xb >= LABEL_W && xa <= this.cw) {
				ctx.fillRect(xa, y, Math.max(1, xb - xa), ROW_H);
				this.critDrawn++;
			}
			if (prev && prev.tid !== seg.tid) {
				const pr = this.rowOfThread(prev.tid), x = this.x(prev.from_ns);
				if (pr) {
					ctx.beginPath();
					ctx.moveTo(x, AXIS_H + pr.y - top + pr.h - ROW_H / 2);
					ctx.lineTo(x, y + ROW_H / 2);
					ctx.stroke();
				}
			}
			prev = seg;
		}
	}

	/* What is under (x, y) of the canvas: {row, rec, block, index} or null. */
	hit(x, y) {
		const yy = y - AXIS_H + this.box.scrollTop;
		if (y < AXIS_H)
			return null;
		const r = this.rows.find((q) => yy >= q.y && yy < q.y + q.h);
		if (!r)
			return null;
		const out = { r, t: this.t(x), label: x < LABEL_W };
		if (out.label || !r.row)
			return out;
		if (r.marks && yy < r.y + MARK_H) {
			let best = null;
			for (const s of r.marks)
				if (s.s <= out.t && out.t <= s.e && (!best || s.depth > best.depth))
					best = s;
			out.mark = best;
			return out;
		}
		const b = Math.floor((out.t - this.m.from) / this.m.blockNs);
		if (b < 0 || b >= this.m.blocks)
			return out;
		if (this.exact()) {
			const recs = r.row.block(b), tol = (this.v1 - this.v0) / (this.cw - LABEL_W);
			let i = recs.findIndex((q) => q.s <= out.t && out.t < q.e);
			if (i < 0)
				i = recs.findIndex((q) => q.s - tol <= out.t && out.t < q.e + tol);
			if (i >= 0) {
				out.rec = r.row.whole(b, i);
				out.rec.row = r.row;
			}
		} else {
			out.lod = r.row.lod()[b];
			out.block = b;
		}
		return out;
	}

	zoomTo(a, b) {
		const min = 1000;
		if (b - a < min) {
			const c = (a + b) / 2;
			a = c - min / 2;
			b = c + min / 2;
		}
		this.v0 = Math.max(this.m.from, a);
		this.v1 = Math.min(Math.max(this.m.to, this.m.from + 1), b);
		if (this.v1 <= this.v0)
			this.v1 = this.v0 + min;
		this.draw();
	}
	zoom(factor, at) {
		const t = at === undefined ? (this.v0 + this.v1) / 2 : at;
		this.zoomTo(t - (t - this.v0) * factor, t + (this.v1 - t) * factor);
	}
	pan(frac) {
		const d = (this.v1 - this.v0) * frac;
		const lo = this.m.from - this.v0, hi = Math.max(this.m.to, this.m.from + 1) - this.v1;
		const dd = clamp(d, lo, hi);
		this.v0 += dd;
		this.v1 += dd;
		this.draw();
	}
	reset() {
		this.zoomTo(this.m.from, this.m.to);
	}
	selectThread(tid, scroll) {
		this.sel.tid = tid;
		const r = this.rowOfThread(tid);
		if (scroll && r && (r.y < this.box.scrollTop || r.y + r.h > this.box.scrollTop + this.ch - AXIS_H))
			this.box.scrollTop = Math.max(0, r.y - 40);
		this.draw();
	}

	listen() {
		const c = this.canvas;
		let drag = null;
		const pos = (e) => {
			const b = c.getBoundingClientRect();
			return [e.clientX - b.left, e.clientY - b.top];
		};
		this.box.addEventListener('scroll', () => this.draw());
		c.addEventListener('wheel', (e) => {
			const [x] = pos(e);
			if (e.ctrlKey || e.metaKey) {
				e.preventDefault();
				this.zoom(e.deltaY > 0 ? 1.25 : 0.8, x > LABEL_W ? this.t(x) : undefined);
			} else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
				e.preventDefault();
				this.pan((e.deltaX || e.deltaY) > 0 ? 0.1 : -0.1);
			}
		}, { passive: false });
		c.addEventListener('mousedown', (e) => {
			const [x, y] = pos(e);
			c.focus();
			if (y > AXIS_H)
				drag = { x, v0: this.v0, v1: this.v1, range: e.shiftKey, t: this.t(x), moved: false, label: x < LABEL_W };
		});
		window.addEventListener('mouseup', (e) => {
			if (!drag)
				return;
			const d = drag;
			drag = null;
			if (d.moved)
				return;
			const [x, y] = pos(e), h = this.hit(x, y);
			if (d.range)
				this.sel.range = null;
			this.click(h);
		});
		c.addEventListener('mousemove', (e) => {
			const [x, y] = pos(e);
			if (drag) {
				if (Math.abs(x - drag.x) > 3 && !drag.label)
					drag.moved = true;
				if (!drag.moved)
					return;
				if (drag.range) {
					const t = this.t(x);
					this.sel.range = [Math.min(drag.t, t), Math.max(drag.t, t)];
					this.draw();
				} else {
					const dt = ((drag.x - x) * (drag.v1 - drag.v0)) / (this.cw - LABEL_W);
					const lo = this.m.from - drag.v0, hi = Math.max(this.m.to, this.m.from + 1) - drag.v1;
					const dd = clamp(dt, lo, hi);
					this.v0 = drag.v0 + dd;
					this.v1 = drag.v1 + dd;
					this.draw();
				}
				this.ui.hideTip();
				return;
			}
			this.ui.hover(this.hit(x, y), e.clientX, e.clientY);
		});
		c.addEventListener('mouseleave', () => this.ui.hideTip());
		c.addEventListener('dblclick', () => this.reset());
		c.addEventListener('keydown', (e) => {
			const k = e.key.toLowerCase();
			if (k === 'w') this.zoom(0.8);
			else if (k === 's') this.zoom(1.25);
			else if (k === 'a') this.pan(-0.1);
			else if (k === 'd') this.pan(0.1);
			else return;
			e.preventDefault();
		});
	}

	click(h) {
		if (!h || !h.r) {
			this.sel.iv = null;
			this.draw();
			return;
		}
		if (h.rec && h.r.type === 'thread') {
			this.sel.iv = h.rec;
		} else {
			this.sel.iv = null;
		}
		if (h.r.type === 'thread')
			this.ui.selectThread(h.r.row.j.tid);
		else if (h.rec && h.r.type === 'cpu' && h.rec.k === 1 && this.m.byTid.has(h.rec.a))
			this.ui.selectThread(h.rec.a);
		else
			this.draw();
	}
}
