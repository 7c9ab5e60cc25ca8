"""Scenarios of the web component, `<overlayd-overlay>` from GET /overlayd.js, on pages of another
origin (a dashboard's): the bar layout judged by pixels in the style's colours and by the served
font's widths, the device layout against the JSON and against the preview page, the
`overlaychange` events, a page that loads the module twice, a read token, the CORS rules, and a
server that goes away and comes back."""

import json
import os
import re

from drawing import SCREENSHOT_PIXELS, expect_drawn, open_preview, settle
from harness import view_script

# Every overlaychange the page hears, at the document: the event bubbles out of the element and
# is composed, so a listener there sees it with the element as its target.
RECORD = """
window.changes = [];
document.addEventListener('overlaychange', (event) => changes.push({
  target: event.target.id, bubbles: event.bubbles, composed: event.composed, overlay: event.detail}));
"""

# The screenshot's pixels read in the page through a canvas, at points of an element (CSS pixels
# from its top left corner), and the box of the element's pixels near a colour.
PIXELS = """
const [png, selector, points, colour] = args;
""" + SCREENSHOT_PIXELS + """
const r = document.querySelector(selector).getBoundingClientRect();
let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
if (colour) {
  for (let py = Math.ceil(r.y); py < r.y + r.height; py++) for (let px = Math.ceil(r.x); px < r.x + r.width; px++) {
    if (pixel(px, py).every((v, i) => Math.abs(v - colour[i]) <= 24)) {
      x0 = Math.min(x0, px - r.x); y0 = Math.min(y0, py - r.y); x1 = Math.max(x1, px - r.x); y1 = Math.max(y1, py - r.y);
    }
  }
}
return {at: points.map(([x, y]) => pixel(r.x + x, r.y + y)), box: x0 === Infinity ? null : [x0, y0, x1 - x0 + 1, y1 - y0 + 1]};
"""

# The label as the bar draws it: the laid-out text's width, in CSS pixels, and its font family.
LABEL = """
await document.fonts.ready;
const range = document.createRange();
range.selectNodeContents(part('label-text'));
return {width: range.getBoundingClientRect().width, family: getComputedStyle(part('label')).fontFamily,
  faces: Array.from(document.fonts).map((f) => [f.family.replace(/"/g, ''), f.status]),
  resources: performance.getEntriesByType('resource').map((r) => r.name)};
"""

WHITE = [255, 255, 255]


def rgb(hex_colour):
    value = hex_colour.lstrip("#")
    return [int(value[i:i + 2], 16) for i in (0, 2, 4)]


def near(pixel, colour, tolerance=12):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def dashboard(other, server, body, path="/dashboard", modules=None):
    """A page of the other origin that loads the module (once per URL of `modules`, as
    `<script type="module" src>`, counting the ones that fail) and shows `body`."""
    modules = modules or [server.origin + "/overlayd.js"]
    scripts = "".join(
        f'<script type="module" src="{url}" onerror="window.importErrors = (window.importErrors || 0) + 1">'
        "</script>" for url in modules)
    return other.page(path, f"""<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>dashboard</title><style>body{{margin:0;background:#fff}}overlayd-overlay{{margin:16px}}</style>
<script>{RECORD}</script>{scripts}</head><body>{body}</body></html>""")


def bar_element(server, element_id="bar", extra=""):
    return (f'<overlayd-overlay id="{element_id}" src="{server.origin}" layout="bar" {extra}'
            f' style="width:600px;height:48px"></overlayd-overlay>')


def open_dashboard(context, url, selector="#bar"):
    """The page, once its element follows the stream and has drawn what it received."""
    browser = context.browser
    browser.open(url)
    browser.wait_for(f"const v = document.querySelector({json.dumps(selector)});"
                     "return v && v.connection === 'live' && v.drawn !== null", what="the element's first drawing")
    return browser


def pixels(browser, selector, points, colour=None):
    png = browser.driver.get_screenshot_as_base64()
    return browser.run_async(PIXELS, png, selector, points, colour)


def changes(browser):
    return browser.run("return window.changes")


def expect_same_geometry(check, here, there, what):
    """Two readings of READ_GEOMETRY agree in the overlay's points (the scales may differ)."""
    for key, value in there.items():
        if key in ("scale", "now"):
            continue
        if isinstance(value, list):
            check.close(here[key], value, 0.01, f"{what}: {key}")
        else:
            check.expect(here[key] == value, f"{what}: {key} {here[key]!r} != {value!r}")


def component_bar(check, context):
    """layout="bar" on another origin's page: nothing while nothing is shown; the background
    sliding down from the top half way through the slide; then across the whole element in the
    style's background, the label in its foreground, centred, in the served font at the measured
    width; a progress bar in the foreground across the element's width at its bottom."""
    server = context.server({"device": "iphone"})
    other = context.second_origin()
    browser = open_dashboard(context, dashboard(other, server, bar_element(server)))
    width, height = 600, 48
    corners = [[2, 2], [width - 3, 2], [2, height - 3], [width - 3, height - 3]]
    empty = pixels(browser, "#bar", corners + [[width / 2, height / 2]])
    check.expect(all(near(p, WHITE) for p in empty["at"]), f"drawn with nothing shown: {empty['at']}")

    server.post("Backup finished", "sent")
    server.advance(0.125)
    overlay = settle_bar(browser, server)
    thick = overlay["frame"]["height"]
    check.expect(overlay["phase"] == "showing" and overlay["contentOffset"] == -thick / 2,
                 f"the server's state is not half way: {overlay['phase']} {overlay['contentOffset']}")
    background = rgb(overlay["style"]["background"])
    half = pixels(browser, "#bar", [[4, height * 0.25], [width - 5, height * 0.25], [4, height * 0.75],
                                     [width - 5, height * 0.75]])
    check.expect([near(p, background) for p in half["at"]] == [True, True, False, False],
                 f"half way through the slide (background {background}): {half['at']}")
    check.expect(all(near(p, WHITE) for p in half["at"][2:]), f"below the sliding bar: {half['at'][2:]}")
    context.screenshot(browser, "sliding")

    server.advance(1)
    overlay = settle_bar(browser, server)
    background, foreground = rgb(overlay["style"]["background"]), rgb(overlay["style"]["foreground"])
    seen = pixels(browser, "#bar", corners, foreground)
    check.expect(all(near(p, background) for p in seen["at"]), f"corners not {background}: {seen['at']}")
    text = seen["box"]
    if check.expect(text is not None, f"no pixel of the label's colour {foreground}"):
        check.close(text[0] + text[2] / 2, width / 2, 4, "the label's centre (px)")
        check.expect(text[3] < height * 0.8, f"the label's pixels are {text[3]} px high in a {height} px bar")
    label = browser.run_async(view_script("#bar") + LABEL)
    scale = height / thick
    check.close(label["width"], overlay["label"]["textWidth"] * scale, 0.1,
                "the label's width against textWidth × scale")
    family = label["family"].replace('"', "")
    check.expect(family.startswith("overlayd-text,") and ["overlayd-text", "loaded"] in label["faces"],
                 f"not in the served font: {family} {label['faces']}")
    check.expect(server.origin + "/preview/font" in label["resources"], f"font not from overlayd: {label['resources']}")
    others = [r for r in label["resources"] if not r.startswith(server.origin + "/")]
    check.expect(others == [], f"requests to other hosts: {others}")
    context.screenshot(browser, "visible")

    server.post("Uploading 2 files", "progress", progress=0.5, immediate=True)
    server.advance(1)
    overlay = settle_bar(browser, server)
    check.expect(overlay["progressBar"] and overlay["progressBar"]["frame"]["width"] == overlay["frame"]["width"] / 2,
                 f"no half progress bar: {overlay['progressBar']}")
    background, foreground = rgb(overlay["style"]["background"]), rgb(overlay["style"]["foreground"])
    bottom = height - 2
    seen = pixels(browser, "#bar", [[4, bottom], [width * 0.45, bottom], [width * 0.55, bottom], [width - 5, bottom],
                                    [width * 0.75, height / 2]])
    check.expect([near(p, foreground) for p in seen["at"][:4]] == [True, True, False, False],
                 f"the progress bar ({foreground} to half the width, then {background}): {seen['at'][:4]}")
    check.expect(all(near(p, background) for p in seen["at"][2:]), f"beside the progress bar: {seen['at'][2:]}")
    context.screenshot(browser, "progress")


def settle_bar(browser, server, selector="#bar"):
    """The overlay as the server has it, once the element drew that version at that time."""
    overlay = server.overlay()
    browser.wait_for(view_script(selector) + f"return view.drawn && view.drawn.version === {overlay['version']}"
                     f" && Math.abs(view.drawn.now - {overlay['now']}) < 1e-9",
                     what=f"version {overlay['version']} at {overlay['now']} s")
    # Two more frames: what is read next is what a frame has drawn.
    browser.run_async("await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));")
    return overlay


def component_device(check, context):
    """The default layout on another origin's page is the device, drawn as the JSON says through a
    slide, a pill and a rotation; and exactly as the preview page draws the same state."""
    server = context.server({"device": "iphone-15-pro"})
    other = context.second_origin()
    element = (f'<overlayd-overlay id="device" src="{server.origin}" style="width:720px;height:700px">'
               "</overlayd-overlay>")
    browser = open_dashboard(context, dashboard(other, server, element), "#device")
    check.expect(browser.run("return document.querySelector('#device').layout") == "device", "the default layout")
    # A sending message stays until it is changed: still shown after the rotation.
    server.post("Uploading 3 photos…", "sending", subtitle="IMG_2041.HEIC · 2.4 MB")
    server.advance(0.125)
    expect_drawn(check, context, browser, server, "device-sliding", selector="#device")
    server.advance(1)
    expect_drawn(check, context, browser, server, "device-pill", selector="#device")
    server.json("PUT", "/orientation", {"orientation": "landscapeLeft"})
    server.advance(2)
    overlay = expect_drawn(check, context, browser, server, "device-landscape", selector="#device")
    check.expect(overlay["orientation"] == "landscapeLeft" and overlay["phase"] == "visible", f"not turned: {overlay}")
    _, here = settle(browser, server, "#device")
    open_preview(context, server)
    _, there = settle(browser, server)
    expect_same_geometry(check, here, there, "the element against the preview page")


def component_events(check, context):
    """overlaychange, heard at the document: one per version, in order, the same versions and the
    same JSON as a plain EventSource on the page received, bubbling and composed, from the element."""
    server = context.server({"device": "iphone"})
    other = context.second_origin()
    browser = open_dashboard(context, dashboard(other, server, bar_element(server)))
    browser.run(f"window.stream = []; const source = new EventSource({json.dumps(server.origin + '/events')});"
                "source.addEventListener('overlay', (event) => stream.push(JSON.parse(event.data)));")
    steps = [
        lambda: server.post("First", "info"), lambda: server.advance(1),
        lambda: server.post("Second", "sent", immediate=True), lambda: server.advance(1),
        lambda: server.json("PUT", "/orientation", {"orientation": "landscapeRight"}), lambda: server.advance(2),
    ]
    versions = [server.overlay()["version"]]
    for step in steps:
        step()
        version = server.overlay()["version"]
        if version != versions[-1]:
            versions.append(version)
        browser.wait_for(f"return window.changes.length > 0 && window.changes[window.changes.length - 1]"
                         f".overlay.version === {version} && window.stream.length > 0"
                         f" && window.stream[window.stream.length - 1].version === {version}",
                         what=f"version {version}")
    heard = changes(browser)
    stream = browser.run("return window.stream")
    got = [c["overlay"]["version"] for c in heard]
    check.expect(got == sorted(set(got)), f"versions out of order or repeated: {got}")
    check.expect(set(versions) <= set(got), f"versions the server had, {versions}, not all dispatched: {got}")
    check.expect(got[-len(stream):] == [o["version"] for o in stream],
                 f"the element dispatched {got}, an EventSource received {[o['version'] for o in stream]}")
    by_version = {o["version"]: o for o in stream}
    for change in heard:
        overlay = change["overlay"]
        check.expect(change["target"] == "bar" and change["bubbles"] and change["composed"],
                     f"version {overlay['version']}: target {change['target']}, bubbles {change['bubbles']},"
                     f" composed {change['composed']}")
        if overlay["version"] in by_version:
            check.expect(overlay == by_version[overlay["version"]], f"version {overlay['version']}: detail differs")
    check.expect(heard[-1]["overlay"] == server.overlay(), "the last detail is not the server's overlay")
    check.expect(browser.run("return document.querySelector('#bar').overlay.version") == versions[-1],
                 "the element's overlay property")
    check.note(f"{len(heard)} events, versions {got}")


def component_defined_once(check, context):
    """A page that loads the module twice (two URLs, so two evaluations) defines the element once,
    without an error, and its elements draw."""
    server = context.server({"device": "iphone"})
    other = context.second_origin()
    modules = [server.origin + "/overlayd.js", server.origin + "/overlayd.js?copy"]
    url = dashboard(other, server, bar_element(server), modules=modules)
    browser = open_dashboard(context, url)
    loaded = browser.run("return performance.getEntriesByType('resource').map((r) => r.name)")
    check.expect(all(m in loaded for m in modules), f"the module was not loaded twice: {loaded}")
    check.expect(browser.run("return typeof customElements.get('overlayd-overlay')") == "function", "not defined")
    check.expect(browser.run("return window.importErrors || 0") == 0, "an import failed")
    server.post("Loaded twice", "info")
    server.advance(1)
    settle_bar(browser, server)
    check.expect(changes(browser)[-1]["overlay"]["label"]["text"] == "Loaded twice", "the element missed the post")
    context.expect_console(check, [])


def component_token(check, context):
    """With a read token: the element given it draws and dispatches; one without it says
    unauthorized, and stops asking."""
    env = {"OVERLAYD_TOKEN": "write-token-123", "OVERLAYD_READ_TOKEN": "read-token-456"}
    server = context.server({"device": "iphone"}, env=env)
    other = context.second_origin()
    body = bar_element(server, "bar", 'token="read-token-456"') + bar_element(server, "anonymous")
    browser = open_dashboard(context, dashboard(other, server, body))
    browser.wait_for("return document.querySelector('#anonymous').connection === 'unauthorized'",
                     what="the element without a token to be refused")
    server.post("For readers only", "info")
    server.advance(1)
    overlay = settle_bar(browser, server)
    heard = changes(browser)
    check.expect([c["target"] for c in heard] == ["bar"] * len(heard), f"dispatched from {heard}")
    check.expect(heard[-1]["overlay"]["version"] == overlay["version"], "the reader missed the post")
    check.expect(browser.run("return document.querySelector('#anonymous').drawn") is None,
                 "the element without a token drew")
    context.screenshot(browser, "read-token")
    context.expect_console(check, [r"status of 401", r"EventSource"])


def component_cors(check, context):
    """`cors.allowOrigins` names the dashboard's origin: that page imports the module and follows
    the stream; the same page at an origin not listed cannot load the module at all."""
    other = context.second_origin()
    server = context.server({"device": "iphone", "cors": {"allowOrigins": [other.origin]}})
    url = dashboard(other, server, bar_element(server))
    browser = open_dashboard(context, url)
    server.post("Listed", "sent")
    server.advance(1)
    settle_bar(browser, server)
    context.expect_console(check, [])
    browser.open(url.replace("127.0.0.1", "localhost"))
    browser.wait_for("return window.importErrors === 1", what="the refused import")
    check.expect(browser.run("return customElements.get('overlayd-overlay') === undefined"),
                 "an origin not listed defined the element")
    context.expect_console(check, [r"blocked by CORS policy", r"net::ERR_FAILED"])


def component_reconnects(check, context):
    """The server stops and another starts on the same port (an ephemeral one: its versions start
    again): the element reconnects on its own, takes the new server's overlay whatever its
    version, dispatches it and draws it in its colours."""
    config = {"device": "iphone"}
    first = context.server(config)
    other = context.second_origin()
    browser = open_dashboard(context, dashboard(other, first, bar_element(first)))
    # More versions than the new server will have made when the element reaches it.
    first.post("Before the restart", "info")
    first.advance(1)
    first.json("PUT", "/orientation", {"orientation": "landscapeLeft"})
    first.advance(2)
    before = settle_bar(browser, first)
    port = first.port
    first.stop()
    context.started.remove(first)
    browser.wait_for("return document.querySelector('#bar').connection === 'reconnecting'", what="the lost stream")
    second = context.server(config, port=port)
    second.post("After the restart", "failed")
    second.advance(1)
    after = second.overlay()
    check.expect(after["version"] < before["version"],
                 f"the new server's version {after['version']} is not below the old {before['version']}")
    browser.wait_for("return document.querySelector('#bar').connection === 'live'", timeout=8, what="reconnect")
    overlay = settle_bar(browser, second)
    last = changes(browser)[-1]["overlay"]
    check.expect(last["label"]["text"] == "After the restart" and last["version"] == overlay["version"],
                 f"the last overlaychange is {last['version']} {last['label']}")
    background = rgb(overlay["style"]["background"])
    seen = pixels(browser, "#bar", [[4, 4], [595, 43]])
    check.expect(all(near(p, background) for p in seen["at"]), f"not drawn in {background}: {seen['at']}")
    context.screenshot(browser, "after-restart")
    # Refused while no server listened, and a clock read the stopping server answered 503 (as in
    # the preview's own reconnect scenario).
    context.expect_console(check, [
        r"net::ERR_CONNECTION_REFUSED", r"/clock.* status of 503", r"/events.* status of 503"])
    browser.open("about:blank")


def component_documented_page(check, context):
    """The five-line page of docs/INTEGRATIONS.md, pointed at a server here: its banner follows
    the channel it names, drawn in the channel's colours, and it logs each version."""
    document = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "INTEGRATIONS.md")
    with open(document, encoding="utf-8") as file:
        html = re.search(r"```html\n(.*?)```", file.read(), re.S).group(1)
    check.expect(len(html.strip().splitlines()) == 5, f"the documented page is not five lines: {html}")
    server = context.server({"device": "iphone"})
    other = context.second_origin()
    url = other.page("/banner", html.replace("http://overlay.lan:8080", server.origin))
    browser = open_dashboard(context, url, "overlayd-overlay")
    server.json("POST", "/channels/lobby/messages", {"text": "Doors open at seven", "kind": "sent"})
    server.advance(1)
    overlay = server.json("GET", "/channels/lobby/overlay")
    browser.wait_for(f"const v = document.querySelector('overlayd-overlay');"
                     f"return v.drawn.version === {overlay['version']} && v.drawn.now === {overlay['now']}",
                     what=f"the lobby's version {overlay['version']}")
    browser.run_async("await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));")
    background = rgb(overlay["style"]["background"])
    seen = pixels(browser, "overlayd-overlay", [[4, 4], [4, 43]])
    check.expect(all(near(p, background) for p in seen["at"]), f"the banner is not {background}: {seen['at']}")
    logged = [e["message"] for e in browser.console() if e.get("level") == "INFO"]
    check.expect(any(f'{overlay["version"]} "visible"' in m for m in logged), f"version not logged: {logged}")
    context.screenshot(browser, "banner")


SCENARIOS = [component_bar, component_device, component_events, component_defined_once, component_token,
             component_cors, component_reconnects, component_documented_page]
