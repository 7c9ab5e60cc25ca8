"""Scenarios of overlayd and other web pages: CORS from a second origin, forged writes that must
create nothing, the preview's own controls, and tokens."""

import re

from drawing import open_preview

FETCH_OVERLAY = """
const [target] = args;
const response = await fetch(target + '/overlay', {cache: 'no-store'});
return {status: response.status, etag: response.headers.get('ETag'), body: await response.json()};
"""

EVENT_SOURCE = """
const [target] = args;
return await new Promise((resolve) => {
  const source = new EventSource(target + '/events');
  const timer = setTimeout(() => { source.close(); resolve({error: 'no event in 4 s'}); }, 4000);
  source.addEventListener('overlay', (event) => {
    clearTimeout(timer); source.close();
    resolve({id: event.lastEventId, version: JSON.parse(event.data).version});
  });
  source.onerror = () => { clearTimeout(timer); source.close(); resolve({error: 'the stream failed'}); };
});
"""

POST_JSON = """
const [target, token, text] = args;
const headers = {'Content-Type': 'application/json'};
if (token) headers.Authorization = 'Bearer ' + token;
const response = await fetch(target + '/messages', {method: 'POST', headers, body: JSON.stringify({text, kind: 'failed'})});
const body = await response.json();
return {status: response.status, location: response.headers.get('Location'), code: body.error && body.error.code};
"""

NO_CORS_POST = """
const [target] = args;
await fetch(target + '/messages', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
  body: '{"text": "forged no-cors", "kind": "failed"}'});
return 'sent';
"""

FORM_POST = """
const [target] = args;
const form = document.createElement('form');
form.method = 'POST';
form.action = target + '/messages';
form.target = 'sink';
for (const [name, value] of [['text', 'forged form'], ['kind', 'failed']]) {
  const input = document.createElement('input');
  input.name = name;
  input.value = value;
  form.appendChild(input);
}
document.body.appendChild(form);
const loaded = new Promise((resolve) => document.getElementById('sink').addEventListener('load', resolve, {once: true}));
form.submit();
await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, 3000))]);
return 'submitted';
"""


def messages(server):
    return server.json("GET", "/messages")["messages"]


def cors_default(check, context):
    """`*`: another site reads /overlay (with its ETag) and /events; its JSON POST is preflighted
    and, with no token, refused 403 in words it can read; with a token it is accepted."""
    server = context.server({"accessLog": True})
    other = context.second_origin()
    browser = context.browser
    browser.open(f"http://127.0.0.1:{other.port}/")
    read = browser.run_async(FETCH_OVERLAY, server.origin)
    check.expect(read.get("status") == 200 and read.get("etag", "").startswith('W/"'), f"fetch /overlay: {read}")
    stream = browser.run_async(EVENT_SOURCE, server.origin)
    check.expect("version" in stream, f"EventSource /events: {stream}")
    refused = browser.run_async(POST_JSON, server.origin, None, "from another site")
    check.expect(refused.get("status") == 403 and refused.get("code") == "origin_not_allowed",
                 f"a JSON POST from another site without a token: {refused}")
    check.expect(messages(server) == [], "a message was created")
    server.log.flush()
    server.log.seek(0)
    check.expect(re.search(r"access method=OPTIONS path=/messages status=204", server.log.read()),
                 "the JSON POST was not preflighted")
    context.expect_console(check, [r"/messages - Failed to load resource: the server responded with a status of 403"])

    token = "browser-test-token"
    with_token = context.server(env={"OVERLAYD_TOKEN": token})
    posted = browser.run_async(POST_JSON, with_token.origin, token, "with a token")
    check.expect(posted.get("status") == 202 and posted.get("location") == "/messages/1",
                 f"a JSON POST with the token from another site: {posted}")
    check.expect([m["text"] for m in messages(with_token)] == ["with a token"], "the message is not there")


def cors_listed(check, context):
    """A list of origins: a listed one reads and writes without a token; another origin (the same
    site by another name) is refused by the browser."""
    other = context.second_origin()
    listed = f"http://127.0.0.1:{other.port}"
    server = context.server({"cors": {"allowOrigins": [listed]}})
    browser = context.browser
    browser.open(listed + "/")
    read = browser.run_async(FETCH_OVERLAY, server.origin)
    check.expect(read.get("status") == 200 and read.get("etag"), f"listed origin, fetch /overlay: {read}")
    posted = browser.run_async(POST_JSON, server.origin, None, "from a listed site")
    check.expect(posted.get("status") == 202, f"listed origin, JSON POST: {posted}")
    browser.open(f"http://localhost:{other.port}/")
    refused = browser.run_async(FETCH_OVERLAY, server.origin)
    check.expect("thrown" in refused, f"an unlisted origin read /overlay: {refused}")
    stream = browser.run_async(EVENT_SOURCE, server.origin)
    check.expect(stream.get("error"), f"an unlisted origin read /events: {stream}")
    check.expect(len(messages(server)) == 1, "messages other than the listed origin's exist")
    context.expect_console(check, [r"has been blocked by CORS policy", r"net::ERR_FAILED", r"EventSource"])


def cors_none(check, context):
    """`[]`: no CORS header at all, so another site cannot read."""
    server = context.server({"cors": {"allowOrigins": []}})
    status, headers, _ = server.request("GET", "/overlay", headers={"Origin": "http://elsewhere.test"})
    cors = [name for name in headers if name.lower().startswith("access-control-")]
    check.expect(status == 200 and cors == [], f"headers {cors} with cors.allowOrigins []")
    status, headers, _ = server.request("OPTIONS", "/messages", headers={"Origin": "http://elsewhere.test"})
    cors = [name for name in headers if name.lower().startswith("access-control-")]
    check.expect(status == 204 and cors == [], f"preflight headers {cors} with cors.allowOrigins []")
    other = context.second_origin()
    context.browser.open(f"http://127.0.0.1:{other.port}/")
    refused = context.browser.run_async(FETCH_OVERLAY, server.origin)
    check.expect("thrown" in refused, f"another site read /overlay: {refused}")
    context.expect_console(check, [r"has been blocked by CORS policy", r"net::ERR_FAILED"])


def forge(browser, target):
    return [browser.run_async(NO_CORS_POST, target), browser.run_async(FORM_POST, target),
            browser.run_async(POST_JSON, target, None, "forged JSON")]


def forged_writes(check, context):
    """Pages of another port, and of a name that resolves to 127.0.0.1 (DNS rebinding), try the
    three writes a page can make; none creates a message. The preview still writes; curl too."""
    server = context.server()
    other = context.second_origin()
    browser = context.browser
    version = server.overlay()["version"]
    browser.open(f"http://127.0.0.1:{other.port}/")
    results = forge(browser, server.origin)
    check.expect(results[2].get("code") == "origin_not_allowed", f"JSON POST from another port: {results[2]}")
    browser.open(f"http://evil.test:{other.port}/")
    rebound = f"http://evil.test:{server.port}"
    results = forge(browser, rebound)
    check.expect("thrown" in results[2], f"JSON POST through a rebound name: {results[2]}")
    results = forge(browser, server.origin)
    check.expect(results[2].get("code") == "origin_not_allowed", f"JSON POST from evil.test: {results[2]}")
    browser.open(rebound + "/preview")
    page = browser.run("return document.body.textContent")
    check.expect("host_not_allowed" in page, f"the preview through a rebound name: {page[:200]}")
    check.expect(messages(server) == [] and server.overlay()["version"] == version,
                 f"a forged write got through: {messages(server)}")
    context.expect_console(check, [r"status of 403", r"blocked by CORS policy", r"net::ERR_FAILED"])

    browser = open_preview(context, server)
    browser.run("document.getElementById('text').value = 'From the preview';"
                "document.querySelector('[data-kind=sent]').click()")
    context.wait_until(lambda: [m["text"] for m in messages(server)] == ["From the preview"], check,
                       "the preview's own POST")
    status, _, posted = server.request("POST", "/messages", {"text": "from curl"})
    check.expect(status == 202, f"a POST without Origin (curl) answered {status}: {posted}")
    context.expect_console(check, [])


def controls(check, context):
    """Every control of the page does what it says, and the server's errors show in words."""
    server = context.server()
    browser = open_preview(context, server)
    browser.run("document.getElementById('text').value = 'Uploading…';"
                "document.querySelector('[data-kind=sending]').click()")
    context.wait_until(lambda: [m["kind"] for m in messages(server)] == ["sending"], check, "post sending")
    browser.run("document.querySelector('[data-advance=\"0.25\"]').click()")
    context.wait_until(lambda: server.json("GET", "/clock")["now"] == 0.25, check, "the clock stepper")
    browser.wait_for("return document.getElementById('clock-now').textContent === 't = 0.25 s'", what="t = 0.25")
    browser.run("document.querySelector('[data-orientation=landscapeLeft]').click()")
    # The new orientation applies once the fade out is over: the clock has to move for that.
    context.wait_until(lambda: server.overlay()["phase"] == "rotatingOut", check, "rotate left")
    server.advance(1)
    check.expect(server.overlay()["orientation"] == "landscapeLeft", "the rotation went elsewhere")
    browser.run("document.querySelector('[data-device=iphone]').click()")
    context.wait_until(lambda: server.overlay()["device"] == "iphone", check, "pick the iphone")
    browser.run("const s = document.getElementById('progress'); s.value = 40;"
                "s.dispatchEvent(new Event('input'))")
    context.wait_until(
        lambda: any(m["key"] == "preview-progress" and m["progress"] == 0.4 for m in messages(server)), check,
        "the progress slider")
    server.advance(5)
    shown = server.overlay()["message"]
    browser.wait_for(f"return document.querySelector('overlayd-overlay').overlay.version === {server.overlay()['version']}")
    browser.run("document.getElementById('delete').click()")
    context.wait_until(lambda: server.json("GET", f"/messages/{shown['id']}")["state"] in ("done", "cancelled"),
                       check, "delete the shown message")
    browser.run("document.querySelector('[data-style=darkContent]').click()")
    context.wait_until(lambda: server.overlay()["statusBar"]["style"] == "darkContent", check, "dark content")
    context.expect_console(check, [])
    context.screenshot(browser, "controls")


def scheduled(check, context):
    """The post form's delay and priority: a delayed message waits as scheduled, counted in the
    readout, and joins the queue at its time; a prioritised one goes ahead of an earlier one; a
    bad delay shows the server's refusal in words and posts nothing."""
    server = context.server({"device": "iphone"})
    browser = open_preview(context, server)
    # A sticky message stays shown, so that the others wait in the queue behind it.
    server.post("Uploading 3 photos…", "sending")
    server.advance(1)
    browser.run("document.getElementById('text').value = 'Stand-up';"
                "document.getElementById('delay-input').value = '2m';"
                "document.querySelector('[data-kind=info]').click()")
    context.wait_until(lambda: server.overlay()["scheduled"] == 1, check, "the delayed POST")
    listed = server.json("GET", "/messages?state=scheduled")["messages"]
    check.expect([(m["text"], m["state"], m["scheduledFor"]) for m in listed] == [("Stand-up", "scheduled", 121)],
                 f"the page's delay did not schedule it two minutes ahead: {listed}")
    check.expect(messages(server)[1:] == [], f"the delayed message is in the queue: {messages(server)}")
    browser.wait_for("return / · 0 queued · 1 scheduled/.test(document.getElementById('readout').textContent)",
                     what="1 scheduled in the readout")

    server.post("Queued first", "info")
    browser.run("document.getElementById('delay-input').value = '';"
                "document.getElementById('text').value = 'Disk almost full';"
                "document.getElementById('priority-input').value = 'max';"
                "document.querySelector('[data-kind=info]').click()")
    context.wait_until(lambda: [m["text"] for m in messages(server)] == [
        "Uploading 3 photos…", "Disk almost full", "Queued first"], check, "the prioritised POST ahead of the queue")
    check.expect([m["priority"] for m in messages(server)] == [3, 5, 3],
                 f"priorities: {[m['priority'] for m in messages(server)]}")
    browser.wait_for("return / · 2 queued · 1 scheduled/.test(document.getElementById('readout').textContent)",
                     what="2 queued and 1 scheduled in the readout")
    # The readout is below the controls: in view, the screenshot shows the count.
    browser.run("document.getElementById('readout').scrollIntoView()")
    context.screenshot(browser, "scheduled-and-prioritised")

    before = (messages(server), server.json("GET", "/messages?state=scheduled")["messages"])
    browser.run("document.getElementById('delay-input').value = '5x';"
                "document.querySelector('[data-kind=info]').click()")
    browser.wait_for("return /400 bad_request: delay must be/.test(document.getElementById('error').textContent)",
                     what="the refused delay in words")
    context.expect_console(check, [r"/messages - Failed to load resource: the server responded with a status of 400"])
    after = (messages(server), server.json("GET", "/messages?state=scheduled")["messages"])
    check.expect(after == before, "a refused delay changed the messages")

    server.advance(120)
    browser.wait_for("return / · 3 queued · 0 scheduled/.test(document.getElementById('readout').textContent)",
                     what="the scheduled message in the queue at its time")
    check.expect(messages(server)[-1]["text"] == "Stand-up", f"not queued at its time: {messages(server)}")


def tokens(check, context):
    """A wrong token in the fragment shows "unauthorized"; the right one draws and writes."""
    env = {"OVERLAYD_TOKEN": "write-token-123", "OVERLAYD_READ_TOKEN": "read-token-456"}
    server = context.server(env=env)
    browser = context.browser
    browser.open(server.origin + "/preview#token=wrong-token")
    browser.wait_for("return document.getElementById('conn').textContent === 'unauthorized'", what="unauthorized")
    check.expect("unauthorized" in browser.run("return document.getElementById('error').textContent"),
                 "the page does not say why")
    context.screenshot(browser, "wrong-token")
    context.expect_console(check, [r"status of 401", r"EventSource"])
    browser.open("about:blank")
    open_preview(context, server, "#token=write-token-123")
    browser.run("document.querySelector('[data-kind=info]').click()")
    context.wait_until(lambda: len(messages(server)) == 1, check, "a POST with the token")
    context.expect_console(check, [])


SCENARIOS = [cors_default, cors_listed, cors_none, forged_writes, controls, scheduled, tokens]
