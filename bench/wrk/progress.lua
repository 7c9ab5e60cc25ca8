-- A download's progress: a keyed update of one shown message, a new progress value on each
-- request (overlayd answers 202 for the first, 200 after; the baseline reads the body and answers
-- 202). The same script for both servers. See bench/README.md, post_keyed.
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/messages", {["Content-Type"] = "application/json"},
    string.format('{"key":"dl-7","kind":"progress","text":"Downloading","progress":0.%04d}', counter % 10000))
end
