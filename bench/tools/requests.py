"""Sends N requests of one kind over one keep-alive connection, once the server answers.

Used by bench/instructions: the server runs under valgrind, so speed does not matter here, only
that exactly N requests of the kind are answered.
"""
import argparse
import http.client
import os
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--kind", choices=["get", "get304", "post", "keyed", "hidden", "token", "fanout"], required=True)
parser.add_argument("--count", type=int, required=True)
parser.add_argument("--server", choices=["overlayd", "baseline"], required=True)
parser.add_argument("--admin", help="token: overlayd's configured token, which makes the tokens")
parser.add_argument("--tokens", type=int, default=10000, help="token: how many tokens to make first")
parser.add_argument("--waiters", type=int, default=100, help="fanout: long-polls answered by each POST")
parser.add_argument("--instr-on", type=int, metavar="PID",
                    help="callgrind runs the server with --instr-atstart=no: count from the first request")
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


# "token": the bearer of the last of --tokens tokens made through POST /tokens (bench/tools/tokens.py).
# The baseline ignores the header; it gets a secret of the same length.
bearer = {}
if args.kind == "token":
    secret = "ovl_" + "x" * 40
    if args.server == "overlayd":
        made = subprocess.run(
            [sys.executable, os.path.join(os.path.dirname(__file__), "tokens.py"), "--port", str(args.port),
             "--admin", args.admin, "--count", str(args.tokens)], check=True, capture_output=True, text=True)
        secret = made.stdout.strip()
        # Under valgrind that took longer than the server's 30 s idle timeout: a new connection.
        connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=30)
    bearer = {"Authorization": "Bearer " + secret}

# The same overlay state for both: overlayd shows a sticky message after its slide-in (for
# "keyed", the progress message the requests update; for "hidden" and "token", nothing, as in
# bench/run's get_hidden and get_token).
if args.server == "overlayd" and args.kind not in ("hidden", "token"):
    shown = keyed(0) if args.kind == "keyed" else '{"kind":"sending","text":"Sending\u2026"}'
    connection.request("POST", "/messages", body=shown.encode(), headers={"Content-Type": "application/json"})
    connection.getresponse().read()
    connection.request("POST", "/clock", body="1")
    connection.getresponse().read()
connection.request("GET", "/overlay", headers=bearer)
response = connection.getresponse()
response.read()
if response.status != 200:
    sys.exit("bench/tools/requests.py: GET /overlay answered %d" % response.status)
etag = response.getheader("ETag")


def instrument(on):
    subprocess.run(["callgrind_control", "--instr=" + ("on" if on else "off"), str(args.instr_on)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def parked():
    connection.request("GET", "/metrics")
    for line in connection.getresponse().read().decode().splitlines():
        if line.startswith("overlayd_long_poll_waiters"):
            return int(float(line.split()[-1]))
    return 0


# "fanout": each of --count rounds parks --waiters long-polls on their own connections, then one POST
# answers them all. Only the POST and its fan-out are counted (callgrind runs with
# --instr-atstart=no): the parking is the same for every waiter, and the polls of /metrics that
# wait for it vary from run to run.
if args.kind == "fanout":
    waiters = [http.client.HTTPConnection("127.0.0.1", args.port, timeout=60) for _ in range(args.waiters)]
    for n in range(args.count):
        for waiter in waiters:
            waiter.request("GET", "/overlay?wait=60", headers={"If-None-Match": etag})
        while parked() < args.waiters:
            time.sleep(0.05)
        instrument(True)
        connection.request(
            "POST", "/messages", body='{"text":"hello %d","immediate":true}' % n,
            headers={"Content-Type": "application/json"})
        connection.getresponse().read()
        for waiter in waiters:
            answer = waiter.getresponse()
            answer.read()
            etag = answer.getheader("ETag")
        instrument(False)
    sys.exit(0)

if args.instr_on:
    instrument(True)

for n in range(args.count):
    if args.kind in ("get", "hidden", "token"):
        connection.request("GET", "/overlay", headers=bearer)
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
