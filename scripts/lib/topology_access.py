"""Access control in the scaled-out topology (docs/ACCESS.md, docs/SCALING.md): the instances'
`access` settings, HS256 JWTs made with the standard library alone (CI installs no JWT library for
this), and the check that nchan lets a subscriber in only when overlayd's GET /auth does."""
import base64
import hashlib
import hmac
import json
import os
import secrets
import time

from topology import EventReader, request
from topology_check import Failure, expect


def access_settings(key):
    """The instances' `access`: JWTs signed with `key`; anonymous everywhere but `private-*`."""
    return {"jwt": {"algorithm": "HS256", "key": key},
            "anonymous": [{"channels": "*", "access": "read-write"}, {"channels": "private-*", "access": "deny"}]}


def jwt_key(topology):
    return topology.instance_settings["access"]["jwt"]["key"]


def jwt(key, grants, lifetime=600, subject="topology"):
    """An HS256 JWT (RFC 7519) with overlayd's `grants` claim, by the standard library alone."""
    def part(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    def encoded(value):
        return part(json.dumps(value, separators=(",", ":")).encode())

    claims = {"sub": subject, "exp": int(time.time()) + lifetime, "overlayd": grants}
    signed = f"{encoded({'alg': 'HS256', 'typ': 'JWT'})}.{encoded(claims)}"
    signature = hmac.new(key.encode(), signed.encode(), hashlib.sha256).digest()
    return f"{signed}.{part(signature)}"



def subscriber_access(topology, say):
    """nchan lets a subscriber in only when overlayd's GET /auth does (deploy/nginx/overlayd.conf):
    anonymous may not read `private-*` here (access_settings), a JWT that grants it may."""
    say("subscribers through nchan are let in by overlayd's /auth: private-* takes a JWT that grants it")
    key = jwt_key(topology)
    reader = jwt(key, {"read": ["private-*"]}, subject="reader")
    writer = jwt(key, {"write": ["private-*"]}, subject="writer")
    elsewhere = jwt(key, {"read": ["ch-*"]}, subject="elsewhere")
    forged = jwt(secrets.token_urlsafe(32), {"read": ["private-*"]}, subject="forged")
    channel = "private-x"
    event_stream = {"Accept": "text/event-stream"}
    websocket = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                 "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode()}
    subscribers = [("EventSource", f"/channels/{channel}/events", event_stream),
                   ("EventSource", f"/events?channel={channel}", event_stream),
                   ("long-poll", f"/channels/{channel}/subscribe", {}),
                   ("WebSocket", f"/channels/{channel}/subscribe", websocket)]
    # (what, Authorization, ?auth=, status, overlayd's error code, WWW-Authenticate)
    refusals = [("no credential", None, None, 401, "unauthorized", 'Bearer realm="overlayd"'),
                ("a JWT for other channels", elsewhere, None, 403, "forbidden",
                 'Bearer realm="overlayd", error="insufficient_scope"'),
                ("a JWT with a bad signature", forged, None, 401, "invalid_token",
                 'Bearer realm="overlayd", error="invalid_token"'),
                ("?auth= with a bad signature", None, forged, 401, "invalid_token",
                 'Bearer realm="overlayd", error="invalid_token"')]
    tried = 0
    for what, credential, auth, status, code, challenge in refusals:
        for kind, path, headers in subscribers:
            front = tried % topology.front_count
            tried += 1
            if auth:
                path += ("&" if "?" in path else "?") + f"auth={auth}"
            if credential:
                headers = {**headers, "Authorization": f"Bearer {credential}"}
            where = f"{kind} {path.split('auth=')[0]} on front {front + 1} with {what}"
            try:
                got, answer, body = request(topology.front_ports[front], "GET", path, headers=headers)
            except TimeoutError:
                raise Failure(f"{where}: no answer ended within 10 s: subscribed, not refused?")
            expect(got == status, f"{where}: {got} {body[:200]}, not {status}")
            expect(answer.get("content-type", "").startswith("application/json"),
                   f"{where}: Content-Type {answer.get('content-type')}, not overlayd's JSON")
            error = json.loads(body).get("error", {})
            expect(error.get("code") == code, f"{where}: error {error}, not {code}")
            expect(answer.get("www-authenticate") == challenge,
                   f"{where}: WWW-Authenticate {answer.get('www-authenticate')}, not {challenge}")
    say(f"   {tried} subscribers refused with overlayd's answer: 401 unauthorized without a credential,"
        " 403 forbidden with a JWT for other channels, 401 invalid_token with a bad signature")

    front, other = topology.front_ports[0], topology.front_ports[-1]
    status, _, body = request(front, "POST", f"/channels/{channel}/messages", body="anonymous")
    expect(status == 401, f"anonymous write to {channel}: {status} {body[:200]}, not 401")
    with_header = EventReader(front, f"/channels/{channel}/events", headers={"Authorization": f"Bearer {reader}"})
    with_header.start()
    with_query = EventReader(other, f"/channels/{channel}/events?auth={reader}")
    with_query.start()
    try:
        with_header.opened.wait(20)
        expect(with_header.status == 200, f"EventSource with a reader's JWT: {with_header.status}")
        with_query.opened.wait(20)
        expect(with_query.status == 200, f"EventSource with ?auth= a reader's JWT: {with_query.status}")
        status, _, body = request(front, "POST", f"/channels/{channel}/messages",
                                  body=json.dumps({"text": "private", "kind": "info", "duration": 0.3}),
                                  headers={"Content-Type": "application/json", "Authorization": f"Bearer {writer}"})
        expect(status == 202, f"write to {channel} with a writer's JWT: {status} {body[:200]}")
        status, _, body = request(other, "GET", f"/channels/{channel}/overlay",
                                  headers={"Authorization": f"Bearer {reader}"})
        expect(status == 200, f"GET /channels/{channel}/overlay with a reader's JWT: {status} {body[:200]}")
        current = json.loads(body)["version"]
        expect(with_header.wait_for(current, 20),
               f"EventSource with a reader's JWT: never got version {current}; got {with_header.versions()[-5:]}")
        expect(with_query.wait_for(current, 20),
               f"EventSource with ?auth=: never got version {current}; got {with_query.versions()[-5:]}")
        status, _, body = request(other, "GET", f"/channels/{channel}/subscribe",
                                  headers={"Authorization": f"Bearer {reader}"})
        expect(status == 200 and json.loads(body).get("version") is not None,
               f"long-poll with a reader's JWT: {status} {body[:200]}")
    finally:
        with_header.close()
        with_query.close()
    say("   served with a reader's JWT: an EventSource with it in Authorization (front 1) and in ?auth="
        f" (front {topology.front_count}) got the version after a write with a writer's JWT, and a long-poll"
        " its first message; anonymous writes there are 401")

    # The front asks the instance of `default`; without it, the next one in the ring answers alike.
    _, answer, _ = request(front, "GET", "/overlay")
    asked = topology.instance_of(answer["x-overlayd-instance"])
    topology.kill_instance(asked)
    try:
        for what, headers, status in [("a reader's JWT", {"Authorization": f"Bearer {reader}"}, 200),
                                      ("no credential", {}, 401)]:
            got, _, body = request(other, "GET", f"/channels/{channel}/subscribe", headers=headers)
            expect(got == status, f"long-poll with {what} while instance {topology.names[asked]} (of default)"
                   f" is down: {got} {body[:200]}, not {status}")
    finally:
        topology.start_instance(asked)
    say(f"   with instance {topology.names[asked]} (the one /auth goes to) killed, another answered /auth alike")
    crashes = topology.worker_crashes()
    expect(not crashes, f"nginx workers died: {crashes[:3]}")


