#!/usr/bin/env bash
# Makes sure the agent CLIs that the executors' end-to-end tests run for real are installed: Claude Code
# (@anthropic-ai/claude-code) and Codex (@openai/codex), from the npm registry with npm, into a tools prefix that is
# not part of agency's dependencies (default: .agency-tools/ in the checkout, git-ignored; AGENCY_TOOLS_DIR moves
# it, e.g. under ~/.cache for a CI cache). Each carries a native binary of a few hundred MB in a platform package;
# npm's own cache keeps the downloads.
#
# Idempotent: a CLI already installed at its pinned version is left alone. The versions are pinned because the tests
# read their output formats (CLAUDE_CODE_VERSION, CODEX_VERSION override them). Each CLI's outcome goes to
# <prefix>/status/<cli>: "ok <version> <path>", or "failed: <reason>", which the tests print when they skip. A failed
# install is reported, not fatal: the tests that need that CLI skip and say why.
set -uo pipefail
cd "$(dirname "$0")/.."

prefix="${AGENCY_TOOLS_DIR:-$PWD/.agency-tools}"
claude_version="${CLAUDE_CODE_VERSION:-2.1.332}"
codex_version="${CODEX_VERSION:-0.169.0}"
mkdir -p "$prefix/status"
[ -f "$prefix/package.json" ] || echo '{ "private": true, "description": "agent CLIs for agency tests" }' >"$prefix/package.json"

# installed_version <package>: the version of <package> in the prefix, or nothing.
installed_version() {
  node -e 'try { console.log(require(process.argv[1]).version) } catch {}' "$prefix/node_modules/$1/package.json" 2>/dev/null
}

# ensure <cli> <package> <version>
ensure() {
  local cli="$1" package="$2" version="$3" bin="$prefix/node_modules/.bin/$1" log="$prefix/status/$1.log"
  if [ "$(installed_version "$package")" != "$version" ] || ! "$bin" --version >/dev/null 2>&1; then
    echo "ensure-agent-clis: installing $package@$version into $prefix" >&2
    if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$package@$version" >"$log" 2>&1; then
      echo "failed: npm install $package@$version: $(tail -n 3 "$log" | tr '\n' ' ')" >"$prefix/status/$cli"
      echo "ensure-agent-clis: $(cat "$prefix/status/$cli")" >&2
      return 0
    fi
    # Claude Code's postinstall puts its native binary in place of a placeholder; run it where npm skipped it.
    if [ "$cli" = claude ] && ! "$bin" --version >/dev/null 2>&1; then
      (cd "$prefix/node_modules/$package" && node install.cjs) >>"$log" 2>&1
    fi
  fi
  local found
  if found="$("$bin" --version 2>/dev/null | head -n 1)" && [ -n "$found" ]; then
    echo "ok $found $bin" >"$prefix/status/$cli"
    echo "ensure-agent-clis: $cli $found at $bin" >&2
  else
    echo "failed: $bin --version did not run (see $log)" >"$prefix/status/$cli"
    echo "ensure-agent-clis: $(cat "$prefix/status/$cli")" >&2
  fi
}

ensure claude @anthropic-ai/claude-code "$claude_version"
ensure codex @openai/codex "$codex_version"
