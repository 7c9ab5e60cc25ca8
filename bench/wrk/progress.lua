-- POST /messages: a download's progress, a keyed update of one shown message with a new value on
-- every request (overlayd answers the first 202 and the rest 200; the baseline reads the body and
-- answers 202). The value steps by 0.0001 per request on each wrk thread, wrapping before 1, so
-- consecutive requests on a connection never repeat one. See bench/README.md.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

local step = 0

function request()
    step = (step + 1) % 10000
    local body = string.format('{"key":"dl-7","kind":"progress","text":"Downloading","progress":0.%04d}', step)
    return wrk.format(nil, nil, nil, body)
end
