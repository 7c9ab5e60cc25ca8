-- The RSS test's load: of every 4 requests, 2 GET /overlay, 1 POST of a new message (replacing the
-- shown one), 1 POST updating a keyed message. Requests are formatted once, in init.
local requests = {}
local n = 0

function init(args)
    local json = { ["Content-Type"] = "application/json" }
    requests[1] = wrk.format("GET", "/overlay")
    requests[2] = wrk.format("POST", "/messages", json, '{"text":"hello","immediate":true}')
    requests[3] = wrk.format("GET", "/overlay")
    requests[4] = wrk.format("POST", "/messages", json, '{"text":"progress","key":"bench"}')
end

function request()
    n = n + 1
    return requests[(n % 4) + 1]
end
