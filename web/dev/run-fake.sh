#!/bin/sh
# Builds the dashboard and starts the fake API in the background; its pid goes to /tmp/agency-fake-api.pid.
set -e
cd "$(dirname "$0")/.."
npm run build >/dev/null
node dev/fake-api.ts >/tmp/agency-fake-api.log 2>&1 &
echo $! >/tmp/agency-fake-api.pid
sleep 1
cat /tmp/agency-fake-api.log
