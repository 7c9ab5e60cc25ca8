"""Scenarios of the reader's side (docs/MODEL.md §14) on the preview page: the rise half way in each
presentation, checked against the JSON and clipped to the content area."""

from drawing import expect_drawn, open_preview


def clip_of(text):
    """The top and bottom insets of an `inset(…)` clip-path, in CSS pixels; None for `none`."""
    if not text or not text.startswith("inset("):
        return None
    values = [float(v.rstrip("px")) for v in text[len("inset("):-1].split()]
    return values[0], values[2] if len(values) > 2 else values[0]


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
        context.stop_all()


SCENARIOS = [rise_halfway]
