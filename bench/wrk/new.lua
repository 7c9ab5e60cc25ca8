-- bench/depth: POST /messages with a new message, which waits at the end of the queue (202).
wrk.method = "POST"
wrk.body = "a new message"
wrk.headers["Content-Type"] = "text/plain"
