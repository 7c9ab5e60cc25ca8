"""What the browser scenarios share: overlayd processes, a second web origin, Chromium, and the
page's geometry read back in the overlay's own points.

Nothing here decides whether a scenario passed; `Check` collects the failures a scenario finds.
"""

import http.server
import json
import math
import os
import re
import socketserver
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


class Overlayd:
    """One overlayd on a free loopback port, with the configuration given (merged over ephemeral,
    manual clock, no write rate limit, no access log)."""

    def __init__(self, binary, config=None, env=None, port=0):
        settings = {"ephemeral": True, "clock": "manual", "accessLog": False, "limits": {"writesPerSecond": 0}}
        settings.update(config or {})
        self.config = settings
        self.directory = tempfile.TemporaryDirectory(prefix="overlayd-browser-")
        path = os.path.join(self.directory.name, "overlayd.json")
        with open(path, "w") as file:
            json.dump(settings, file)
        self.log = open(os.path.join(self.directory.name, "stderr.log"), "w+")
        environment = dict(os.environ, **(env or {}))
        self.process = subprocess.Popen(
            [binary, "--config", path, "--port", str(port)], stderr=self.log, stdin=subprocess.DEVNULL, env=environment)
        self.port = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            self.log.seek(0)
            found = re.search(r" listening .*port=(\d+)", self.log.read())
            if found:
                self.port = int(found.group(1))
                break
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        if self.port is None:
            self.log.seek(0)
            raise RuntimeError("overlayd did not start: " + self.log.read())
        self.origin = f"http://127.0.0.1:{self.port}"
        self.token = (env or {}).get("OVERLAYD_TOKEN")

    def request(self, method, path, body=None, headers=None):
        """(status, headers, parsed JSON or text) of a request as curl would make it: no Origin."""
        data = None
        all_headers = dict(headers or {})
        if self.token:
            all_headers.setdefault("Authorization", "Bearer " + self.token)
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.origin + path, data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), decode(response.read())
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), decode(error.read())

    def json(self, method, path, body=None):
        status, _, value = self.request(method, path, body)
        if status >= 300:
            raise RuntimeError(f"{method} {path} answered {status}: {value}")
        return value

    def overlay(self):
        return self.json("GET", "/overlay")

    def advance(self, seconds):
        return self.json("POST", "/clock", {"advance": seconds})

    def post(self, text, kind="info", **fields):
        return self.json("POST", "/messages", dict(text=text, kind=kind, **fields))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
        self.directory.cleanup()


def decode(body):
    text = body.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


class SecondOrigin:
    """A web server on another free port: the pages of another site. `/` is an empty page that
    scenarios script; `/form` answers nothing useful (a form's target frame lands there); `page()`
    adds a page of a scenario's own at a path."""

    PAGE = b'<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>other site</title></head><body><iframe name="sink" id="sink"></iframe></body></html>'

    def __init__(self, host="127.0.0.1"):
        pages = self.pages = {}
        default = self.PAGE

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                page = pages.get(self.path.split("?")[0], default)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *arguments):
                pass

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.origin = f"http://{host}:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def page(self, path, html):
        """Serves `html` at `path`; its URL."""
        self.pages[path] = html.encode()
        return self.origin + path

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Browser:
    """Headless Chromium through chromedriver (Debian's), with `evil.test` resolving to 127.0.0.1
    as a rebinding attacker's name would."""

    def __init__(self, width=1280, height=900):
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for argument in [
            "--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
            "--force-device-scale-factor=1", "--host-resolver-rules=MAP evil.test 127.0.0.1",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--no-first-run", "--disable-extensions", "--disable-component-update",
        ]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_script_timeout(20)

    def open(self, url):
        self.driver.get(url)

    def run(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def run_async(self, script, *arguments):
        """`script` is the body of an async function whose result is returned."""
        wrapped = "const done = arguments[arguments.length - 1];" \
            "(async (...args) => {" + script + "})(...Array.from(arguments).slice(0, -1))" \
            ".then(done, (e) => done({thrown: String(e)}));"
        return self.driver.execute_async_script(wrapped, *arguments)

    def console(self):
        """The console entries since the last call (errors, warnings and the rest)."""
        return self.driver.get_log("browser")

    def wait_for(self, script, timeout=5.0, what="the page"):
        deadline = time.monotonic() + timeout
        while True:
            value = self.run(script)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout} s for {what}: {script}")
            time.sleep(0.02)

    def screenshot(self, path, element_id=None):
        if element_id:
            self.driver.find_element("id", element_id).screenshot(path)
        else:
            self.driver.save_screenshot(path)

    def quit(self):
        self.driver.quit()


# The element a scenario looks at (the preview page's, or one on a page of another origin) and its
# drawing's parts by id: `view` and `part(id)` in the scripts below.
def view_script(selector="overlayd-overlay"):
    return (f"const view = document.querySelector({json.dumps(selector)});"
            "const part = (id) => view.shadowRoot.getElementById(id);")


# What the element draws, read back: each part's bounding box relative to the screen and divided
# by the drawing's scale (the overlay's points), its computed opacity and transform.
READ_GEOMETRY = """
const screen = part('screen');
const origin = screen.getBoundingClientRect();
const scale = Number(screen.dataset.scale);
const box = (id) => {
  const element = part(id);
  if (!element || element.hidden || element.offsetParent === null) return null;
  const b = element.getBoundingClientRect();
  return [(b.x - origin.x) / scale, (b.y - origin.y) / scale, b.width / scale, b.height / scale];
};
const overlay = part('overlay');
const style = getComputedStyle(overlay);
return {
  scale, version: view.drawn.version, now: view.drawn.now,
  overlay: box('overlay'), opacity: Number(style.opacity), transform: style.transform,
  background: box('overlay-bg'), label: box('label'), text: part('label-text').textContent,
  pill: box('pill'), pillRadius: getComputedStyle(part('pill')).borderTopLeftRadius,
  subtitle: box('subtitle'), subtitleText: part('subtitle-text').textContent,
  accessory: box('accessory'), icon: part('icon').hidden ? null : part('icon').textContent,
  bar: box('bar'), capLeft: box('bar-cap-left'), capRight: box('bar-cap-right'),
  spinner: !part('spinner').hidden, statusBar: box('statusbar'),
  statusBarContent: box('sb-content'),
  statusBarOpacity: Number(getComputedStyle(part('sb-content')).opacity),
  outgoing: box('outgoing'), outgoingText: part('outgoing-text').textContent,
  labelClip: getComputedStyle(part('label')).clipPath, outgoingClip: getComputedStyle(part('outgoing')).clipPath,
};
"""


def rotated_box(frame, rotation, local):
    """The page box of `local` (x, y, w, h in the window's own space, length × thickness) once the
    window is turned by `rotation` degrees about its centre and placed over `frame`."""
    turned = abs(rotation) == 90
    length = frame["height"] if turned else frame["width"]
    thick = frame["width"] if turned else frame["height"]
    cx, cy = frame["x"] + frame["width"] / 2, frame["y"] + frame["height"] / 2
    angle = math.radians(rotation)
    cos, sin = math.cos(angle), math.sin(angle)
    x, y, w, h = local
    points = []
    for px, py in [(x, y), (x + w, y), (x, y + h), (x + w, y + h)]:
        dx, dy = px - length / 2, py - thick / 2
        points.append((cx + dx * cos - dy * sin, cy + dx * sin + dy * cos))
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]


def rect(frame):
    return [frame["x"], frame["y"], frame["width"], frame["height"]]


def rotation_matrix(degrees):
    if degrees == 0:
        return None
    angle = math.radians(degrees)
    return [math.cos(angle), math.sin(angle), -math.sin(angle), math.cos(angle), 0, 0]


def parse_matrix(text):
    if text == "none":
        return None
    found = re.match(r"matrix\(([^)]*)\)", text)
    return [float(value) for value in found.group(1).split(",")] if found else text


class Check:
    """The failures one scenario finds; empty means it passed."""

    def __init__(self, name):
        self.name = name
        self.failures = []
        self.notes = []

    def expect(self, condition, message):
        if not condition:
            self.failures.append(message)
        return condition

    def close(self, actual, expected, tolerance, what):
        if actual is None or expected is None:
            return self.expect(actual == expected, f"{what}: {actual} != {expected}")
        pairs = list(zip(actual, expected)) if isinstance(expected, list) else [(actual, expected)]
        ok = (not isinstance(expected, list) or len(actual) == len(expected)) and all(
            abs(a - e) <= tolerance for a, e in pairs)
        return self.expect(ok, f"{what}: drawn {rounded(actual)}, expected {rounded(expected)} (± {tolerance})")

    def note(self, text):
        self.notes.append(text)


def rounded(value):
    if isinstance(value, list):
        return [round(v, 3) for v in value]
    return round(value, 3) if isinstance(value, float) else value
