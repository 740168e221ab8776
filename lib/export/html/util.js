/*
 * util.js - small helpers of the threadlens HTML report: DOM building
 * (text only: no string from the trace is ever parsed as HTML), number
 * formatting, base64 and varint decoding, the state colours.
 *
 * The files of this folder are joined in order (util, model, timeline,
 * views, frames, profile, predict, app) inside one function by lib/export/html.c.
 */

/* An element with a class and text content; children appended in order. */
function el(tag, cls, text, ...children) {
	const e = document.createElement(tag);
	if (cls)
		e.className = cls;
	if (text !== undefined && text !== null)
		e.textContent = String(text);
	for (const c of children)
		if (c)
			e.appendChild(c);
	return e;
}

function jsonBlock(id) {
	const e = document.getElementById(id);
	return e ? JSON.parse(e.textContent) : null;
}

/* 1234567 -> "1.23 ms": three significant digits, the unit that fits. */
function fmtNs(ns) {
	const a = Math.abs(ns);
	const unit = a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
	const v = ns / unit[0];
	const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
	return v.toFixed(unit[1] === 'ns' ? 0 : digits) + ' ' + unit[1];
}

function fmtPct(x) {
	return (100 * x).toFixed(x < 0.1 ? 1 : 0) + '%';
}

function b64bytes(s) {
	const bin = atob(s);
	const out = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++)
		out[i] = bin.charCodeAt(i);
	return out;
}

/* Reads the varints and bytes of html_timeline.h's encoding. */
class Reader {
	constructor(bytes, pos = 0) {
		this.b = bytes;
		this.p = pos;
	}
	byte() {
		return this.b[this.p++];
	}
	varint() {
		let v = 0, mul = 1, c;
		do {
			c = this.b[this.p++];
			v += (c & 0x7f) * mul;
			mul *= 128;
		} while (c & 0x80);
		return v;
	}
	zigzag() {
		const v = this.varint();
		return v % 2 ? -(v + 1) / 2 : v / 2;
	}
}

/*
 * The states' colours: a palette for colour-blind eyes (Okabe and Ito's
 * eight colours, then tints of them), on CPU in green, waiting for a CPU in
 * oranges and yellows, locks in dark blue, other sleeps in pale blues.
 */
const STATE_COLOURS = {
	NEW: '#dddddd',
	RUNNABLE: '#e69f00',
	READY_PREEMPT: '#d55e00',
	READY_QUANTUM: '#f0e442',
	READY_YIELD: '#f5c9a0',
	EXECUTING: '#009e73',
	INTERRUPTED: '#cc79a7',
	SYNC_WAIT: '#0072b2',
	SLEEPING: '#cfe3f1',
	IO_WAIT: '#56b4e9',
	BLOCKED: '#8a8a8a',
	STOPPED: '#3a3a3a',
	ZOMBIE: '#b8a6c9',
	UNKNOWN: '#f4f4f4',
};

const CPU_COLOURS = ['#ffffff', null, '#d55e00', '#cc79a7', '#bbbbbb', '#e2e2e2'];
const CPU_WHAT = ['idle', 'thread', 'interrupt', 'softirq', 'unknown', 'other processes'];

/* A stable colour per thread id (the CPU rows), never a state's colour family. */
function threadColour(tid) {
	let h = (tid * 2654435761) >>> 0;
	const hue = h % 360, light = 45 + ((h >>> 9) % 20);
	return 'hsl(' + hue + ',55%,' + light + '%)';
}

function clamp(x, lo, hi) {
	return x < lo ? lo : x > hi ? hi : x;
}

/* Sizes canvas c to w x h CSS pixels at the screen's resolution; returns its context, in CSS pixels, 11px text. */
function sizeCanvas(c, w, h) {
	const dpr = window.devicePixelRatio || 1;
	c.width = w * dpr;
	c.height = h * dpr;
	c.style.width = w + 'px';
	c.style.height = h + 'px';
	const ctx = c.getContext('2d');
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	ctx.font = '11px sans-serif';
	return ctx;
}
