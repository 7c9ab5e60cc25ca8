-- bench/depth: a keyed POST that updates the last queued message (key "last"), with a new text
-- each time so that every request changes the message (200).
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/messages", {["Content-Type"] = "application/json"},
    '{"key":"last","text":"update ' .. counter .. '"}')
end
