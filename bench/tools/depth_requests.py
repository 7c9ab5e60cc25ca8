"""Sends COUNT requests of one kind of bench/depth over one keep-alive connection, for
`bench/depth --instructions` (the server runs under callgrind: only the count matters).

  get     GET /messages/ID
  keyed   POST {"key": "last", "text": "update N"}: updates the message with key "last"
  new     POST a new message (it waits at the end of the queue)
"""
import argparse
import http.client
import json

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--kind", choices=["get", "keyed", "new"], required=True)
parser.add_argument("--count", type=int, required=True)
parser.add_argument("--id", type=int, required=True)
args = parser.parse_args()

connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=60)
for number in range(args.count):
    if args.kind == "get":
        connection.request("GET", f"/messages/{args.id}")
        expected = 200
    elif args.kind == "keyed":
        body = json.dumps({"key": "last", "text": f"update {number}"})
        connection.request("POST", "/messages", body=body, headers={"Content-Type": "application/json"})
        expected = 200
    else:
        connection.request(
            "POST", f"/messages?priority={number % 5 + 1}", body="a new message",
            headers={"Content-Type": "text/plain"})
        expected = 202
    response = connection.getresponse()
    response.read()
    if response.status != expected:
        raise SystemExit(f"depth_requests: {args.kind} answered {response.status}, not {expected}")
