"""Opens K event streams, then sends N POSTs, each one waited for on every stream.

For counting what a stream event costs the server: run overlayd under callgrind (with
`--ephemeral --clock manual` and a config with `"writesPerSecond": 0`), run this with N and then
with a larger N, and divide the difference of the two totals by K times the difference of the
Ns. Usage: sse_events.py PORT K N
"""
import socket, sys, time
port, K, N = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
deadline = time.time() + 120
while True:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5); s.close(); break
    except OSError:
        if time.time() > deadline: sys.exit("no server")
        time.sleep(0.2)
def post():
    c = socket.create_connection(("127.0.0.1", port), timeout=60)
    body = b'{"text":"hello","immediate":true}'
    c.sendall(b"POST /messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    while c.recv(65536): pass
    c.close()
post()  # a message shown first: every later POST replaces it (one version each)
streams, bufs = [], []
for _ in range(K):
    c = socket.create_connection(("127.0.0.1", port), timeout=60)
    c.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    streams.append(c); bufs.append(b"")
def wait_ids(n):
    for i, c in enumerate(streams):
        while bufs[i].count(b"\nid: ") + bufs[i].startswith(b"id: ") < n:
            d = c.recv(65536)
            if not d: sys.exit("stream closed")
            bufs[i] += d
wait_ids(1)
for r in range(N):
    post(); wait_ids(r + 2)
print("ok", K, N)
