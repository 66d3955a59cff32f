#!/usr/bin/env bash
# Makes sure bubblewrap (`bwrap`), which agency's sandbox runs commands under, is installed.
# Where `bwrap` is already on PATH, this does nothing. Otherwise it installs the `bubblewrap` package with apt
# (one `apt-get update`, then `apt-get install -y bubblewrap`), using sudo when not root. Elsewhere it explains what
# to install and fails. Run it before the tests: the sandbox fails closed without bwrap.
set -euo pipefail

if command -v bwrap >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-bwrap: bwrap is missing and apt-get is not available; install bubblewrap with your package manager (dnf install bubblewrap, apk add bubblewrap, pacman -S bubblewrap)" >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "ensure-bwrap: bwrap is missing; run as root or install sudo to install bubblewrap" >&2; exit 1; }
  as_root=(sudo)
fi

echo "ensure-bwrap: bwrap is missing; installing bubblewrap with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >&2
"${as_root[@]}" apt-get install -y -qq --no-install-recommends bubblewrap >&2
hash -r
command -v bwrap >/dev/null 2>&1 || { echo "ensure-bwrap: bubblewrap was installed but bwrap is not on PATH" >&2; exit 1; }
echo "ensure-bwrap: $(bwrap --version) at $(command -v bwrap)" >&2
