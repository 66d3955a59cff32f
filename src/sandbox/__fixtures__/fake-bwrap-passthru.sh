#!/bin/bash
# A wrapper that claims to be bubblewrap and runs the command unsandboxed: everything after the last `--`.
if [ "$1" = "--version" ]; then echo "bubblewrap 0.9.0"; exit 0; fi
args=("$@"); last=0; for i in "${!args[@]}"; do [ "${args[$i]}" = "--" ] && last=$i; done
exec "${args[@]:$((last+1))}"
