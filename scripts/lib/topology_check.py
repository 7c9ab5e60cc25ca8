"""The checks of `scripts/topology check` (run by .ci/run) against a running Topology."""

import base64
import json
import os
import socket
import threading
import time

from topology import EventReader, request, wait_until


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


class WebSocketReader(threading.Thread):
    """A WebSocket subscriber (RFC 6455, text frames): the version of every message received."""

    def __init__(self, port, path):
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.versions = []
        self.status = None
        self.opened = threading.Event()

    def run(self):
        try:
            connection = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            key = base64.b64encode(os.urandom(16)).decode()
            connection.sendall((f"GET {self.path} HTTP/1.1\r\nHost: topology\r\nUpgrade: websocket\r\n"
                                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                                f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
            buffer = b""
            while b"\r\n\r\n" not in buffer:
                buffer += connection.recv(4096)
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            self.status = int(head.split(b" ")[1])
            self.opened.set()
            connection.settimeout(None)

            def take(count):
                nonlocal buffer
                while len(buffer) < count:
                    data = connection.recv(65536)
                    if not data:
                        raise OSError("closed")
                    buffer += data
                piece, buffer = buffer[:count], buffer[count:]
                return piece

            while True:
                first, second = take(2)
                opcode, length = first & 0x0F, second & 0x7F
                if length == 126:
                    length = int.from_bytes(take(2), "big")
                elif length == 127:
                    length = int.from_bytes(take(8), "big")
                payload = take(length)
                if opcode == 1:
                    self.versions.append(json.loads(payload).get("version"))
                elif opcode == 9:
                    mask = os.urandom(4)
                    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
                    connection.sendall(bytes([0x8A, 0x80 | len(payload)]) + mask + masked)
                elif opcode == 8:
                    return
        except OSError:
            self.opened.set()


class Check:
    def __init__(self, topology, say, metrics_headers=None):
        self.t = topology
        self.say = say
        # /metrics needs read on every channel (docs/ACCESS.md): what credential reads it.
        self.metrics_headers = metrics_headers or {}
        self.channels = [f"ch-{index:02d}" for index in range(50)]
        self.readers = {}
        self.written = 0

    # ---- helpers

    def post(self, front, channel, text, key=None, immediate=False):
        """A short message (0.3 s shown) through `front`; `immediate` replaces the one shown."""
        body = {"text": text, "kind": "info", "duration": 0.3, "immediate": immediate}
        if key:
            body["key"] = key
        started = time.time()
        status, headers, data = request(self.t.front_ports[front], "POST", f"/channels/{channel}/messages",
                                        body=json.dumps(body), headers={"Content-Type": "application/json"})
        self.written += 1
        return status, headers, data, time.time() - started

    def overlay(self, channel):
        status, _, data = request(self.t.front_ports[0], "GET", f"/channels/{channel}/overlay")
        expect(status == 200, f"GET /channels/{channel}/overlay answered {status}")
        return json.loads(data)

    def publish_counters(self):
        """Each instance's overlayd_publish_* counters, for a failure's message."""
        counters = []
        for instance, port in enumerate(self.t.instance_ports):
            try:
                _, _, data = request(port, "GET", "/metrics", headers=self.metrics_headers)
                lines = [line for line in data.decode().splitlines()
                         if line.startswith("overlayd_publish_") and "_total" in line]
                counters.append(f"{self.t.names[instance]}: {', '.join(lines)}")
            except OSError as error:
                counters.append(f"{self.t.names[instance]}: /metrics unreadable ({error})")
        return "publishing " + "; ".join(counters)

    def settle(self, channels, seconds=30):
        """Until each channel has shown all its messages (real clock: timers end them)."""
        def quiet():
            return all(self.overlay(c)["phase"] == "hidden" and self.overlay(c)["queued"] == 0 for c in channels)
        wait_until(quiet, seconds, "the channels' messages to end")
        return {channel: self.overlay(channel)["version"] for channel in channels}

    def expect_delivered(self, reader, channel, current, published=None):
        expect(reader.wait_for(current, 20),
               f"{reader.path} on port {reader.port}: never got version {current}; got {reader.versions()[-5:]}")
        time.sleep(0.05)
        events = list(reader.events)
        versions = [version for _, _, version in events]
        expect(versions[-1] == current, f"{reader.path}: ends on {versions[-1]}, not the current {current}")
        expect(all(a < b for a, b in zip(versions, versions[1:])),
               f"{reader.path}: versions not strictly increasing: {versions}")
        if published is not None:
            # Every version the channel's instance published, as its own event stream shows them
            # (the same versions, from the same change, as it hands its publisher). Not every
            # number: an event that first reaches a deadline and then applies itself makes two
            # versions and shows, and publishes, the second.
            expect(published.wait_for(current, 20), f"{published.path} on the instance: never got {current}")
            sent = [version for _, _, version in list(published.events)]
            start = max(versions[0], sent[0])
            got, want = [v for v in versions if v >= start], [v for v in sent if v >= start]
            if got != want:
                raise Failure(f"{reader.path}: got {got}, the instance published {want}; {self.publish_counters()}")
        expect(all(event == "overlay" for _, event, _ in events), f"{reader.path}: an event is not `overlay`")
        ids = [tuple(int(part) for part in event_id.split(":")) for event_id, _, _ in events]
        expect(all(a < b for a, b in zip(ids, ids[1:])), f"{reader.path}: nchan ids out of order: {ids}")

    # ---- the checks

    def placement(self):
        self.say("50 channels written through both fronts: each lives on one instance, the same every time")
        self.home = {}
        for round_ in range(2):
            for index, channel in enumerate(self.channels):
                front = (index + round_) % self.t.front_count
                status, headers, data, _ = self.post(front, channel, f"hello {round_}")
                expect(status == 202, f"POST to {channel} via front {front + 1}: {status} {data[:200]}")
                instance = self.t.instance_of(headers["x-overlayd-instance"])
                expect(self.home.setdefault(channel, instance) == instance,
                       f"{channel} went to instance {instance}, before to {self.home[channel]}")
        placement = self.t.channels()
        for channel in self.channels:
            expect(placement.get(channel) == [self.home[channel]],
                   f"{channel}: listed by instances {placement.get(channel)}, written to {self.home[channel]}")
        counts = [sum(1 for c in self.channels if self.home[c] == i) for i in range(len(self.t.names))]
        expect(all(count > 0 for count in counts), f"an instance holds no channel: {counts}")
        unexpected = set(placement) - set(self.channels) - {"default"}
        expect(not unexpected, f"channels nobody wrote: {unexpected}")
        self.say(f"   channels per instance: {dict(zip(self.t.names, counts))}")

    def delivery(self):
        self.say("subscribers on both fronts receive every version of their channel, in order")
        for channel in self.channels:
            for front in range(self.t.front_count):
                reader = EventReader(self.t.front_ports[front], f"/channels/{channel}/events")
                reader.start()
                self.readers[(channel, front)] = reader
        # What each channel's instance publishes, read from the instance itself.
        published = {}
        for channel in self.channels:
            published[channel] = EventReader(self.t.instance_ports[self.home[channel]],
                                             f"/channels/{channel}/events", host="127.0.0.1")
            published[channel].start()
        self.websocket = WebSocketReader(self.t.front_ports[-1], f"/channels/{self.channels[0]}/subscribe")
        self.websocket.start()
        for reader in list(self.readers.values()) + list(published.values()):
            reader.opened.wait(5)
            expect(reader.status == 200, f"{reader.path} on port {reader.port}: status {reader.status}")
        self.websocket.opened.wait(5)
        expect(self.websocket.status == 101, f"WebSocket subscribe: status {self.websocket.status}")
        self.settle(self.channels)
        for round_ in range(3):
            for index, channel in enumerate(self.channels):
                status, _, data, _ = self.post((index + round_) % self.t.front_count, channel, f"update {round_}")
                expect(status == 202, f"POST to {channel}: {status} {data[:200]}")
        current = self.settle(self.channels)
        for (channel, front), reader in self.readers.items():
            self.expect_delivered(reader, channel, current[channel], published[channel])
        wait_until(lambda: current[self.channels[0]] in self.websocket.versions, 10, "the WebSocket subscriber")
        ws = self.websocket.versions
        sent = [version for _, _, version in list(published[self.channels[0]].events)]
        start = max(ws[0], sent[0])
        expect([v for v in ws if v >= start] == [v for v in sent if v >= start],
               f"WebSocket versions {ws}, published {sent}")
        self.long_poll(self.channels[1], current[self.channels[1]])
        self.say(f"   {len(self.readers)} event streams, a WebSocket and a long-poll got every version their instance published")

    def long_poll(self, channel, current):
        """nchan's long-poll: each answer's Etag and Last-Modified ask for the next message."""
        headers, versions = {}, []
        while not versions or versions[-1] < current:
            status, answer, data = request(self.t.front_ports[0], "GET", f"/channels/{channel}/subscribe",
                                           headers=headers)
            expect(status == 200, f"long-poll of {channel}: {status}")
            versions.append(json.loads(data)["version"])
            headers = {"If-None-Match": answer["etag"], "If-Modified-Since": answer["last-modified"]}
        expect(versions[-1] == current and all(b == a + 1 for a, b in zip(versions, versions[1:])),
               f"long-poll versions {versions}")

    def kill_one(self):
        victim = 1
        name = self.t.names[victim]
        lost = [c for c in self.channels if self.home[c] == victim]
        kept = [c for c in self.channels if self.home[c] != victim]
        self.say(f"instance {name} killed (kill -9) while writes go to its {len(lost)} channels")
        acknowledged, stop = [], threading.Event()

        def writer():
            n = 0
            while not stop.is_set():
                channel = lost[n % len(lost)]
                status, headers, data, _ = self.post(n % self.t.front_count, channel, f"ack-{n}", key=f"k-{n}",
                                                     immediate=True)
                if status in (200, 202):
                    acknowledged.append((channel, json.loads(data)["id"], f"ack-{n}"))
                n += 1

        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        time.sleep(0.7)
        self.t.kill_instance(victim)
        time.sleep(0.5)
        stop.set()
        thread.join(10)
        expect(acknowledged, "no write was acknowledged before the kill")
        for channel in lost[:5]:
            for front in range(self.t.front_count):
                status, headers, data, elapsed = self.post(front, channel, "while down")
                error = json.loads(data).get("error", {})
                expect(status == 503 and error.get("code") == "instance_unavailable",
                       f"write to {channel} while its instance is down: {status} {data[:200]}")
                expect(headers.get("retry-after") == "1", "no Retry-After on the 503")
                expect(elapsed < 1.0, f"the 503 took {elapsed:.2f} s")
        for channel in kept[:10]:
            status, _, data, _ = self.post(0, channel, "others keep working")
            expect(status == 202, f"write to {channel} (instance up) while {name} is down: {status}")
        self.say(f"   {len(acknowledged)} writes acknowledged before the kill; during the outage its"
                 " channels answered 503 instance_unavailable at once, the others 202")

        self.t.start_instance(victim)
        for channel, message_id, text in acknowledged:
            status, _, data = request(self.t.front_ports[1], "GET", f"/channels/{channel}/messages/{message_id}")
            expect(status == 200 and json.loads(data)["text"] == text,
                   f"acknowledged message {message_id} of {channel} lost after the restart: {status} {data[:200]}")
        current = self.settle(lost)
        for channel in lost:
            for front in range(self.t.front_count):
                self.expect_delivered(self.readers[(channel, front)], channel, current[channel], )
        self.say("   restarted: every acknowledged message is there, and its channels' readers got the"
                 " restarted versions")
        for index, channel in enumerate(lost):
            expect(self.post(index % self.t.front_count, channel, "after the restart")[0] == 202,
                   f"write to {channel} after restart")
        current = self.settle(lost)
        for channel in lost:
            self.expect_delivered(self.readers[(channel, 0)], channel, current[channel], )

    def restart_redis(self):
        self.say("Redis restarted while every instance writes: publishing and delivery resume by themselves")
        sample = {}
        for channel in self.channels:
            sample.setdefault(self.home[channel], channel)
        self.t.stop_redis()
        for channel in sample.values():
            expect(self.post(0, channel, "while Redis is down")[0] == 202, f"write to {channel} with Redis down")

        def publish_up(instance):
            status, _, data = request(self.t.instance_ports[instance], "GET", "/metrics", headers=self.metrics_headers)
            for line in data.decode().splitlines():
                if line.startswith("overlayd_publish_up "):
                    return int(line.split()[1])
            return None

        wait_until(lambda: all(publish_up(i) == 0 for i in sample), 10, "every instance to see publishing fail")
        self.t.start_redis()
        wait_until(lambda: all(publish_up(i) == 1 for i in sample), 30, "publishing to resume")
        current = self.settle(list(sample.values()))
        for channel in sample.values():
            for front in range(self.t.front_count):
                self.expect_delivered(self.readers[(channel, front)], channel, current[channel], )
        for channel in sample.values():
            expect(self.post(1, channel, "after Redis")[0] == 202, f"write to {channel} after Redis")
        current = self.settle(list(sample.values()))
        for channel in sample.values():
            self.expect_delivered(self.readers[(channel, 1)], channel, current[channel], )
        for instance in sample:
            log = self.t.instance_log(instance)
            stopped, resumed = log.count("publishing stopped"), log.count("publishing resumed")
            expect(stopped == 1 and resumed == 1,
                   f"instance {self.t.names[instance]}: {stopped} 'publishing stopped' and {resumed}"
                   " 'publishing resumed' lines; one each expected")
        self.say("   every instance logged one 'publishing stopped' and one 'publishing resumed' line")

    def run(self):
        self.placement()
        self.delivery()
        self.kill_one()
        self.restart_redis()
        crashes = self.t.worker_crashes()
        expect(not crashes, f"nginx workers died: {crashes[:3]}")
        for reader in self.readers.values():
            reader.close()
        self.say(f"all checks passed ({self.written} writes)")
