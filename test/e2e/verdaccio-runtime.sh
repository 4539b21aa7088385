#!/usr/bin/env bash
# Installs Verdaccio, the local npm registry of the registry end-to-end test (npm run test:e2e:registry), into the
# runtimes cache outside the clone, beside the Node 24 it runs on (Verdaccio 6 wants Node >= 22): kept out of the
# repository's devDependencies so that `npm install` on the machine's Node 20 does not warn about its engines.
# Pinned version, no install scripts (it needs none), idempotent. Prints shell assignments (NODE24_BIN, VERDACCIO_BIN)
# for eval.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${CHAT_MESSAGING_CACHE:-$HOME/.cache/chat-messaging}"
VERDACCIO_VERSION="${VERDACCIO_VERSION:-6.10.4}"
VERDACCIO_DIR="$CACHE/verdaccio-$VERDACCIO_VERSION"
# shellcheck source=install-quietly.sh
. "$HERE/install-quietly.sh"

eval "$(SKIP_N8N=1 bash "$HERE/runtimes.sh")"

if [ ! -f "$VERDACCIO_DIR/.ready" ]; then
  mkdir -p "$VERDACCIO_DIR"
  # verdaccio-audit names node-fetch by a dist-tag ("cjs"): pinned to that line's version, as the repository pinned it.
  cat > "$VERDACCIO_DIR/package.json" <<JSON
{ "private": true, "dependencies": { "verdaccio": "$VERDACCIO_VERSION" }, "overrides": { "verdaccio-audit": { "node-fetch": "2.7.0" } } }
JSON
  install_quietly "Verdaccio $VERDACCIO_VERSION" "$VERDACCIO_DIR" "$NODE24_BIN" npm install --ignore-scripts --no-audit --no-fund
  touch "$VERDACCIO_DIR/.ready"
fi

echo "NODE24_BIN='$NODE24_BIN'"
echo "VERDACCIO_BIN='$VERDACCIO_DIR/node_modules/verdaccio/bin/verdaccio'"
