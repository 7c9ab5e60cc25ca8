# Sourced by the scripts that run overlayd in the background (scripts/schemathesis, scripts/stress).
#
# start_overlayd LOG COMMAND...: runs COMMAND (overlayd with `--port 0`, possibly behind `env`) in
# the background with its standard error in LOG, waits for the "listening" line, and sets
# `server_pid` and `port`. If overlayd exits or does not listen within 10 s: its log, and exit 1.
start_overlayd() {
  local log="$1"
  shift
  # The log exists before the loop reads it: the background command opens it only once it runs,
  # which on a loaded machine can be after the first look (then sed fails and `set -e` exits).
  : >"$log"
  "$@" 2>"$log" &
  server_pid=$!
  port=""
  for _ in $(seq 1 100); do
    port="$(sed -n 's/.* listening .*port=\([0-9]*\).*/\1/p' "$log")"
    [ -n "$port" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "overlayd did not start:" >&2
  cat "$log" >&2
  exit 1
}
