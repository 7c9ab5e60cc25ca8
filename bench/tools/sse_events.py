"""Opens K event streams, then sends N POSTs, each one waited for on every stream.

For counting what a stream event costs the server: run overlayd under callgrind (with
`--ephemeral --clock manual` and a config with `"writesPerSecond": 0`), run this with N and then
with a larger N, and divide the difference of the two totals by K times the difference of the
Ns. The server runs under valgrind, so speed does not matter here, only that every stream has
received every event.
"""
import argparse
import socket
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("streams", type=int, help="K: event streams held open")
parser.add_argument("posts", type=int, help="N: POSTs, each waited for on every stream")
args = parser.parse_args()

HOST = b"Host: 127.0.0.1\r\n"  # a loopback name: overlayd answers others 403 (DNS rebinding)
EVENT_ID = b"\nid: "


def connect():
    return socket.create_connection(("127.0.0.1", args.port), timeout=60)


def post():
    """One message that replaces the shown one: one new version, one event on every stream."""
    body = b'{"text":"hello","immediate":true}'
    with connect() as connection:
        connection.sendall(b"POST /messages HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                           b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        while connection.recv(65536):
            pass


class Stream:
    """An open `GET /events`, counting the events (their `id:` lines) it has received."""

    def __init__(self):
        self.connection = connect()
        self.connection.sendall(b"GET /events HTTP/1.1\r\n" + HOST + b"Accept: text/event-stream\r\n\r\n")
        self.events = 0
        # The end of what came before, so that an `id:` line cut between two reads is counted.
        self.tail = b""

    def wait_for(self, events):
        while self.events < events:
            received = self.connection.recv(65536)
            if not received:
                sys.exit("an event stream closed")
            data = self.tail + received
            self.events += data.count(EVENT_ID)
            self.tail = data[-(len(EVENT_ID) - 1):]


deadline = time.monotonic() + 120
while True:
    try:
        connect().close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("no server on port %d" % args.port)
        time.sleep(0.2)

post()  # a message shown first: every later POST replaces it
streams = [Stream() for _ in range(args.streams)]
for stream in streams:
    stream.wait_for(1)
for index in range(args.posts):
    post()
    for stream in streams:
        stream.wait_for(index + 2)
print("ok", args.streams, args.posts)
