"""One webhook delivery of N alerts against N POSTs of a message: wall time and the server's CPU
time for each, on one keep-alive connection, median over rounds (bench/webhook runs it).

    python3 bench/tools/webhook.py --binary PATH [--alerts 1000] [--rounds 5]
"""

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import tempfile
import time


def cpu_seconds(pid):
    """User plus system CPU time of the process, all threads (/proc/PID/stat, in clock ticks)."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(binary, directory):
    config = os.path.join(directory, "overlayd.json")
    with open(config, "w") as file:
        # The queue takes every alert; no write limit: what is measured is the work, not a refusal.
        json.dump({"ephemeral": True, "accessLog": False, "maxQueue": 100000,
                   "limits": {"writesPerSecond": 0}}, file)
    log = open(os.path.join(directory, "stderr.log"), "w+")
    process = subprocess.Popen([binary, "--config", config, "--port", "0"], stderr=log, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log.seek(0)
        found = re.search(r" listening .*port=(\d+)", log.read())
        if found:
            return process, int(found.group(1))
        time.sleep(0.02)
    process.kill()
    raise RuntimeError("overlayd did not start")


def measure(binary, alerts, way):
    with tempfile.TemporaryDirectory(prefix="overlayd-webhook-") as directory:
        process, port = start(binary, directory)
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port)
            headers = {"Content-Type": "application/json"}
            bodies = [json.dumps({"status": "firing", "fingerprint": f"fp{n}",
                                  "labels": {"alertname": f"Alert {n}", "instance": f"host-{n}:9100",
                                             "severity": "warning"},
                                  "annotations": {"summary": f"Host {n} is down"}}) for n in range(alerts)]
            cpu = cpu_seconds(process.pid)
            began = time.perf_counter()
            if way == "webhook":
                body = '{"version": "4", "alerts": [' + ",".join(bodies) + "]}"
                connection.request("POST", "/messages?template=alertmanager", body, headers)
                response = connection.getresponse()
                made = len(json.loads(response.read())["messages"])
                assert response.status == 200 and made == alerts, (response.status, made)
            else:
                for n in range(alerts):
                    body = json.dumps({"text": f"Host {n} is down", "subtitle": f"Alert {n} · host-{n}:9100",
                                       "kind": "failed", "key": f"alertmanager-fp{n}", "priority": 4})
                    connection.request("POST", "/messages", body, headers)
                    response = connection.getresponse()
                    response.read()
                    assert response.status == 202, response.status
            wall = time.perf_counter() - began
            return wall, cpu_seconds(process.pid) - cpu
        finally:
            process.terminate()
            process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--alerts", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    results = {"webhook": [], "posts": []}
    for _ in range(arguments.rounds):
        for way in ("webhook", "posts"):
            results[way].append(measure(arguments.binary, arguments.alerts, way))
    print(f"{arguments.alerts} alerts, median of {arguments.rounds} rounds (interleaved)")
    print(f"{'way':<32} {'wall ms':>10} {'server CPU ms':>14}")
    for way, label in (("webhook", "one delivery of N alerts"), ("posts", "N POSTs, one connection")):
        wall = statistics.median(r[0] for r in results[way]) * 1000
        cpu = statistics.median(r[1] for r in results[way]) * 1000
        print(f"{label:<32} {wall:>10.1f} {cpu:>14.1f}")


if __name__ == "__main__":
    main()
