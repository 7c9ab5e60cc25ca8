"""The topology of docs/SCALING.md on loopback: Redis, nginx fronts with nchan, overlayd instances.

Every process runs on a free port with its state and logs in one directory, and is stopped when
the topology stops. The fronts run deploy/nginx/overlayd.conf itself, with only its addresses
swapped for loopback ports; the instances run deploy/overlayd.json with their own port, data
directory and publish URL. Used by scripts/topology and bench/scale.
"""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time

NCHAN_MODULE = "/usr/lib/nginx/modules/ngx_nchan_module.so"
NAMES = "abcdefghijklmnopqrstuvwxyz"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(port, method, path, body=None, headers=None, timeout=10):
    """One request on a new connection: (status, headers as a dict with lower-case names, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def wait_until(condition, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if condition():
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"timed out after {seconds} s waiting for {what}")


class Topology:
    def __init__(self, root, binary, directory, instances=3, fronts=2, front_workers=2, write_rate=None,
                 instance_settings=None):
        self.root = root
        self.binary = binary
        self.directory = directory
        self.names = NAMES[:instances]
        self.front_count = fronts
        self.front_workers = front_workers
        self.write_rate = write_rate
        self.instance_settings = instance_settings or {}
        self.redis_port = free_port()
        self.instance_ports = [free_port() for _ in self.names]
        self.front_ports = [free_port() for _ in range(fronts)]
        self.publish_ports = [free_port() for _ in range(fronts)]
        self.processes = {}
        self.logs = {}
        self.lock = threading.Lock()

    # ---- addresses

    def instance_address(self, index):
        return f"127.0.0.1:{self.instance_ports[index]}"

    def publish_template(self, index):
        """Instance i publishes to front i mod M: any front would do, they share Redis."""
        return f"http://127.0.0.1:{self.publish_ports[index % self.front_count]}/pub/{{channel}}"

    def instance_of(self, address):
        return self.instance_ports.index(int(address.rsplit(":", 1)[1]))

    # ---- the whole

    def start(self):
        self.start_redis()
        for front in range(self.front_count):
            self.start_front(front)
        for index in range(len(self.names)):
            self.start_instance(index)

    def stop(self):
        for key in list(self.processes):
            self._stop(key, signal.SIGTERM)

    def _spawn(self, key, arguments, log):
        handle = open(log, "ab")
        self.logs[key] = log
        self.processes[key] = subprocess.Popen(arguments, stdout=handle, stderr=subprocess.STDOUT,
                                               stdin=subprocess.DEVNULL)
        handle.close()

    def _stop(self, key, sig):
        process = self.processes.pop(key, None)
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def log(self, key):
        try:
            with open(self.logs[key], errors="replace") as handle:
                return handle.read()
        except (KeyError, OSError):
            return ""

    # ---- Redis

    def start_redis(self):
        folder = os.path.join(self.directory, "redis")
        os.makedirs(folder, exist_ok=True)
        # The append-only file keeps channels' messages across a restart, as in deploy/compose.yaml.
        self._spawn("redis", ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                              "--dir", folder, "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
                    os.path.join(folder, "redis.log"))

        def answers():
            with socket.create_connection(("127.0.0.1", self.redis_port), timeout=1) as probe:
                probe.sendall(b"PING\r\n")
                return probe.recv(16).startswith(b"+PONG")

        wait_until(answers, 10, "Redis")

    def stop_redis(self):
        self._stop("redis", signal.SIGTERM)

    # ---- fronts

    def render_front(self, front):
        """deploy/nginx/overlayd.conf with loopback addresses. Each change is checked, so that an
        edit of the deploy file that this does not follow fails loudly instead of testing
        something else."""
        with open(os.path.join(self.root, "deploy", "nginx", "overlayd.conf")) as handle:
            text = handle.read()

        def swap(pattern, replacement, expected):
            nonlocal text
            text, count = re.subn(pattern, replacement, text, flags=re.M)
            if count != expected:
                raise RuntimeError(f"deploy/nginx/overlayd.conf: expected {expected} of {pattern!r}, found {count}")

        servers = "".join(f"    server 127.0.0.1:{port} max_fails=0;\n" for port in self.instance_ports)
        swap(r"^    server overlayd-[a-z]+:8080 max_fails=0;\n(?:    server overlayd-[a-z]+:8080 max_fails=0;\n)*",
             servers, 1)
        swap(r"nchan_redis_server redis://redis:6379;", f"nchan_redis_server redis://127.0.0.1:{self.redis_port};", 1)
        swap(r"^    listen 80;$", f"    listen 127.0.0.1:{self.front_ports[front]};", 1)
        swap(r"^    listen 8090;$", f"    listen 127.0.0.1:{self.publish_ports[front]};", 1)
        if self.write_rate:
            swap(r"rate=100r/s;", f"rate={self.write_rate}r/s;", 1)
        return text

    def start_front(self, front):
        folder = os.path.join(self.directory, f"front-{front + 1}")
        os.makedirs(folder, exist_ok=True)
        # nginx's workers run unprivileged when started as root: they must reach the folder.
        for path in (self.directory, folder):
            os.chmod(path, 0o755)
        with open(os.path.join(folder, "overlayd.conf"), "w") as handle:
            handle.write(self.render_front(front))
        temp = "".join(f"    {kind}_temp_path {folder}/{kind};\n"
                       for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        main = (f"load_module {NCHAN_MODULE};\n"
                f"daemon off;\nworker_processes {self.front_workers};\nworker_rlimit_nofile 65536;\n"
                f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log notice;\n"
                f"events {{ worker_connections 16384; }}\n"
                f"http {{\n    access_log off;\n{temp}    include {folder}/overlayd.conf;\n}}\n")
        with open(os.path.join(folder, "nginx.conf"), "w") as handle:
            handle.write(main)
        error_log = os.path.join(folder, "error.log")
        before = self._ready_lines(error_log)
        key = f"front-{front + 1}"
        self._spawn(key, ["nginx", "-p", folder, "-c", os.path.join(folder, "nginx.conf")],
                    os.path.join(folder, "nginx.out"))
        self.logs[key + "-error"] = error_log

        def ready():
            if self.processes[key].poll() is not None:
                raise RuntimeError(f"{key} exited:\n{self.log(key)}\n{self.log(key + '-error')}")
            if self._ready_lines(error_log) <= before:
                return False
            status, _, _ = request(self.publish_ports[front], "GET", "/pub/readiness", timeout=2)
            return status != 503

        wait_until(ready, 15, f"{key} (nginx with nchan on Redis)")

    @staticmethod
    def _ready_lines(path):
        try:
            with open(path, errors="replace") as handle:
                return handle.read().count("Redis upstream nchan_redis: ready")
        except OSError:
            return 0

    def stop_front(self, front):
        self._stop(f"front-{front + 1}", signal.SIGTERM)

    def worker_crashes(self):
        """Lines of every front's error log where a worker died (an nchan assertion)."""
        crashes = []
        for front in range(self.front_count):
            crashes += [line for line in self.log(f"front-{front + 1}-error").splitlines()
                        if "exited on signal" in line or "Assertion" in line]
        return crashes

    # ---- instances

    def start_instance(self, index):
        name = self.names[index]
        folder = os.path.join(self.directory, f"instance-{name}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(self.root, "deploy", "overlayd.json")) as handle:
            settings = json.load(handle)
        settings.update(host="127.0.0.1", port=self.instance_ports[index], dataDir=os.path.join(folder, "data"),
                        publish=self.publish_template(index))
        for key, value in self.instance_settings.items():
            if isinstance(value, dict):
                settings.setdefault(key, {}).update(value)
            else:
                settings[key] = value
        with open(os.path.join(folder, "overlayd.json"), "w") as handle:
            json.dump(settings, handle, indent=2)
        key = f"instance-{name}"
        log = os.path.join(folder, "overlayd.log")
        starts = self._count(log, " listening ")
        self._spawn(key, [self.binary, "--config", os.path.join(folder, "overlayd.json")], log)

        def listening():
            if self.processes[key].poll() is not None:
                raise RuntimeError(f"{key} exited:\n{self.log(key)}")
            return self._count(log, " listening ") > starts

        wait_until(listening, 15, key)

    @staticmethod
    def _count(path, text):
        try:
            with open(path, errors="replace") as handle:
                return handle.read().count(text)
        except OSError:
            return 0

    def kill_instance(self, index):
        """kill -9: no chance to finish anything."""
        self._stop(f"instance-{self.names[index]}", signal.SIGKILL)

    def instance_log(self, index):
        return self.log(f"instance-{self.names[index]}")

    def pid(self, key):
        process = self.processes.get(key)
        return process.pid if process and process.poll() is None else None

    # ---- what the operator sees

    def channels(self):
        """GET /channels of every instance: {channel: [instance index, ...]}."""
        return aggregate_channels([f"http://{self.instance_address(i)}" for i in range(len(self.names))])


def aggregate_channels(urls):
    """{channel name: [index of each instance URL that lists it]} from `GET /channels` of each."""
    placement = {}
    for index, url in enumerate(urls):
        match = re.match(r"^http://([^/:]+):(\d+)/?$", url)
        if not match:
            raise ValueError(f"not an http://host:port URL: {url}")
        connection = http.client.HTTPConnection(match.group(1), int(match.group(2)), timeout=10)
        connection.request("GET", "/channels")
        response = connection.getresponse()
        body = response.read()
        connection.close()
        if response.status != 200:
            raise RuntimeError(f"{url}/channels answered {response.status}")
        for channel in json.loads(body)["channels"]:
            placement.setdefault(channel["name"], []).append(index)
    return placement


class EventReader(threading.Thread):
    """An EventSource subscriber: every event's (id, event, version), in the order received."""

    def __init__(self, port, path, last_event_id=None, host="topology", headers=None):
        super().__init__(daemon=True)
        self.port, self.path, self.last_event_id, self.host = port, path, last_event_id, host
        self.headers = headers or {}
        self.events = []
        self.status = None
        self.closed = False
        self.opened = threading.Event()
        self.changed = threading.Condition()
        self.socket = None

    def run(self):
        try:
            self.socket = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            head = f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: text/event-stream\r\n"
            if self.last_event_id:
                head += f"Last-Event-ID: {self.last_event_id}\r\n"
            for name, value in self.headers.items():
                head += f"{name}: {value}\r\n"
            self.socket.sendall((head + "\r\n").encode())
            self.socket.settimeout(None)
            buffer = b""
            while b"\r\n\r\n" not in buffer:
                data = self.socket.recv(65536)
                if not data:
                    raise OSError("closed before the head")
                buffer += data
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            self.status = int(head.split(b" ")[1])
            chunked = b"transfer-encoding: chunked" in head.lower()
            self.opened.set()
            raw, body = buffer, b""
            while True:
                if chunked:
                    while b"\r\n" in raw:
                        size_line, rest = raw.split(b"\r\n", 1)
                        size = int(size_line.split(b";")[0], 16)
                        if len(rest) < size + 2:
                            break
                        body += rest[:size]
                        raw = rest[size + 2:]
                else:
                    body, raw = body + raw, b""
                while b"\n\n" in body:
                    block, body = body.split(b"\n\n", 1)
                    self._block(block.decode(errors="replace"))
                data = self.socket.recv(65536)
                if not data:
                    break
                raw += data
        except OSError:
            pass
        finally:
            self.opened.set()
            with self.changed:
                self.closed = True
                self.changed.notify_all()

    def _block(self, block):
        fields = {}
        for line in block.split("\n"):
            if line.startswith(":") or ":" not in line:
                continue
            name, value = line.split(":", 1)
            fields[name] = value[1:] if value.startswith(" ") else value
        if "data" not in fields:
            return
        try:
            version = json.loads(fields["data"]).get("version")
        except ValueError:
            version = None
        with self.changed:
            self.events.append((fields.get("id"), fields.get("event"), version))
            self.changed.notify_all()

    def versions(self):
        with self.changed:
            return [version for _, _, version in self.events]

    def wait_for(self, version, seconds):
        """Until an event of `version` (or later) has come; False on timeout or close."""
        deadline = time.time() + seconds
        with self.changed:
            while not any(v is not None and v >= version for _, _, v in self.events):
                left = deadline - time.time()
                if left <= 0 or self.closed:
                    return False
                self.changed.wait(left)
            return True

    def close(self):
        if self.socket:
            try:
                self.socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.socket.close()
