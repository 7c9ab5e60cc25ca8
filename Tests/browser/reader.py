"""Scenarios of the reader's side (docs/MODEL.md §14) on the preview page: the rise half way in each
presentation, checked against the JSON and clipped to the content area; the history drawer a tap
on the status bar opens."""

from selenium.webdriver.common.action_chains import ActionChains

from drawing import expect_drawn, open_preview, settle


def clip_of(text):
    """The top and bottom insets of an `inset(…)` clip-path, in CSS pixels; None for `none`."""
    if not text or not text.startswith("inset("):
        return None
    values = [float(v.rstrip("px")) for v in text[len("inset("):-1].split()]
    return values[0], values[2] if len(values) > 2 else values[0]


def leave(context):
    """The page closed before its server stops: a page still reading the manual clock would log
    the refused connection as an error."""
    context.browser.open("about:blank")
    context.stop_all()


def rise_halfway(check, context):
    """"Uploading photo…" rises out as "Photo uploaded" rises in: half way (0.3 s of 0.6 s) each
    label has moved Hc/2, both drawn at their JSON frames, each clipped to the content area."""
    cases = [
        ("ipad", None, 20),
        ("iphone-15-pro", "pill", 50),
        ("iphone-15-pro", "fullWidth", 38.66),
        ("iphone-15-pro", "statusBar", 54),
    ]
    for device, presentation, distance in cases:
        config = {"messageChange": "rise", "device": device}
        if presentation:
            config["presentation"] = presentation
        server = context.server(config)
        browser = open_preview(context, server)
        server.post("Uploading photo…", "sending", duration=1)
        server.post("Photo uploaded", "sent", subtitle="IMG_2041.HEIC")
        server.advance(1.25 + 0.3)
        name = f"rise-halfway-{device}" + (f"-{presentation}" if presentation else "")
        overlay = expect_drawn(check, context, browser, server, name)
        animation = overlay["animation"] or {}
        check.expect(animation.get("property") == "labelOffset" and animation.get("from") == distance,
                     f"{name}: not a rise of {distance}: {animation}")
        check.expect(overlay["outgoing"] and overlay["outgoing"]["text"] == "Uploading photo…",
                     f"{name}: no outgoing label: {overlay['outgoing']}")
        drawn = browser.run_async(
            "await new Promise((r) => requestAnimationFrame(r));"
            "const v = document.querySelector('overlayd-overlay').shadowRoot;"
            "return [getComputedStyle(v.getElementById('label')).clipPath,"
            " getComputedStyle(v.getElementById('outgoing')).clipPath];")
        label_clip, outgoing_clip = clip_of(drawn[0]), clip_of(drawn[1])
        # Half way the incoming label sticks out below the content area and the outgoing one above.
        check.expect(label_clip is not None and label_clip[1] > 0, f"{name}: label clip {drawn[0]}")
        check.expect(outgoing_clip is not None and outgoing_clip[0] > 0, f"{name}: outgoing clip {drawn[1]}")
        leave(context)


def ended_five_ways(server):
    """Six messages that end each way there is, the last one shown: done, preempted, cancelled,
    expired, dismissed, then "Last" (done). Returns their texts, the most recently ended first."""
    server.post("Report sent", "sent", duration=0.5)
    server.advance(1)
    server.post("Uploading video…", duration=5)
    server.advance(0.5)
    server.post("Upload failed", "failed", immediate=True, duration=5)
    waiting = server.post("Syncing notes", expires=1)
    cancelled = server.post("Backup queued")
    server.json("DELETE", f"/messages/{cancelled['id']}")
    server.advance(1.5)
    server.json("POST", "/overlay/dismiss")
    server.json("POST", "/overlay/release")
    server.post("Last", duration=0.5)
    # Ended at 4, hidden at 4.25: nothing covers the status bar.
    server.advance(1.5)
    assert waiting["id"] > 0
    return ["Last", "Upload failed", "Syncing notes", "Backup queued", "Uploading video…"]


def history_drawer(check, context):
    """A tap on the device's status bar opens the drawer: the channel's last five ended messages,
    the most recently ended first, each with its kind and how it ended; a second tap closes it."""
    for device in ["iphone-15-pro", "ipad"]:
        server = context.server({"device": device})
        browser = open_preview(context, server)
        expected = ended_five_ways(server)
        ended = server.json("GET", "/messages?state=ended&limit=5")["messages"]
        check.expect([m["text"] for m in ended] == expected, f"{device}: ended {[m['text'] for m in ended]}")
        states = [m["state"] for m in ended]
        check.expect(states == ["done", "dismissed", "expired", "cancelled", "preempted"], f"{device}: {states}")
        bar = browser.driver.find_element("css selector", "overlayd-overlay").shadow_root.find_element(
            "css selector", "#statusbar")
        bar.click()
        browser.wait_for("return document.querySelectorAll('#drawer li').length === 5", what="the drawer's rows")
        rows = browser.run("return [...document.querySelectorAll('#drawer li')].map((li) =>"
                           " [li.querySelector('span').textContent, li.querySelector('small').textContent]);")
        check.expect([r[0] for r in rows] == expected, f"{device}: drawer {rows}")
        check.expect([r[1].split(" · ")[1] for r in rows] == states, f"{device}: drawer states {rows}")
        shown = browser.run("const d = document.getElementById('drawer'); const b = d.getBoundingClientRect();"
                            "return [!d.hidden, b.width > 0 && b.height > 0];")
        check.expect(shown == [True, True], f"{device}: the drawer is not drawn: {shown}")
        context.screenshot(browser, f"history-drawer-{device}")
        bar.click()
        browser.wait_for("return document.getElementById('drawer').hidden", what="the drawer closing")
        leave(context)


def shadow(browser, selector):
    return browser.driver.find_element("css selector", "overlayd-overlay").shadow_root.find_element(
        "css selector", selector)


def actions_and_taps(check, context):
    """Pressing the overlay holds it and shows its message's actions under it; releasing on one
    reports a tap of that action, a short click on the overlay a tap on it; the announcement is in
    the element's live region, once per change."""
    for device, surface in [("iphone-15-pro", "#pill"), ("ipad", "#overlay-bg")]:
        server = context.server({"device": device})
        browser = open_preview(context, server)
        sent = server.post("Upload failed", "failed", subtitle="IMG_2041.HEIC", duration=60, actions=[
            {"id": "retry", "label": "Retry", "url": "https://example.com/retry"},
            {"id": "later", "label": "Later"},
        ])
        server.advance(0.5)
        overlay, _ = settle(browser, server)
        check.expect(overlay["announcement"] == "Failed: Upload failed, IMG_2041.HEIC",
                     f"{device}: announcement {overlay['announcement']!r}")
        browser.wait_for("const v = document.querySelector('overlayd-overlay').shadowRoot;"
                         "return v.getElementById('announcement').textContent === " + repr(overlay["announcement"]),
                         what="the live region")
        live = browser.run("const r = document.querySelector('overlayd-overlay').shadowRoot"
                           ".getElementById('announcement'); return [r.getAttribute('aria-live'), r.textContent];")
        check.expect(live == ["polite", "Failed: Upload failed, IMG_2041.HEIC"], f"{device}: live region {live}")

        ActionChains(browser.driver).move_to_element(shadow(browser, surface)).click_and_hold().perform()
        context.wait_until(lambda: server.overlay()["touch"] is not None, check, "the hold")
        browser.wait_for("const v = document.querySelector('overlayd-overlay').shadowRoot;"
                         "return !v.getElementById('actions').hidden && v.querySelectorAll('[data-action]').length === 2",
                         what="the actions under the overlay")
        labels = browser.run("return [...document.querySelector('overlayd-overlay').shadowRoot"
                             ".querySelectorAll('[data-action]')].map((b) => [b.dataset.action, b.textContent,"
                             " b.getBoundingClientRect().height > 0]);")
        check.expect(labels == [["retry", "Retry", True], ["later", "Later", True]], f"{device}: actions {labels}")
        context.screenshot(browser, f"actions-{device}")
        retry = shadow(browser, '[data-action="retry"]')
        ActionChains(browser.driver).move_to_element(retry).release().perform()
        context.wait_until(lambda: server.json("GET", f"/messages/{sent['id']}")["taps"], check, "the action's tap")
        context.wait_until(lambda: server.overlay()["touch"] is None, check, "the release")
        taps = server.json("GET", f"/messages/{sent['id']}")["taps"]
        check.expect([t["action"] for t in taps] == ["retry"], f"{device}: taps {taps}")
        browser.wait_for("return document.querySelector('overlayd-overlay').shadowRoot"
                         ".getElementById('actions').hidden", what="the actions gone with the hold")

        # A short click on the overlay itself is a tap with no action.
        ActionChains(browser.driver).move_to_element(shadow(browser, surface)).click().perform()
        context.wait_until(lambda: len(server.json("GET", f"/messages/{sent['id']}")["taps"]) == 2, check,
                           "the overlay's tap")
        taps = server.json("GET", f"/messages/{sent['id']}")["taps"]
        check.expect([t["action"] for t in taps] == ["retry", None], f"{device}: taps {taps}")
        # A tap changes no announcement: the region still holds the same version's words.
        after = server.overlay()
        check.expect(after["announcementVersion"] == overlay["announcementVersion"],
                     f"{device}: a tap moved the announcement to {after['announcementVersion']}")
        leave(context)


SCENARIOS = [rise_halfway, history_drawer, actions_and_taps]
