"""Fills overlayd's default queue to a depth for bench/depth, over one keep-alive connection.

One sticky message is shown first (nothing ends in manual-clock mode anyway), then DEPTH messages
wait behind it, their priorities 1 to 5 in turn, then one more with the key "last" and the lowest
priority: the measured message, with DEPTH ahead of it. Prints its id.
"""
import argparse
import http.client
import json
import time

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--depth", type=int, required=True)
args = parser.parse_args()

deadline = time.time() + 30
while True:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=30)
        connection.request("GET", "/healthz")
        connection.getresponse().read()
        break
    except OSError:
        if time.time() > deadline:
            raise
        time.sleep(0.1)


def post(body):
    connection.request("POST", "/messages", body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    if response.status != 202:
        raise SystemExit(f"fill: POST answered {response.status}: {answer[:200]!r}")
    return json.loads(answer)["id"]


post({"text": "shown", "kind": "sending"})
for index in range(args.depth):
    post({"text": f"queued {index}", "priority": index % 5 + 1})
print(post({"text": "the last one", "key": "last", "priority": 1}))
