#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, pg_ctl, postgres) are installed, for the benchmarks' peers and
# the tests that start a throwaway cluster (test/support/postgres.ts). Where /usr/lib/postgresql/<n>/bin/initdb
# exists (or $AGENCY_PG_BIN is set), this does nothing. Otherwise it installs the `postgresql` package with apt,
# using sudo when not root, and stops the cluster the package starts: the tests start their own.
set -euo pipefail

if [ -n "${AGENCY_PG_BIN:-}" ] || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: PostgreSQL is missing and apt-get is not available; install its server package, or set AGENCY_PG_BIN" >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "ensure-postgres: run as root or install sudo to install postgresql" >&2; exit 1; }
  as_root=(sudo)
fi

echo "ensure-postgres: PostgreSQL is missing; installing postgresql with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >&2
"${as_root[@]}" apt-get install -y -qq --no-install-recommends postgresql >&2
"${as_root[@]}" service postgresql stop >/dev/null 2>&1 || true
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || { echo "ensure-postgres: postgresql was installed but initdb is missing" >&2; exit 1; }
echo "ensure-postgres: $(ls -d /usr/lib/postgresql/*/bin | tail -1)" >&2
