"""Parks N idle readers on a running overlayd and prints the server's memory per reader.

Used by bench/reader-memory. Each reader is its own connection: an event stream (`GET /events`,
its first event read) or a long-poll (`GET /overlay?wait=W&since=V` with the current version V,
so it waits). Once the server reports all N parked (/metrics), the server's VmRSS is read and
compared with its VmRSS before the first reader connected.

Output: `key value` lines (readers, rss_before_kb, rss_after_kb, kb_per_reader).
"""
import argparse
import http.client
import re
import selectors
import socket
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--pid", type=int, required=True)
parser.add_argument("--kind", choices=["events", "longpoll"], required=True)
parser.add_argument("--readers", type=int, default=10000)
parser.add_argument("--wait", type=int, default=55)
args = parser.parse_args()


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise SystemExit("no VmRSS")


def get(path):
    connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=30)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


def metric(name):
    _, body = get("/metrics")
    match = re.search(rf"^{name}(?:{{[^}}]*}})? (\d+)", body.decode(), re.MULTILINE)
    return int(match.group(1)) if match else 0


# Warm up: a few requests and readers come and go, so that thread caches and the first pages of
# every pool the server keeps exist before the baseline is read.
for _ in range(50):
    get("/overlay")
version = int(get("/overlay")[0].getheader("ETag").strip('W/"'))
path = "/events" if args.kind == "events" else f"/overlay?wait={args.wait}&since={version}"
request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
time.sleep(0.5)
before = rss_kb(args.pid)

sockets = []
selector = selectors.DefaultSelector()
for index in range(args.readers):
    s = socket.create_connection(("127.0.0.1", args.port))
    s.sendall(request)
    s.setblocking(False)
    sockets.append(s)
    if args.kind == "events":
        selector.register(s, selectors.EVENT_READ)
    if index % 500 == 499:
        # Read what has come (the event streams' first events) so that no reader is behind.
        for key, _ in selector.select(timeout=0):
            try:
                key.fileobj.recv(65536)
            except BlockingIOError:
                pass

gauge = "overlayd_event_streams" if args.kind == "events" else "overlayd_long_poll_waiters"
deadline = time.time() + 60
while metric(gauge) < args.readers:
    if time.time() > deadline:
        raise SystemExit(f"only {metric(gauge)} of {args.readers} readers parked")
    for key, _ in selector.select(timeout=0.2):
        try:
            key.fileobj.recv(65536)
        except BlockingIOError:
            pass
# Drain the last first events, then let the server settle.
end = time.time() + 1
while time.time() < end:
    for key, _ in selector.select(timeout=0.1):
        try:
            key.fileobj.recv(65536)
        except BlockingIOError:
            pass
after = rss_kb(args.pid)
print(f"readers {args.readers}")
print(f"rss_before_kb {before}")
print(f"rss_after_kb {after}")
print(f"kb_per_reader {(after - before) / args.readers:.2f}")
for s in sockets:
    s.close()
sys.stdout.flush()
