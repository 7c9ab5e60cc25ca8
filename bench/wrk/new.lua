-- bench/depth: POST /messages with a new message, its priority 1 to 5 in turn, which waits at
-- the end of its priority's part of the queue (202).
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/messages?priority=" .. (counter % 5 + 1), {["Content-Type"] = "text/plain"},
    "a new message")
end
