#!/usr/bin/env bash
# Makes sure `redis-server` is installed, for the Redis memory store's tests and benchmark, which start a throwaway
# server of their own (test/support/redis.ts). Where `redis-server` is on PATH (or $AGENCY_REDIS_SERVER is set), this
# does nothing. Otherwise it installs the `redis-server` package with apt, using sudo when not root, and stops the
# server the package starts: the tests start their own.
set -euo pipefail

if [ -n "${AGENCY_REDIS_SERVER:-}" ] || command -v redis-server >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-redis: redis-server is missing and apt-get is not available; install Redis 7 with your package manager, or set AGENCY_REDIS_SERVER to its redis-server" >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "ensure-redis: run as root or install sudo to install redis-server" >&2; exit 1; }
  as_root=(sudo)
fi

echo "ensure-redis: redis-server is missing; installing redis-server with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >&2
"${as_root[@]}" apt-get install -y -qq --no-install-recommends redis-server >&2
"${as_root[@]}" service redis-server stop >/dev/null 2>&1 || true
hash -r
command -v redis-server >/dev/null 2>&1 || { echo "ensure-redis: redis-server was installed but is not on PATH" >&2; exit 1; }
echo "ensure-redis: $(redis-server --version) at $(command -v redis-server)" >&2
