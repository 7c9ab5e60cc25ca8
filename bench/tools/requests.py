"""Sends N requests of one kind over one keep-alive connection, once the server answers.

Used by bench/instructions: the server runs under valgrind, so speed does not matter here, only
that exactly N requests of the kind are answered.
"""
import argparse
import http.client
import time

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--kind", choices=["get", "get304", "post", "keyed"], required=True)
parser.add_argument("--count", type=int, required=True)
parser.add_argument("--server", choices=["overlayd", "baseline"], required=True)
args = parser.parse_args()

deadline = time.time() + 60
while True:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=30)
        connection.request("GET", "/healthz" if args.server == "overlayd" else "/overlay")
        connection.getresponse().read()
        break
    except OSError:
        if time.time() > deadline:
            raise
        time.sleep(0.1)


def keyed(progress):
    """What bench/wrk/progress.lua sends: a download's progress, by its key."""
    return '{"key":"dl-7","kind":"progress","text":"Downloading","progress":0.%04d}' % (progress % 10000)


# The same overlay state for both: overlayd shows a sticky message after its slide-in (for
# "keyed", the progress message the requests update).
if args.server == "overlayd":
    shown = keyed(0) if args.kind == "keyed" else '{"kind":"sending","text":"Sending\u2026"}'
    connection.request("POST", "/messages", body=shown.encode(), headers={"Content-Type": "application/json"})
    connection.getresponse().read()
    connection.request("POST", "/clock", body="1")
    connection.getresponse().read()
connection.request("GET", "/overlay")
response = connection.getresponse()
response.read()
etag = response.getheader("ETag")

for n in range(args.count):
    if args.kind == "get":
        connection.request("GET", "/overlay")
    elif args.kind == "get304":
        connection.request("GET", "/overlay", headers={"If-None-Match": etag})
    elif args.kind == "keyed":
        connection.request("POST", "/messages", body=keyed(n + 1), headers={"Content-Type": "application/json"})
    else:
        # What bench/wrk/post.lua sends.
        connection.request(
            "POST", "/messages", body='{"text":"hello","immediate":true}',
            headers={"Content-Type": "application/json"})
    connection.getresponse().read()
