#!/usr/bin/env bash
# What voice's TURN relay needs from the system: Debian's coturn (the `turnserver` binary), which
# the offline stack starts on loopback (local/turn.py) for `make dev` and the tests. Installs it
# with apt-get when running as root, otherwise stops with the one command to run. The package's
# own service is not used (the stack runs its own process with its own secret).
# ENSURE_COTURN_DRY_RUN=1 prints what it would run instead of running it.
set -euo pipefail

command -v turnserver >/dev/null 2>&1 && exit 0
cmd="apt-get update && apt-get install -y coturn"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "voice's TURN relay needs coturn: run as root: $cmd" >&2
  exit 1
fi
if [ "${ENSURE_COTURN_DRY_RUN:-}" = 1 ]; then
  echo "would run: $cmd"
  exit 0
fi
echo "installing coturn (voice's TURN relay for the offline stack)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq coturn >/dev/null
