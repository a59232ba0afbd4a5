#!/usr/bin/env bash
# Load-test the HTTP front of `kvctl serve`: start
# `kvctl serve --single-rank --addr 127.0.0.1:PORT`, run the streaming load
# of server.TestLoad against it (CLIENTS concurrent clients, REQUESTS in
# all, each prompt a shared 580-byte system prefix and a unique question),
# print requests/s and client-side TTFT percentiles, then the server's own
# TTFT histogram means from /metrics.
#
#   bench/http_load.sh                       # 256 requests, 64 clients, max_tokens 16
#   REQUESTS=2048 CLIENTS=128 bench/http_load.sh --real-time
#
# Extra arguments go to `kvctl serve`. Environment: PORT (default 18000),
# REQUESTS, CLIENTS, MAX_TOKENS, KVCTL (a kvctl binary to use instead of
# building one), SERVE (a whole server command line instead of kvctl's,
# e.g. for a development build). Needs go and curl.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
port=${PORT:-18000}
requests=${REQUESTS:-256}
clients=${CLIENTS:-64}
max_tokens=${MAX_TOKENS:-16}
url="http://127.0.0.1:$port"

if [[ -n ${SERVE:-} ]]; then
	read -r -a serve <<<"$SERVE"
else
	kvctl=${KVCTL:-/tmp/kvctl}
	if [[ -z ${KVCTL:-} ]]; then
		(cd "$root" && go build -o "$kvctl" .)
	fi
	serve=("$kvctl" serve --single-rank --addr "127.0.0.1:$port")
fi

"${serve[@]}" "$@" >/tmp/kvctl-http-load.log 2>&1 &
server_pid=$!
trap 'kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true' EXIT

for _ in $(seq 100); do
	curl -fsS "$url/healthz" >/dev/null 2>&1 && break
	kill -0 "$server_pid" 2>/dev/null || { cat /tmp/kvctl-http-load.log >&2; exit 1; }
	sleep 0.1
done
curl -fsS "$url/healthz" >/dev/null

echo "load: $requests requests, $clients clients, max_tokens $max_tokens against $url" >&2
(cd "$root" && go test ./server/ -run '^TestLoad$' -count=1 -v -args \
	-load-url "$url" -load-requests "$requests" -load-clients "$clients" -load-max-tokens "$max_tokens") |
	sed -n 's/^ *load_test.go:[0-9]*: //p'

curl -fsS "$url/metrics" | awk '
	/^kvctl_ttft_seconds_sum /          { ws = $2 }
	/^kvctl_ttft_seconds_count /        { wc = $2 }
	/^kvctl_modelled_ttft_seconds_sum / { ms = $2 }
	/^kvctl_modelled_ttft_seconds_count / { mc = $2 }
	END {
		if (wc > 0) printf "server: TTFT mean %.2f ms (wall, %d requests)", 1000 * ws / wc, wc
		if (mc > 0) printf ", modelled TTFT mean %.2f ms", 1000 * ms / mc
		print ""
	}'
