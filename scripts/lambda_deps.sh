#!/bin/sh
# The packages of a Lambda artifact (the root Makefile's build-<LogicalId>, run by `sam build`):
# `$LAMBDA_PIP --requirement REQUIREMENTS` installed once per content of the requirements and of
# the pip command (the six game functions and the site deployer share functions/requirements.txt),
# kept under $LAMBDA_DEPS, and copied into TARGET. The copy is the same files a fresh install
# writes; tests/functions/test_deploy_artifacts.py and scripts/check_build.py check the result.
#     LAMBDA_PIP=... LAMBDA_DEPS=dir scripts/lambda_deps.sh REQUIREMENTS TARGET
set -eu
req=$1
target=$2
key=$({ cat "$req"; echo "$LAMBDA_PIP"; } | md5sum | cut -c1-32)
cache="$LAMBDA_DEPS/$key"
mkdir -p "$LAMBDA_DEPS" "$target"
exec 9>"$LAMBDA_DEPS/.lock"
flock 9
if [ ! -f "$cache.complete" ]; then
  rm -rf "$cache"
  $LAMBDA_PIP --requirement "$req" --target "$cache"
  touch "$cache.complete"
fi
cp -R "$cache/." "$target/"
