-- A download's progress: a keyed update of one shown message, a new progress value on each
-- request (overlayd answers 202 for the first, 200 after; the baseline reads the body and answers
-- 202). The same script for both servers. See bench/README.md, post_keyed.
-- The requests are formatted once, in init, as in mixed.lua: formatting one per request in Lua
-- took wrk's share of the two cores from the servers.
local requests = {}
local count = 10000
local n = 0

function init(args)
  local json = { ["Content-Type"] = "application/json" }
  for i = 1, count do
    requests[i] = wrk.format("POST", "/messages", json,
      string.format('{"key":"dl-7","kind":"progress","text":"Downloading","progress":0.%04d}', i - 1))
  end
end

function request()
  n = n + 1
  return requests[(n % count) + 1]
end
