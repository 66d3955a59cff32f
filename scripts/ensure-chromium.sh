#!/usr/bin/env bash
# Makes sure Debian's Chromium, which the dashboard's browser tests drive with playwright-core, is installed.
# Where `chromium` is already on PATH, this does nothing. Otherwise it installs the `chromium` package with apt
# (one `apt-get update`, then `apt-get install -y chromium`), using sudo when not root. Elsewhere it explains what to
# install and fails. No browser build is downloaded from anywhere else.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: chromium is missing and apt-get is not available; install Chromium with your package manager and set CHROMIUM=<path>" >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "ensure-chromium: chromium is missing; run as root or install sudo" >&2; exit 1; }
  as_root=(sudo)
fi

echo "ensure-chromium: chromium is missing; installing it with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >&2
"${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
hash -r
command -v chromium >/dev/null 2>&1 || { echo "ensure-chromium: chromium was installed but is not on PATH" >&2; exit 1; }
echo "ensure-chromium: $(chromium --version) at $(command -v chromium)" >&2
