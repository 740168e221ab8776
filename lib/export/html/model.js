/*
 * model.js - the report's data: the JSON blocks the page carries
 * (tl-report, tl-diagnose, tl-timeline; tl-frames and tl-critical when the
 * program marked frames), and the timeline rows decoded on
 * demand (a row's summary when it is first drawn wide, a block's exact
 * records when a narrow view first shows it).
 */

class Row {
	constructor(kind, j, model) {
		this.kind = kind; /* 'thread' or 'cpu' */
		this.j = j;
		this.m = model;
		this.cache = new Map();
	}
	/*
	 * Per block: [[key, share 0..1], ...]; key: a state, or [what, tid] for a CPU.
	 * The row's data starts at block b0 and may stop before the last: the rest is empty.
	 */
	lod() {
		if (this._lod)
			return this._lod;
		const r = new Reader(b64bytes(this.j.lod)), out = [], b0 = this.j.b0 || 0;
		for (let b = 0; b < this.m.blocks; b++) {
			const n = b < b0 ? 0 : r.byte() || 0, e = [];
			for (let i = 0; i < n; i++) {
				if (this.kind === 'thread') {
					const st = r.byte();
					e.push([st, r.byte() / 255]);
				} else {
					const what = r.byte(), tid = r.varint();
					e.push([[what, tid], r.byte() / 255]);
				}
			}
			out.push(e);
		}
		return (this._lod = out);
	}
	/* Block b's records: {s, e (ns from the trace start), k (state or what), cont, more, a, b}. */
	block(b) {
		if (this.cache.has(b))
			return this.cache.get(b);
		if (!this.off) {
			/* the blocks' byte offsets in iv, from their lengths */
			const r = new Reader(b64bytes(this.j.lens));
			this.off = [0];
			for (let i = 0, b0 = this.j.b0 || 0; i < this.m.blocks; i++)
				this.off.push(this.off[i] + (i >= b0 && r.p < r.b.length ? r.varint() : 0));
			this.text = document.getElementById(this.j.iv).textContent;
		}
		const recs = [];
		if (b >= 0 && b < this.m.blocks && this.off[b + 1] > this.off[b]) {
			/* decode only this block's part of the base64: whole groups of 4 characters (3 bytes) */
			const p0 = this.off[b], p1 = this.off[b + 1], g0 = Math.floor(p0 / 3), g1 = Math.ceil(p1 / 3);
			const bytes = b64bytes(this.text.slice(g0 * 4, g1 * 4)), r = new Reader(bytes, p0 - g0 * 3), end = p1 - g0 * 3;
			let pos = this.m.from + b * this.m.blockNs;
			while (r.p < end) {
				const s = pos + r.varint(), d = r.varint(), k = r.byte();
				const a = r.varint(), bb = this.kind === 'thread' ? r.zigzag() : r.varint();
				pos = s + d;
				recs.push({ s, e: pos, k: k & 0x3f, cont: !!(k & 0x80), more: !!(k & 0x40),
					a: this.kind === 'thread' ? a - 1 : a, b: this.kind === 'thread' ? bb : bb - 1 });
			}
		}
		this.cache.set(b, recs);
		return recs;
	}
	/* The whole interval around the record at block b, index i (joining its pieces). */
	whole(b, i) {
		let recs = this.block(b), r = recs[i], s = r.s, e = r.e;
		for (let bb = b, ii = i; recs[ii].cont && bb > 0;) {
			recs = this.block(--bb);
			ii = recs.length - 1;
			s = recs[ii].s;
		}
		recs = this.block(b);
		for (let bb = b, ii = i; recs[ii].more && bb + 1 < this.m.blocks;) {
			recs = this.block(++bb);
			ii = 0;
			e = recs[0].e;
		}
		return Object.assign({}, r, { s, e });
	}
}

class Model {
	constructor(report, diag, tl, frames, critical) {
		this.report = report;
		this.diag = diag;
		this.tl = tl;
		this.frames_json = frames; /* `frames --json`, or null */
		this.critical = critical;  /* `critical --json` of the longest frames, or null */
		this.states = tl.states;
		this.from = tl.from_ns;
		this.to = tl.to_ns;
		this.blocks = tl.blocks;
		this.blockNs = tl.block_ns;
		this.traceStart = tl.trace.start_ns;
		this.names = new Map();
		for (const [tid, pid, name] of tl.others)
			this.names.set(tid, { name, pid });
		this.threads = tl.threads.map((t) => {
			this.names.set(t.tid, { name: t.name, pid: t.pid });
			return new Row('thread', t, this);
		});
		this.byTid = new Map(this.threads.map((r) => [r.j.tid, r]));
		this.cpus = tl.cpus.map((c) => new Row('cpu', c, this));
		/* the markers: per thread (regions, tasks, functions) and per process (frames) */
		const sp = tl.spans;
		this.spanNames = sp.names;
		this.spansDropped = sp.dropped;
		this.marks = new Map();
		this.frames = new Map();
		for (const [kind, name, tid, begin, end, depth, frame] of sp.list) {
			const rec = { kind, name: sp.names[name] || '', tid, s: begin, e: end, depth, frame };
			if (kind === 0) {
				const pid = (this.names.get(tid) || { pid: tid }).pid || tid;
				if (!this.frames.has(pid))
					this.frames.set(pid, []);
				this.frames.get(pid).push(rec);
			} else {
				if (!this.marks.has(tid))
					this.marks.set(tid, []);
				this.marks.get(tid).push(rec);
			}
		}
		for (const list of this.marks.values())
			list.sort((x, y) => x.s - y.s || x.depth - y.depth);
		for (const list of this.frames.values()) {
			list.sort((x, y) => x.s - y.s);
			const lanes = [];
			for (const f of list) {
				let l = lanes.findIndex((end) => end <= f.s);
				if (l < 0)
					l = lanes.push(0) - 1;
				lanes[l] = f.e;
				f.lane = l;
			}
			list.lanes = lanes.length;
		}
		/* processes, in the order of their threads */
		this.processes = [];
		const seen = new Map();
		for (const r of this.threads) {
			let p = seen.get(r.j.pid);
			if (!p) {
				p = { pid: r.j.pid, name: r.j.process, threads: [], frames: this.frames.get(r.j.pid) || [] };
				seen.set(r.j.pid, p);
				this.processes.push(p);
			}
			p.threads.push(r);
		}
		this.findings = diag ? diag.findings : [];
	}
	nameOf(tid) {
		if (tid === 0)
			return 'idle';
		const n = this.names.get(tid);
		return (n && n.name ? n.name : '?') + ' (' + tid + ')';
	}
	/* An absolute instant of a JSON document -> ns from the trace start. */
	rel(abs) {
		return abs - this.traceStart;
	}
}
