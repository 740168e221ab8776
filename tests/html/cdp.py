"""cdp.py - drive a headless Chromium over the DevTools protocol, on a pipe.

Chromium's --remote-debugging-pipe reads commands on fd 3 and writes
replies and events on fd 4, each a JSON text ended by a NUL byte, so no
WebSocket library (and no Node.js package) is needed: the standard
library is enough.  Used by check_report.py (tests/cli/test_html.sh) and
bench/html_paint.py.

    with Browser() as b:
        page = b.open("file:///tmp/report.html", width=1400, height=1000)
        page.eval("1 + 2")          # -> 3
        page.mouse("mouseMoved", 300, 200)
        page.screenshot("/tmp/shot.png")
        page.errors()               # exceptions and console errors seen
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    for exe in ("/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome"):
        path = exe if os.path.isabs(exe) else shutil.which(exe)
        if path and os.access(path, os.X_OK):
            return path
    return None


class Browser:
    def __init__(self, exe=None, timeout=30.0):
        self.exe = exe or find_chromium()
        self.timeout = timeout
        self.buf = b""
        self.id = 0
        self.events = []

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="tl-chromium-")
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()

        def child():
            # fds 3 and 4, inheritable (pipes are close-on-exec by default)
            a, b = os.dup(r1), os.dup(w2)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(
            [self.exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--user-data-dir=" + self.profile, "about:blank"],
            preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.w, self.r = w1, r2
        return self

    def __exit__(self, *exc):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.profile, ignore_errors=True)

    def send(self, method, params=None, session=None):
        self.id += 1
        msg = {"id": self.id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + self.timeout
        while True:
            m = self.recv(deadline)
            if m.get("id") == self.id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def recv(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            data = os.read(self.r, 1 << 20)
            if not data:
                raise EOFError("chromium went away")
            self.buf += data
        m, self.buf = self.buf.split(b"\0", 1)
        return json.loads(m)

    def open(self, url, width=1400, height=1000):
        target = self.send("Target.createTarget", {"url": "about:blank"})
        sid = self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})["sessionId"]
        page = Page(self, sid)
        for domain in ("Runtime", "Log", "Page", "Network"):
            page.send(domain + ".enable")
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        page.started = time.time()
        page.send("Page.navigate", {"url": url})
        return page


class Page:
    def __init__(self, browser, sid):
        self.b = browser
        self.sid = sid

    def send(self, method, params=None):
        return self.b.send(method, params, self.sid)

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("page: %s" % r["exceptionDetails"].get("exception", {}).get("description", r))
        return r["result"].get("value")

    def wait(self, expr, timeout=20.0):
        """Seconds until expr is true (polling every 20 ms), or None."""
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.eval(expr):
                return time.time() - t0
            time.sleep(0.02)
        return None

    def mouse(self, kind, x, y, modifiers=0, button="none", clicks=0, delta_y=0):
        p = {"type": kind, "x": x, "y": y, "modifiers": modifiers, "button": button, "clickCount": clicks}
        if kind == "mouseWheel":
            p.update({"deltaX": 0, "deltaY": delta_y})
        self.send("Input.dispatchMouseEvent", p)

    def click(self, x, y, modifiers=0):
        self.mouse("mouseMoved", x, y, modifiers)
        self.mouse("mousePressed", x, y, modifiers, "left", 1)
        self.mouse("mouseReleased", x, y, modifiers, "left", 1)

    def key(self, key):
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "text": key if kind == "keyDown" else ""})

    def screenshot(self, path):
        img = self.send("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(img["data"]))

    def errors(self):
        out = []
        for e in self.b.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("exception", {}).get("description", "exception"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", "")) for a in p.get("args", []))))
            elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append("log: " + p["entry"]["text"])
        return out

    def requests(self):
        """URLs the page asked for, other than itself and data: URLs."""
        return [e["params"]["request"]["url"] for e in self.b.events
                if e.get("method") == "Network.requestWillBeSent"
                and not e["params"]["request"]["url"].startswith(("file:", "data:", "about:"))]
