"""What the test suite no longer measures: how soon overlayd answers, how much it holds.

Used by bench/latency. Each scenario starts its own overlayd (`--ephemeral --clock manual`,
limits raised so that none refuses), drives it over loopback and prints one table row per
figure. The tests assert what happens (every waiter answered with the new version, the slow
reader ends on the current one, the stop answers 503); the times are here, where a loaded
machine makes them slow instead of failing.
"""
import argparse
import atexit
import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--overlayd", required=True)
parser.add_argument("--quick", action="store_true", help="fewer rounds: checks that the script works")
args = parser.parse_args()
ROUNDS = 3 if args.quick else 20


class Server:
    """overlayd on a free port with `limits` in its configuration, stopped on exit."""

    def __init__(self, threads=2, **limits):
        atexit.register(self.stop)
        self.directory = tempfile.TemporaryDirectory()
        config = {"limits": {"writesPerSecond": 0, "connectionsPerClient": 0, "connectionLimit": 4096,
                             **limits.pop("limits", {})}, **limits}
        path = os.path.join(self.directory.name, "config.json")
        with open(path, "w") as file:
            json.dump(config, file)
        self.log = open(os.path.join(self.directory.name, "stderr"), "w+")
        self.process = subprocess.Popen(
            [args.overlayd, "--port", "0", "--ephemeral", "--clock", "manual", "--access-log=false",
             "--threads", str(threads), "--config", path], stderr=self.log, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            self.log.seek(0)
            found = re.search(r"listening.* port=(\d+)", self.log.read())
            if found:
                self.port = int(found.group(1))
                break
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit("overlayd did not start")
            time.sleep(0.01)

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request(method, path, body=body.encode() if isinstance(body, str) else body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, data

    def metric(self, name):
        _, body = self.request("GET", "/metrics")
        return sum(int(value) for value in re.findall(rf"^{name}{{[^}}]*}} (\d+)", body.decode(), re.MULTILINE))

    def wait_for_metric(self, name, value):
        deadline = time.monotonic() + 60
        while self.metric(name) != value:
            if time.monotonic() > deadline:
                raise SystemExit(f"{name} never reached {value}")
            time.sleep(0.01)

    def version(self):
        _, body = self.request("GET", "/overlay")
        return json.loads(body)["version"]

    def rss_kb(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

    def stop(self):
        """Ends the server (also when the script fails half-way, through atexit); idempotent."""
        if not hasattr(self, "process"):
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self.log.closed:
            self.log.close()
            self.directory.cleanup()


def connect(port, receive_buffer=None):
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    client.connect(("127.0.0.1", port))
    return client


def send_request(port, path, headers="", receive_buffer=None):
    client = connect(port, receive_buffer)
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode())
    return client


def read_until(client, marker):
    """Reads until `marker` is in what came (or the server closes); returns all of it."""
    received = b""
    while marker not in received:
        chunk = client.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def on_threads(count, body):
    """body(i) on `count` threads at once; the first failure is raised once all have ended."""
    failures = []

    def run(index):
        try:
            body(index)
        except Exception as error:  # noqa: BLE001 (reported below, in the caller's thread)
            failures.append(error)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def row(name, value, unit):
    print(f"{name:<68} {value:>12} {unit}")


def milliseconds(seconds):
    return f"{seconds * 1000:.1f}"


def wakeup():
    """A parked long-poll answered by a POST: the POST sent to the waiter's whole answer."""
    server = Server()
    latencies = []
    for round_ in range(ROUNDS):
        version = server.version()
        waiter = send_request(server.port, "/overlay?wait=60", f'If-None-Match: W/"{version}"\r\n')
        server.wait_for_metric("overlayd_long_poll_waiters", 1)
        answered = {}

        def wait_for_answer():
            read_until(waiter, b"}")
            answered["at"] = time.monotonic()

        reader = threading.Thread(target=wait_for_answer)
        reader.start()
        posted = time.monotonic()
        server.request("POST", "/messages?kind=sending", body=f"round {round_}")
        reader.join()
        latencies.append(answered["at"] - posted)
        waiter.close()
    server.stop()
    row(f"long-poll wake-up, POST sent to waiter answered, median of {ROUNDS}",
        f"{statistics.median(latencies) * 1e6:.0f}", "µs")
    row("long-poll wake-up, worst", f"{max(latencies) * 1e6:.0f}", "µs")


def parked_waiters():
    """200 long-polls parked: other traffic beside them, then one POST answering all."""
    server = Server()
    waiters = [send_request(server.port, "/overlay?wait=60", 'If-None-Match: W/"0"\r\n') for _ in range(200)]
    server.wait_for_metric("overlayd_long_poll_waiters", 200)
    slowest = [0.0]
    start = time.monotonic()

    def traffic(thread):
        for index in range(50):
            began = time.monotonic()
            server.request("GET", "/healthz")
            server.request("POST", "/channels/other/messages", body=f"t{thread} #{index}")
            slowest[0] = max(slowest[0], time.monotonic() - began)

    on_threads(4, traffic)
    row("200 parked waiters: 200 GET /healthz + 200 POST beside them", milliseconds(time.monotonic() - start), "ms")
    row("200 parked waiters: slowest GET + POST pair", milliseconds(slowest[0]), "ms")
    start = time.monotonic()
    server.request("POST", "/messages", body='{"text": "wake up"}', headers={"Content-Type": "application/json"})
    for waiter in waiters:
        read_until(waiter, b"}")
    row("200 parked waiters: one POST until all are answered", milliseconds(time.monotonic() - start), "ms")
    server.stop()


def held_connections(threads):
    """150 event streams and 150 long-polls held: health checks beside them, then one change."""
    server = Server(threads=threads)
    streams = [send_request(server.port, "/events", "Accept: text/event-stream\r\n") for _ in range(150)]
    waiters = [send_request(server.port, "/overlay?wait=60&since=0") for _ in range(150)]
    server.wait_for_metric("overlayd_event_streams", 150)
    server.wait_for_metric("overlayd_long_poll_waiters", 150)
    for stream in streams:
        read_until(stream, b"id: 0\n")
    slowest = [0.0]

    def health(_):
        for _ in range(25):
            began = time.monotonic()
            server.request("GET", "/healthz")
            slowest[0] = max(slowest[0], time.monotonic() - began)

    on_threads(4, health)
    row(f"300 held connections, {threads} thread(s): slowest of 100 GET /healthz", milliseconds(slowest[0]), "ms")
    start = time.monotonic()
    server.request("POST", "/messages", body='{"text": "to all"}', headers={"Content-Type": "application/json"})
    for stream in streams:
        read_until(stream, b"id: 1\n")
    for waiter in waiters:
        read_until(waiter, b"}")
    row(f"300 held connections, {threads} thread(s): one change until all have it",
        milliseconds(time.monotonic() - start), "ms")
    server.stop()


def slow_reader():
    """A stream never read while 2,000 changes of ~2 KB happen: what the server holds, then the drain."""
    server = Server(limits={"eventBufferBytes": 65536}, heartbeatSeconds=0.05)
    server.request("POST", "/messages", body='{"text": "start", "kind": "sending"}',
                   headers={"Content-Type": "application/json"})
    slow = send_request(server.port, "/events", "Accept: text/event-stream\r\n", receive_buffer=4096)
    server.wait_for_metric("overlayd_event_streams", 1)
    before = server.rss_kb()
    padding = "\U0001D11E" * 240

    def patches(thread):
        for index in range(500):
            server.request("PATCH", "/messages/1", body=f"t{thread}-{index} {padding}",
                           headers={"Content-Type": "text/plain"})

    on_threads(4, patches)
    row("never-reading stream, 2,000 changes: server RSS growth", f"{(server.rss_kb() - before) / 1024:.1f}", "MB")
    queues = [line.split()[4].split(":")[0] for line in open("/proc/net/tcp")
              if line.split()[1].endswith(f":{server.port:04X}") and line.split()[3] == "01"]
    row("never-reading stream: largest kernel send queue (tx_queue)",
        f"{max(int(queue, 16) for queue in queues) / 1024:.0f}", "KiB")
    version = server.version()
    start = time.monotonic()
    received = read_until(slow, f"id: {version}\n".encode())
    events = received.count(b"\nid: ")
    row(f"never-reading stream: then reads {events} events through the current one",
        milliseconds(time.monotonic() - start), "ms")
    server.stop()


def stop_with_readers():
    """SIGTERM with 10 streams, one stream never read and 10 long-polls open, to the exit."""
    server = Server(heartbeatSeconds=0.1)
    readers = [send_request(server.port, "/events", "Accept: text/event-stream\r\n") for _ in range(10)]
    readers.append(send_request(server.port, "/events", "Accept: text/event-stream\r\n", receive_buffer=4096))
    readers += [send_request(server.port, "/overlay?wait=60&since=0") for _ in range(10)]
    server.wait_for_metric("overlayd_event_streams", 11)
    server.wait_for_metric("overlayd_long_poll_waiters", 10)
    start = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=60)
    row("stop (SIGTERM to exit) with 11 streams and 10 long-polls open", milliseconds(time.monotonic() - start), "ms")
    server.stop()


def slowloris():
    """200 ordinary requests beside 30 connections trickling a head and 20 holding half of one."""
    server = Server()
    trickling = [connect(server.port) for _ in range(30)]
    holding = [connect(server.port) for _ in range(20)]
    for client in holding:
        client.sendall(b"GET /overlay HTTP/1.1\r\nHost: x\r\nX-Never: ")
    done = threading.Event()

    def trickle():
        head = b"POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nX-Slow: "
        offset = 0
        while not done.is_set():
            for client in trickling:
                client.send(head[offset:offset + 1] if offset < len(head) else b"a")
            offset += 1
            time.sleep(0.2)

    thread = threading.Thread(target=trickle)
    thread.start()
    latencies = []
    for index in range(200):
        began = time.monotonic()
        if index % 2 == 0:
            server.request("GET", "/overlay")
        else:
            server.request("POST", "/messages", body=f"ordinary {index}")
        latencies.append(time.monotonic() - began)
    done.set()
    thread.join()
    row("slowloris: 200 requests beside 50 slow connections, median", milliseconds(statistics.median(latencies)), "ms")
    row("slowloris: worst", milliseconds(max(latencies)), "ms")
    for client in trickling + holding:
        client.close()
    server.stop()


def endless_body(chunked):
    """A body that never ends: how much the client sends before the server cuts it off."""
    server = Server()
    client = connect(server.port)
    framing = "Transfer-Encoding: chunked" if chunked else "Content-Length: 1000000000"
    client.sendall(f"POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n{framing}\r\n\r\n".encode())
    piece = b"a" * 16384
    chunk = b"4000\r\n" + piece + b"\r\n" if chunked else piece
    client.settimeout(30)
    sent = 0
    try:
        while sent < 64 << 20:
            sent += client.send(chunk)
    except OSError:
        pass
    client.close()
    row(f"endless {'chunked' if chunked else 'Content-Length'} body: sent before the cut-off", f"{sent >> 10}", "KiB")
    server.stop()


print(f"{'figure':<68} {'value':>12} unit")
wakeup()
parked_waiters()
held_connections(2)
held_connections(1)
slow_reader()
stop_with_readers()
slowloris()
endless_body(True)
endless_body(False)
