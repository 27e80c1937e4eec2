# Shared by the lab-server benchmarks (sourced): wrk's rotating-path script, a free loopback port,
# and a wait for a lab server to answer.

# Writes $1/rotate.lua: each request GETs the next path of the file named by WRK_PATHS.
write_rotate_lua() {
  cat > "$1/rotate.lua" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$1/lab.json" && return 0; sleep 0.1; done; return 1; }
