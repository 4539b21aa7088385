#!/usr/bin/env bash
# Installs the real Node-RED runtimes the Node-RED end-to-end and browser tests drive, into a cache outside
# the clone (keyed by version) so that CI's fresh clones and later sessions reuse them:
#   Node-RED 5 (runs on Node 24, which test/e2e/runtimes.sh provides) and Node-RED 4 (runs on the machine's Node 20).
# Prints shell assignments (NODE24_BIN, NODE_RED5_DIR, NODE_RED4_DIR) for eval. Idempotent; safe to rerun.
# SKIP_NODE_RED4=1 leaves Node-RED 4 out (the demo needs Node-RED 5 only).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${CHAT_MESSAGING_CACHE:-$HOME/.cache/chat-messaging}"
NODE_RED5_VERSION="${NODE_RED5_VERSION:-5.0.7}"
NODE_RED4_VERSION="${NODE_RED4_VERSION:-4.1.8}"
# shellcheck source=install-quietly.sh
. "$HERE/install-quietly.sh"

# Node 24 comes from the shared runtime script; the n8n part belongs to the n8n tests.
eval "$(SKIP_N8N=1 bash "$HERE/runtimes.sh")"

install_node_red() { # version, node bin dir of the Node it runs on ("" = the machine's)
  local version="$1" dir="$CACHE/node-red-$1"
  if [ ! -f "$dir/.ready" ]; then
    mkdir -p "$dir"
    echo "{ \"private\": true, \"dependencies\": { \"node-red\": \"$version\" } }" > "$dir/package.json"
    # Node-RED's only optional native addon (bcrypt) has a pure-JS fallback (bcryptjs): no build needed.
    install_quietly "node-red $version" "$dir" "$2" npm install --ignore-scripts --no-audit --no-fund
    touch "$dir/.ready"
  fi
  echo "$dir"
}

NODE_RED5_DIR="$(install_node_red "$NODE_RED5_VERSION" "$NODE24_BIN")"
[ "${SKIP_NODE_RED4:-}" = 1 ] || NODE_RED4_DIR="$(install_node_red "$NODE_RED4_VERSION" "")"

echo "NODE24_BIN='$NODE24_BIN'"
echo "NODE_RED5_DIR='$NODE_RED5_DIR'"
[ -z "${NODE_RED4_DIR:-}" ] || echo "NODE_RED4_DIR='$NODE_RED4_DIR'"
