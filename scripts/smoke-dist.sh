#!/usr/bin/env bash
# Starts the compiled server (dist/, from `npm run build`) with plain `node`, as the container
# image does, and checks /health, /ready, /metrics and the compiled CLI against it; then SIGTERM
# must exit 0. PGlite by default; PostgreSQL when DATABASE_URL is set. Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
data="$(mktemp -d)"
log="$data/server.log"
export PORT="$port" HOST=127.0.0.1 DATA_DIR="$data/data" NODE_ENV=production LOG_LEVEL=info
export SESSION_SECRET="smoke-test-session-secret-0123456789abcdef"
node dist/main.js >"$log" 2>&1 &
pid=$!
cleanup() { kill -9 "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

for _ in $(seq 1 240); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "the compiled server exited early" >&2; exit 1; }
  sleep 0.5
done
test "$(curl -sf "http://127.0.0.1:$port/health")" = '{"status":"ok"}'
test "$(curl -sf "http://127.0.0.1:$port/ready")" = '{"status":"ok"}'
# Each answer is read whole before it is searched: `curl | grep -q` under pipefail fails when grep
# stops reading early and curl's write then errors (exit 23), which depends on timing.
contains() {
  local body
  body="$("${@:2}")"
  grep -q -- "$1" <<<"$body" || { echo "no '$1' in the answer of: ${*:2}" >&2; exit 1; }
}
contains '^vendor_api_db_pool_connections' curl -sf "http://127.0.0.1:$port/metrics"
# The docs read docs/guides/*.md, CHANGELOG.md and redoc's bundle from outside dist/.
contains 'id="invalid_transition"' curl -sf "http://127.0.0.1:$port/docs/errors"
contains 'id="changelog"' curl -sf "http://127.0.0.1:$port/docs/guides/versioning"
contains '<redoc spec-url="/openapi.json">' curl -sf "http://127.0.0.1:$port/docs"
contains '"vendors"' node dist/cli.js vendor list --json
kill -TERM "$pid"
wait "$pid" && code=0 || code=$?
if [[ "$code" != 0 ]]; then cat "$log"; echo "SIGTERM exit status $code" >&2; exit 1; fi
echo "compiled server on $([[ -n "${DATABASE_URL:-}" ]] && echo PostgreSQL || echo PGlite): /health, /ready, /metrics and the CLI answered; SIGTERM exit 0"
