"""Scenarios of the devices of today (docs/MODEL.md §10) on the preview page: the island and the pill judged
by pixels, the bounce interpolated locally, a finger's hold, release and swipe reaching the server,
the measuring font served by overlayd itself, and a gallery of screenshots."""

from selenium.webdriver.common.action_chains import ActionChains

from drawing import SCREENSHOT_PIXELS, expect_drawn, open_preview, settle
from harness import view_script

ISLAND = {"width": 126, "height": 37.33, "y": 11}
SCREEN_WIDTH = 393

# The screenshot's pixels, read in the page through a canvas (img-src allows data: URLs), at points
# of the screen: `at(x, y)` is [r, g, b] of the pixel under the screen's point (x, y).
PIXELS = """
const [png, pill, island, colour] = args;
""" + SCREENSHOT_PIXELS + """
const screen = part('screen');
const origin = screen.getBoundingClientRect();
const scale = Number(screen.dataset.scale);
const at = (x, y) => pixel(origin.x + x * scale, origin.y + y * scale);
const near = (p, c, tolerance) => p.every((v, i) => Math.abs(v - c[i]) <= tolerance);
// The pill: every pixel of its colour around its frame; its box, in page pixels.
let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
const f = pill;
for (let py = Math.floor(origin.y + (f.y - 12) * scale); py <= origin.y + (f.y + f.height + 12) * scale; py++) {
  for (let px = Math.floor(origin.x + (f.x - 12) * scale); px <= origin.x + (f.x + f.width + 12) * scale; px++) {
    if (near(pixel(px, py), colour, 10)) { x0 = Math.min(x0, px); y0 = Math.min(y0, py); x1 = Math.max(x1, px); y1 = Math.max(y1, py); }
  }
}
const middle = (y0 + y1) / 2, centre = (x0 + x1) / 2;
const isPill = (px, py) => near(pixel(px, py), colour, 10);
const gap = (p) => near(p, colour, 10) ? 'pill' : Math.max(...p) <= 16 ? 'black' : 'other';
// The island: points inside its capsule, 3 points in from its edge: a grid over its straight part
// (between the two round ends) and the middle of each end.
const inside = [];
const ix = (393 - island.width) / 2, r = island.height / 2, cy = island.y + r;
for (let i = 0; i <= 4; i++) for (let j = 0; j <= 4; j++) {
  inside.push(at(ix + r + (island.width - 2 * r) * i / 4, island.y + 3 + (island.height - 6) * j / 4));
}
inside.push(at(ix + 3, cy), at(ix + island.width - 3, cy));
return {
  scale, box: [x0, y0, x1 - x0 + 1, y1 - y0 + 1],
  corners: [isPill(x0, y0), isPill(x1, y0), isPill(x0, y1), isPill(x1, y1)],
  ends: [isPill(x0, middle), isPill(x1, middle), isPill(centre, y0), isPill(centre, y1)],
  island: inside.every((p) => Math.max(...p) <= 16),
  islandCorners: [at(ix + 1, island.y + 1), at(ix + island.width - 1, island.y + island.height - 1)].map((p) => Math.max(...p) > 16),
  gap: gap(at(393 / 2, island.y + island.height + 4)),
  top: origin.y + f.y * scale,
};
"""


def shadow_part(browser, part_id):
    """A part of the preview's element, for Selenium's pointer actions."""
    view = browser.driver.find_element("css selector", "overlayd-overlay")
    return view.shadow_root.find_element("css selector", "#" + part_id)


def rgb(hex_colour):
    value = hex_colour.lstrip("#")
    return [int(value[i:i + 2], 16) for i in (0, 2, 4)]


def island_and_pill(check, context):
    """iphone-15-pro upright: the island is black at its rectangle, above the pill; the pill is a
    capsule of its frame's size in its kind's colour, its corners round."""
    server = context.server({"device": "iphone-15-pro"})
    browser = open_preview(context, server)
    server.post("Photo uploaded", "sent", subtitle="IMG_2041.HEIC · 2.4 MB", icon="✓")
    server.advance(1)
    overlay = expect_drawn(check, context, browser, server, "island-pill")
    check.expect(overlay["presentation"] == "pill" and overlay["pill"], f"no pill: {overlay['presentation']}")
    frame = overlay["pill"]["frame"]
    png = browser.driver.get_screenshot_as_base64()
    seen = browser.run_async(view_script() + PIXELS, png, frame, ISLAND, rgb(overlay["style"]["background"]))
    scale = seen["scale"]
    x, y, width, height = seen["box"]
    # Antialiased edges are not the colour exactly: the box may be a pixel short on each side.
    check.close(width, frame["width"] * scale, 2, "the pill's measured width (px)")
    check.close(height, frame["height"] * scale, 2, "the pill's measured height (px)")
    # Its aspect ratio is the frame's, as far as 2 px either way on each side can tell.
    ratio = frame["width"] / frame["height"]
    check.expect((width - 2) / (height + 2) <= ratio <= (width + 2) / (height - 2),
                 f"the pill's aspect ratio {width / height:.3f} is not its frame's {ratio:.3f}")
    check.close(y, seen["top"], 2, "the pill's top (px)")
    check.expect(not any(seen["corners"]), f"the pill's box corners are its colour (not round): {seen['corners']}")
    check.expect(all(seen["ends"]), f"the middle of an end or edge is not the pill's colour: {seen['ends']}")
    check.expect(seen["island"], "the island's rectangle is not black")
    check.expect(all(seen["islandCorners"]), "the island's corners are black: not a capsule")
    check.expect(ISLAND["y"] + ISLAND["height"] < frame["y"], "the island is not above the pill")
    check.expect(seen["gap"] == "other", f"below the island, above the pill: {seen['gap']}")
    check.note(f"pill {width}×{height} px at scale {scale:.3f}")


def bounce(check, context):
    """showStyle bounce: the page draws the pill where the server's ease-out bounce puts it."""
    server = context.server({"device": "iphone-15-pro", "showStyle": "bounce"})
    browser = open_preview(context, server)
    server.post("Bouncing in", "info")
    elapsed = 0
    for step in [0.1, 0.2, 0.2, 0.1, 0.1]:
        server.advance(step)
        elapsed += step
        overlay = expect_drawn(check, context, browser, server, f"bounce-{elapsed:.1f}")
        check.expect(overlay["animation"] and overlay["animation"]["curve"] == "easeOutBounce",
                     f"not a bounce at {elapsed:.1f} s: {overlay['animation']}")


def touch(check, context):
    """With a token (from the fragment): pressing the pill holds it, lifting releases it, swiping it
    up dismisses the message; each reaches the server."""
    token = "touch-token-1"
    server = context.server(env={"OVERLAYD_TOKEN": token}, config={"device": "iphone-15-pro"})
    browser = open_preview(context, server, "#token=" + token)
    held = server.post("Hold me", "info")
    server.advance(1)
    settle(browser, server)
    pill = shadow_part(browser, "pill")
    ActionChains(browser.driver).move_to_element(pill).click_and_hold().perform()
    context.wait_until(lambda: server.overlay()["touch"] is not None, check, "the hold")
    # The message's time runs out during the hold: it stays until the release.
    server.advance(10)
    check.expect(server.json("GET", f"/messages/{held['id']}")["state"] == "showing", "the held message ended")
    context.screenshot(browser, "touch-held")
    ActionChains(browser.driver).release().perform()
    context.wait_until(lambda: server.overlay()["touch"] is None, check, "the release")
    context.wait_until(lambda: server.json("GET", f"/messages/{held['id']}")["state"] != "showing", check,
                       "the held message to end at the release")
    swiped = server.post("Swipe me away", "sending")
    server.advance(1)
    settle(browser, server)
    pill = shadow_part(browser, "pill")
    chain = ActionChains(browser.driver).move_to_element(pill).click_and_hold()
    for _ in range(4):
        chain.move_by_offset(0, -10)
    chain.release().perform()
    context.wait_until(lambda: server.json("GET", f"/messages/{swiped['id']}")["state"] == "dismissed", check,
                       "the swipe's dismiss")
    context.wait_until(lambda: server.overlay()["touch"] is None, check, "the release after the swipe")
    context.expect_console(check, [])


FONT = """
await document.fonts.ready;
const screen = part('screen');
const scale = Number(screen.dataset.scale);
const width = (id) => { const range = document.createRange(); range.selectNodeContents(part(id)); return range.getBoundingClientRect().width / scale; };
return {
  faces: Array.from(document.fonts).map((f) => [f.family, f.status]),
  resources: performance.getEntriesByType('resource').map((r) => r.name),
  label: width('label-text'), subtitle: width('subtitle-text'),
  family: getComputedStyle(part('label')).fontFamily,
};
"""


def font(check, context):
    """The page draws its texts in the font the server measured with, loaded from overlayd itself:
    each text's drawn width is its textWidth."""
    server = context.server({"device": "iphone-15-pro", "presentation": "fullWidth"})
    browser = open_preview(context, server)
    server.post("Measured in the very font", "info", subtitle="and drawn in it")
    server.advance(1)
    overlay, _ = settle(browser, server)
    seen = browser.run_async(view_script() + FONT)
    check.expect(['"overlayd-text"', "loaded"] in seen["faces"] or ["overlayd-text", "loaded"] in seen["faces"],
                 f"the font is not loaded: {seen['faces']}")
    check.expect(server.origin + "/preview/font" in seen["resources"], f"not fetched from overlayd: {seen['resources']}")
    others = [r for r in seen["resources"] if not r.startswith(server.origin + "/")]
    check.expect(others == [], f"requests to other hosts: {others}")
    # Chromium lays text out in 1/64 px: the widths agree to that.
    check.close(seen["label"], overlay["label"]["textWidth"], 0.05, "the label's drawn width against textWidth")
    check.close(seen["subtitle"], overlay["subtitle"]["textWidth"], 0.05, "the subtitle's drawn width")
    context.screenshot(browser, "font-full-width")
    # So the page cuts a text short (with an ellipsis) exactly when the server says it is truncated.
    for text in ["A label far too long to fit on one line of the bar, however narrow its font is", "Fits"]:
        server.post(text, "info", immediate=True)
        server.advance(1)
        overlay, _ = settle(browser, server)
        cut = browser.run(view_script() + "const t = part('label-text'); return t.scrollWidth > t.clientWidth")
        check.expect(cut == overlay["label"]["truncated"], f"{text!r}: cut {cut}, truncated {overlay['label']['truncated']}")
        context.screenshot(browser, "font-truncated" if overlay["label"]["truncated"] else "font-fits")


def gallery(check, context):
    """Every drawn step checked against the JSON, and a screenshot of each for a person to look at:
    iphone-15-pro, iphone-14 and ipad, upright and on the side, with a subtitle and an icon, then
    with progress."""
    server = context.server({"device": "iphone-15-pro"})
    browser = open_preview(context, server)
    for device in ["iphone-15-pro", "iphone-14", "ipad"]:
        server.json("PUT", "/device", {"device": device})
        for orientation in ["portrait", "landscapeLeft"]:
            server.json("PUT", "/orientation", {"orientation": orientation})
            server.advance(2)
            server.post("Photo uploaded", "sent", subtitle="IMG_2041.HEIC · 2.4 MB", icon="✓", immediate=True)
            server.advance(1)
            expect_drawn(check, context, browser, server, f"{device}-{orientation}-subtitle")
            server.post("Downloading Podcast 128", "progress", progress=0.6, key="dl", immediate=True)
            server.advance(1)
            expect_drawn(check, context, browser, server, f"{device}-{orientation}-progress")


SCENARIOS = [island_and_pill, bounce, touch, font, gallery]
