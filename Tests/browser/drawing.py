"""Scenarios of the preview page drawing the overlay: manual-clock steps checked against the JSON,
and a real-clock slide sampled frame by frame."""

import statistics
import tempfile

from harness import READ_GEOMETRY, Overlayd, parse_matrix, rect, rotated_box, rotation_matrix, view_script

# The screenshot `png` decoded in the page through a canvas (img-src allows data: URLs):
# `pixel(px, py)` is [r, g, b] of the page's pixel (px, py). Scripts that read a screenshot's
# pixels start with their arguments (`png` among them), then this.
SCREENSHOT_PIXELS = """
const image = new Image();
image.src = 'data:image/png;base64,' + png;
await image.decode();
const canvas = document.createElement('canvas');
canvas.width = image.width;
canvas.height = image.height;
const context = canvas.getContext('2d');
context.drawImage(image, 0, 0);
const data = context.getImageData(0, 0, image.width, image.height).data;
const pixel = (px, py) => { const i = (Math.round(py) * image.width + Math.round(px)) * 4; return [data[i], data[i + 1], data[i + 2]]; };
"""

HALF_POINT = 0.5


def drawn(version, now, selector="overlayd-overlay"):
    """A script true once the element has drawn `version` at the server time `now`."""
    return (view_script(selector) + f"return view.drawn !== null && view.drawn.version === {version}"
            f" && Math.abs(view.drawn.now - {now}) < 1e-9")


def settle(browser, server, selector="overlayd-overlay"):
    """The overlay as the server has it now, once the element shows that version at that time."""
    overlay = server.overlay()
    browser.wait_for(drawn(overlay["version"], overlay["now"], selector), timeout=5,
                     what=f"version {overlay['version']} at {overlay['now']} s")
    # Two more frames: the values read below are ones a frame has drawn.
    geometry = browser.run_async(
        "await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));"
        + view_script(selector) + READ_GEOMETRY)
    return overlay, geometry


def expect_drawn(check, context, browser, server, step, cap_width=0, selector="overlayd-overlay"):
    """The element's overlay equals the JSON × the drawing's scale within half a point."""
    overlay, drawn = settle(browser, server, selector)
    where = f"{step} ({overlay['phase']}, {overlay['orientation']})"
    frame, rotation = overlay["frame"], overlay["rotation"]
    turned = abs(rotation) == 90
    length = frame["height"] if turned else frame["width"]
    thick = frame["width"] if turned else frame["height"]
    check.close(drawn["overlay"], rect(frame), HALF_POINT, f"{where}: window box")
    check.close(drawn["opacity"], overlay["alpha"], 0.005, f"{where}: opacity")
    matrix = parse_matrix(drawn["transform"])
    expected = rotation_matrix(rotation)
    check.close(matrix, expected, 1e-4, f"{where}: transform {drawn['transform']}")
    if overlay.get("pill"):
        check.expect(drawn["background"] is None, f"{where}: a bar background is drawn under the pill")
        check.close(drawn["pill"], rotated_box(frame, rotation, rect(overlay["pill"]["frame"])), HALF_POINT,
                    f"{where}: pill box")
        check.expect(drawn["pillRadius"] == f"{overlay['pill']['cornerRadius']:g}px",
                     f"{where}: pill corner radius {drawn['pillRadius']}")
    else:
        check.expect(drawn["pill"] is None, f"{where}: a pill is drawn without one in the JSON")
        check.close(
            drawn["background"], rotated_box(frame, rotation, [0, overlay["contentOffset"], length, thick]),
            HALF_POINT, f"{where}: background (contentOffset {overlay['contentOffset']})")
    # The status bar at its own frame: the window's in the statusBar presentation, not in the others.
    bar_state = overlay["statusBar"]
    bar_frame = bar_state["frame"]
    check.close(drawn["statusBar"], rect(bar_frame), HALF_POINT, f"{where}: status bar box")
    # The status bar's own content: its alpha, and its offset (a slide) within the bar.
    bar_length, bar_thick = (bar_frame["height"], bar_frame["width"]) if turned else (bar_frame["width"], bar_frame["height"])
    check.close(drawn["statusBarOpacity"], bar_state["alpha"], 0.005, f"{where}: status bar opacity")
    check.close(
        drawn["statusBarContent"], rotated_box(bar_frame, rotation, [0, bar_state["offset"], bar_length, bar_thick]),
        HALF_POINT, f"{where}: status bar content (offset {bar_state['offset']})")
    if overlay["label"]:
        check.close(
            drawn["label"], rotated_box(frame, rotation, rect(overlay["label"]["frame"])), HALF_POINT,
            f"{where}: label box")
        check.expect(drawn["text"] == overlay["label"]["text"],
                     f"{where}: label text {drawn['text']!r} != {overlay['label']['text']!r}")
    else:
        check.expect(drawn["label"] is None, f"{where}: a label is drawn without one in the JSON")
    outgoing = overlay.get("outgoing")
    if outgoing:
        check.close(drawn["outgoing"], rotated_box(frame, rotation, rect(outgoing["frame"])), HALF_POINT,
                    f"{where}: outgoing label box")
        check.expect(drawn["outgoingText"] == outgoing["text"], f"{where}: outgoing text {drawn['outgoingText']!r}")
    else:
        check.expect(drawn["outgoing"] is None, f"{where}: an outgoing label is drawn without a rise")
    subtitle = overlay.get("subtitle")
    if subtitle:
        check.close(drawn["subtitle"], rotated_box(frame, rotation, rect(subtitle["frame"])), HALF_POINT,
                    f"{where}: subtitle box")
        check.expect(drawn["subtitleText"] == subtitle["text"], f"{where}: subtitle {drawn['subtitleText']!r}")
    else:
        check.expect(drawn["subtitle"] is None, f"{where}: a subtitle is drawn without one in the JSON")
    accessory = overlay.get("accessory")
    if accessory:
        check.close(drawn["accessory"], rotated_box(frame, rotation, rect(accessory["frame"])), HALF_POINT,
                    f"{where}: accessory box")
        check.expect(drawn["icon"] == (accessory["icon"] if accessory["kind"] == "icon" else None),
                     f"{where}: icon {drawn['icon']!r} for {accessory}")
    else:
        check.expect(drawn["accessory"] is None, f"{where}: an accessory is drawn without one in the JSON")
    check.expect(drawn["spinner"] == overlay["activity"], f"{where}: spinner {drawn['spinner']}")
    bar = overlay["progressBar"]
    if bar:
        check.close(drawn["bar"], rotated_box(frame, rotation, rect(bar["frame"])), HALF_POINT, f"{where}: bar box")
        if cap_width and rotation == 0:
            check.close(drawn["capLeft"][2], min(cap_width, bar["frame"]["width"] / 2), HALF_POINT,
                        f"{where}: left cap width")
            check.close(drawn["capRight"][2], min(cap_width, bar["frame"]["width"] / 2), HALF_POINT,
                        f"{where}: right cap width")
            check.close(drawn["capRight"][0] + drawn["capRight"][2], bar["frame"]["x"] + bar["frame"]["width"],
                        HALF_POINT, f"{where}: right cap at the bar's end")
    else:
        check.expect(drawn["bar"] is None, f"{where}: a progress bar is drawn without one in the JSON")
    context.screenshot(browser, step)
    return overlay


def open_preview(context, server, fragment=""):
    """The page, once it follows the event stream and has drawn what it received."""
    browser = context.browser
    browser.open(server.origin + "/preview" + fragment)
    browser.wait_for("return document.getElementById('conn').textContent === 'live'"
                     " && document.querySelector('overlayd-overlay').drawn !== null", what="the event stream")
    return browser


def slide_in_halfway(check, context):
    server = context.server()
    browser = open_preview(context, server)
    server.post("Sending photo…", "sending")
    server.advance(0.125)
    overlay = expect_drawn(check, context, browser, server, "slide-in-halfway")
    check.expect(overlay["phase"] == "showing" and overlay["contentOffset"] == -10,
                 f"the server's state is not halfway: {overlay['phase']} {overlay['contentOffset']}")


def fade_halfway(check, context):
    server = context.server({"showStyle": "fade", "device": "iphone"})
    browser = open_preview(context, server)
    server.post("Sent", "sent")
    server.advance(0.125)
    overlay = expect_drawn(check, context, browser, server, "fade-halfway")
    check.expect(overlay["phase"] == "showing" and overlay["alpha"] == 0.5,
                 f"the server's state is not halfway: {overlay['phase']} alpha {overlay['alpha']}")


def rotations(check, context):
    """Each orientation in turn, half-way through rotatingOut (the old orientation) and through
    rotatingIn (the new one)."""
    server = context.server({"device": "iphone"})
    browser = open_preview(context, server)
    server.post("Uploading 3 photos…", "sending")
    server.advance(1)
    for target in ["landscapeLeft", "portraitUpsideDown", "landscapeRight", "portrait"]:
        before = server.overlay()["orientation"]
        server.json("PUT", "/orientation", {"orientation": target})
        server.advance(0.2)
        out = expect_drawn(check, context, browser, server, f"rotating-out-of-{before}")
        check.expect(out["phase"] == "rotatingOut" and out["orientation"] == before,
                     f"not rotating out of {before}: {out['phase']} {out['orientation']}")
        server.advance(0.4)
        back = expect_drawn(check, context, browser, server, f"rotating-into-{target}")
        check.expect(back["phase"] == "rotatingIn" and back["orientation"] == target,
                     f"not rotating into {target}: {back['phase']} {back['orientation']}")
        server.advance(1)
        expect_drawn(check, context, browser, server, f"visible-{target}")


def progress_caps(check, context):
    cap = 6
    server = context.server({"device": "iphone", "progressBar": {"height": 4, "capWidth": cap}})
    browser = open_preview(context, server)
    server.post("Downloading…", "progress", progress=0.01, key="dl")
    server.advance(0.5)
    first = expect_drawn(check, context, browser, server, "progress-caps-start", cap_width=cap)
    check.expect(first["progressBar"] and first["progressBar"]["frame"]["width"] == 2 * cap,
                 f"the bar is not at its two caps' width: {first['progressBar']}")
    server.post("Downloading…", "progress", progress=0.6, key="dl")
    expect_drawn(check, context, browser, server, "progress-caps-60", cap_width=cap)


def notch(check, context):
    server = context.server({"device": "iphone-notch"})
    browser = open_preview(context, server)
    server.post("Sending photo…", "sending")
    server.advance(0.125)
    expect_drawn(check, context, browser, server, "iphone-notch-sliding")
    server.advance(1)
    expect_drawn(check, context, browser, server, "iphone-notch")
    server.json("PUT", "/orientation", {"orientation": "landscapeRight"})
    server.advance(2)
    expect_drawn(check, context, browser, server, "iphone-notch-landscapeRight")


def held_under_hidden_status_bar(check, context):
    """The status bar fading out with the overlay beside it, then the overlay held under it."""
    server = context.server({"device": "iphone"})
    browser = open_preview(context, server)
    server.post("Held", "sending")
    server.advance(1)
    server.json("PUT", "/statusbar", {"hidden": True, "animation": "fade"})
    server.advance(0.125)
    hiding = expect_drawn(check, context, browser, server, "status-bar-hiding")
    check.expect(hiding["statusBar"]["alpha"] == 0.5 and hiding["alpha"] == 0.5,
                 f"not half way through the fade: {hiding['statusBar']['alpha']}, {hiding['alpha']}")
    server.advance(1)
    server.post("Still held", "info")
    overlay = expect_drawn(check, context, browser, server, "held-under-hidden-status-bar")
    check.expect(overlay.get("held") is True, f"the overlay is not held: {overlay.get('held')}")
    check.expect(overlay["queued"] == 2 and overlay["phase"] == "hidden", f"not held: {overlay}")
    browser.wait_for("return /held/.test(document.getElementById('readout').textContent)", what="held in the readout")
    # The bar slides back in; the held message slides in beside it.
    server.json("PUT", "/statusbar", {"hidden": False, "animation": "slide"})
    server.advance(0.125)
    showing = expect_drawn(check, context, browser, server, "status-bar-sliding-in")
    check.expect(showing["statusBar"]["offset"] == -10 and showing["contentOffset"] == -10,
                 f"not half way through the slide: {showing['statusBar']['offset']}, {showing['contentOffset']}")


def real_clock_slide(check, context):
    """Real clock: the page's drawn offset, sampled every frame during a 1 s slide-in, only grows
    and stays within one frame of the server's curve."""
    server = context.server({"clock": "real", "showDuration": 1.0})
    browser = open_preview(context, server)
    result = browser.run_async(view_script() + """
const screen = part('screen');
const scale = Number(screen.dataset.scale);
// The page's clock against the server's, measured here independently of the page's own estimate.
let offset = null, spread = Infinity;
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const clock = await (await fetch('/clock', {cache: 'no-store'})).json();
  const t1 = performance.now();
  if (t1 - t0 < spread) { spread = t1 - t0; offset = clock.now - (t0 + t1) / 2000; }
}
const before = view.drawn.version;
const posted = await fetch('/messages', {method: 'POST', headers: {'Content-Type': 'application/json'},
  body: JSON.stringify({text: 'Real clock', kind: 'sending'})});
const postedAt = performance.now();
const overlay = await (await fetch('/overlay', {cache: 'no-store'})).json();
const samples = [];
await new Promise((resolve) => {
  const start = performance.now();
  const tick = (ts) => {
    const window = part('overlay').getBoundingClientRect();
    const bg = part('overlay-bg').getBoundingClientRect();
    samples.push({ts, version: view.drawn.version, drawn: (bg.y - window.y) / scale});
    if (ts - start < 1400) requestAnimationFrame(tick); else resolve();
  };
  requestAnimationFrame(tick);
});
return {offset, spread, before, status: posted.status, postedAt, animation: overlay.animation, samples};
""")
    check.expect(result.get("status") == 202, f"POST answered {result.get('status')}: {result}")
    animation = result.get("animation")
    if not check.expect(animation and animation["property"] == "contentOffset", f"no slide running: {animation}"):
        return
    samples = [s for s in result["samples"] if s["version"] != result["before"]]
    check.expect(len(samples) > 30, f"only {len(samples)} frames drew the slide")
    if samples:
        late = samples[0]["ts"] - result["postedAt"]
        check.expect(late < 150, f"the page drew the new version {late:.0f} ms after the POST was answered")
    intervals = [b["ts"] - a["ts"] for a, b in zip(result["samples"], result["samples"][1:])]
    frame = statistics.median(intervals) / 1000 if intervals else 1 / 60
    # One frame either way, and the uncertainty of the measured clock offset.
    slack = frame + result["spread"] / 2000

    def curve(t):
        f = min(1.0, max(0.0, (t - animation["start"]) / animation["duration"]))
        return animation["from"] + (animation["to"] - animation["from"]) * f

    previous = None
    for sample in samples:
        t = sample["ts"] / 1000 + result["offset"]
        low, high = curve(t - slack), curve(t + slack)
        drawn = sample["drawn"]
        if drawn is None:
            check.expect(False, f"at {t:.4f} s nothing was drawn")
            continue
        if drawn < low - 0.05 or drawn > high + 0.05:
            check.expect(False, f"at {t:.4f} s drew {drawn:.3f}, the curve says {low:.3f}…{high:.3f}")
        if previous is not None:
            check.expect(drawn >= previous - 1e-6, f"the offset went back: {previous:.3f} then {drawn:.3f}")
        previous = drawn
    check.failures = check.failures[:12]
    check.note(f"{len(samples)} frames, frame {frame * 1000:.1f} ms, clock spread {result['spread']:.2f} ms")
    context.screenshot(browser, "real-clock-end")


def reconnects(check, context):
    """The server restarts on the same port and data directory (its versions go on growing): the
    page reconnects on its own, with Last-Event-ID, and draws what changed meanwhile."""
    data = tempfile.TemporaryDirectory(prefix="overlayd-browser-data-")
    config = {"device": "iphone", "ephemeral": False, "dataDir": data.name}
    first = context.server(config)
    browser = open_preview(context, first)
    first.post("Before the restart", "info")
    first.advance(1)
    expect_drawn(check, context, browser, first, "before-restart")
    port = first.port
    first.stop()
    context.started.remove(first)
    browser.wait_for("return document.getElementById('conn').textContent !== 'live'", what="the lost stream")
    second = context.server(config, port=port)
    second.post("After the restart", "failed", immediate=True)
    second.advance(1)
    browser.wait_for("return document.getElementById('conn').textContent === 'live'", timeout=8, what="reconnect")
    # While no server listened, Chromium logs each refused request (the page's stream and its
    # clock reads) as a console error of its own, whether the page handles it or not. A clock
    # read that reaches the first server while it stops gets its 503 (a stopping server answers
    # new requests on open connections so), which Chromium logs the same way.
    context.expect_console(check, [
        r"net::ERR_CONNECTION_REFUSED",
        r"/clock - Failed to load resource: the server responded with a status of 503",
    ])
    overlay = expect_drawn(check, context, browser, second, "after-restart")
    check.expect(overlay["label"]["text"] == "After the restart", f"the second server shows {overlay['label']}")
    # The page leaves before its server stops: its next clock read would otherwise be refused
    # (or get the stopping server's 503) and logged after every look at the console.
    browser.open("about:blank")
    second.stop()
    context.started.remove(second)
    data.cleanup()


SCENARIOS = [slide_in_halfway, fade_halfway, rotations, progress_caps, notch, held_under_hidden_status_bar,
             real_clock_slide, reconnects]

__all__ = ["SCENARIOS", "Overlayd"]
