-- GET /overlay with `Authorization: Bearer <secret>`, the secret given after `--` (bench/run's
-- get_token: the last of 10,000 tokens made through POST /tokens). The baseline gets the same
-- request, a secret of the same length, and ignores the header. See bench/README.md.
function init(args)
  wrk.headers["Authorization"] = "Bearer " .. args[1]
end
