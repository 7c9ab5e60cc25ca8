"""Makes N tokens through POST /tokens and prints the last one's secret.

Used by bench/run (get_token) and bench/instructions (token): a server with 10,000 made tokens,
the most `limits.maxTokens` allows by default. The requests go out in batches on one keep-alive
connection (pipelined: libmicrohttpd answers them in order), so that 10,000 take seconds, not the
round trips of one request at a time; every answer must be 201.
"""
import argparse
import json
import socket
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--admin", required=True, help="the configured token (OVERLAYD_TOKEN)")
parser.add_argument("--count", type=int, default=10000)
parser.add_argument("--batch", type=int, default=50, help="requests sent before reading their answers")
args = parser.parse_args()


def request(n):
    body = json.dumps({"label": "bench-%d" % n, "grants": [{"channels": "*", "access": "read"}]}).encode()
    head = (
        "POST /tokens HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
        "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (args.admin, len(body)))
    return head.encode() + body


class Answers:
    """Reads HTTP/1.1 answers with a Content-Length body off one socket, in order."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def _fill(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            sys.exit("bench/tools/tokens.py: the server closed the connection")
        self.buffer += chunk

    def next(self):
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, body


sock = socket.create_connection(("127.0.0.1", args.port), timeout=60)
answers = Answers(sock)
secret = None
made = 0
while made < args.count:
    batch = min(args.batch, args.count - made)
    sock.sendall(b"".join(request(made + i + 1) for i in range(batch)))
    for _ in range(batch):
        status, body = answers.next()
        if status != 201:
            text = body[:200].decode("utf-8", "replace")
            sys.exit("bench/tools/tokens.py: token %d answered %d: %s" % (made + 1, status, text))
        secret = json.loads(body)["secret"]
        made += 1
sock.close()
print(secret)
