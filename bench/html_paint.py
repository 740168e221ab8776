"""html_paint.py - how fast a `threadlens html` page shows in headless
Chromium (bench/html.sh, section 8).

    html_paint.py PAGE.html [REPS]

Per repetition, in a fresh tab of one browser: the time from the start of
the navigation until the page has drawn its timeline the first time
(performance.now() at the end of the page's main(), after the first
draw: the file read, the JSON parsed, the summaries decoded and drawn),
then the time to redraw the whole window, to zoom into a 1 ms window in
the middle (decoding its blocks' exact intervals) and to redraw that.
Prints one line per repetition and the medians, as key=value pairs.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "html"))
from cdp import Browser  # noqa: E402

JS_TIMES = """(() => {
    const t = window.threadlens.timeline, m = window.threadlens.model, now = () => performance.now();
    let a = now(); t.reset(); const full = now() - a;
    const mid = (m.from + m.to) / 2;
    a = now(); t.zoomTo(mid - 5e5, mid + 5e5); const zoom = now() - a;
    a = now(); t.draw(); const redraw = now() - a;
    return {full_ms: full, zoom_1ms_ms: zoom, redraw_1ms_ms: redraw, exact: t.exact(), drawn: t.drawn,
            rows: t.threadRows()};
})()"""


def main():
    page_path = os.path.abspath(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rows = []
    with Browser(timeout=120) as b:
        for r in range(reps):
            page = b.open("file://" + page_path, width=1400, height=1000)
            if page.wait("document.body && document.body.dataset.ready === '1'", timeout=120) is None:
                print("html_paint: the page did not get ready in 120 s", file=sys.stderr)
                sys.exit(1)
            first = page.eval("window.threadlens.readyMs")
            t = page.eval(JS_TIMES)
            errors = page.errors()
            row = {"first_paint_ms": first, **t, "errors": len(errors)}
            rows.append(row)
            print("rep=%d " % r + " ".join("%s=%s" % (k, round(v, 1) if isinstance(v, float) else v) for k, v in row.items()))
            page.send("Page.close")
    med = {k: statistics.median(x[k] for x in rows) for k in ("first_paint_ms", "full_ms", "zoom_1ms_ms", "redraw_1ms_ms")}
    print("median " + " ".join("%s=%.1f" % kv for kv in med.items()))


main()
