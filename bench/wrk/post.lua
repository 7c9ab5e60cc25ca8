-- POST /messages with a new message that replaces the shown one (overlayd answers 202 and its
-- queue never fills; the baseline reads the body and answers 202). See bench/README.md.
wrk.method = "POST"
wrk.body = '{"text":"hello","immediate":true}'
wrk.headers["Content-Type"] = "application/json"
