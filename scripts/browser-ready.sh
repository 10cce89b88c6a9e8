#!/usr/bin/env bash
# What the browser tier needs (`make browser-deps`; `make test`'s shards run it under one lock,
# so the first installs and the other waits): axe-core from npm when it is missing or
# tests/browser/package.json or package-lock.json is newer than the copy installed, then the
# system's Chromium and fonts (scripts/ensure-browser.sh), and coturn, the voice tests' TURN
# relay (scripts/ensure-coturn.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
AXE=tests/browser/node_modules/axe-core/axe.min.js
if [ ! -f "$AXE" ] || [ tests/browser/package-lock.json -nt "$AXE" ] || [ tests/browser/package.json -nt "$AXE" ]; then
  command -v npm >/dev/null || { echo "the browser tests need npm (apt-get install -y npm)" >&2; exit 1; }
  (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
  touch "$AXE"
fi
scripts/ensure-coturn.sh
exec scripts/ensure-browser.sh
