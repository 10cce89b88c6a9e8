#!/usr/bin/env bash
# What the browser tests need from the system: Chromium's headless shell at $CHROMIUM (default
# /usr/bin/chromium-headless-shell: the pages) and the full Chromium at $MEDIA_CHROMIUM (default
# /usr/bin/chromium: voice, `make dev`'s screenshots), the paths tests/browser uses, and the fonts the screenshots show
# (Korean: fonts-nanum, emoji: fonts-noto-color-emoji). Installs them with apt-get when
# running as root, otherwise stops with the one command to run.
# ENSURE_BROWSER_DRY_RUN=1 prints what it would run instead of running it.
set -euo pipefail

CHROMIUM="${CHROMIUM:-/usr/bin/chromium-headless-shell}"
MEDIA_CHROMIUM="${MEDIA_CHROMIUM:-/usr/bin/chromium}"
missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium-headless-shell)
[ -x "$MEDIA_CHROMIUM" ] || missing+=(chromium)
fonts="$(fc-list 2>/dev/null || true)"
grep -qi "nanum" <<<"$fonts" || missing+=(fonts-nanum)
grep -qi "noto color emoji" <<<"$fonts" || missing+=(fonts-noto-color-emoji)
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get update && apt-get install -y ${missing[*]}"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "browser tests need ${missing[*]}: run as root: $cmd" >&2
  exit 1
fi
if [ "${ENSURE_BROWSER_DRY_RUN:-}" = 1 ]; then
  echo "would run: $cmd"
  exit 0
fi
echo "installing ${missing[*]} for the browser tests"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
