#!/usr/bin/env bash
# Installs the MCP project's own test tools into the runtimes cache outside the clone, the way
# runtimes.sh installs n8n: the conformance suite (@modelcontextprotocol/conformance) and the Inspector
# CLI (@modelcontextprotocol/inspector), and the official tasks client (@modelcontextprotocol/ext-tasks, which the
# Inspector also pulls in; pinned here because the e2e stage loads it itself), all pinned, with npm run by Node 24
# (the Inspector wants Node >= 22.19).
# Not devDependencies: they pull their own MCP SDK and zod, which would fight the workspace's lockfile.
# Prints shell assignments (NODE24_BIN, MCP_CONFORMANCE_BIN, MCP_INSPECTOR_BIN, MCP_TOOLS_DIR) for eval. Idempotent.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${CHAT_MESSAGING_CACHE:-$HOME/.cache/chat-messaging}"
# The newest alpha of the suite published when last checked (npm view @modelcontextprotocol/conformance versions).
CONFORMANCE_VERSION="${MCP_CONFORMANCE_VERSION:-0.2.0-alpha.12}"
INSPECTOR_VERSION="${MCP_INSPECTOR_VERSION:-2.12.0}"
EXT_TASKS_VERSION="${MCP_EXT_TASKS_VERSION:-0.2.2}"
DIR="$CACHE/mcp-tools-conformance-$CONFORMANCE_VERSION-inspector-$INSPECTOR_VERSION"
# shellcheck source=../install-quietly.sh
. "$HERE/../install-quietly.sh"

eval "$(SKIP_N8N=1 bash "$HERE/../runtimes.sh")"

MANIFEST='{ "private": true, "dependencies": { "@modelcontextprotocol/conformance": "'"$CONFORMANCE_VERSION"'", "@modelcontextprotocol/inspector": "'"$INSPECTOR_VERSION"'", "@modelcontextprotocol/ext-tasks": "'"$EXT_TASKS_VERSION"'" } }'
# The folder is named by the suite and the Inspector; a pin added beside them (ext-tasks) installs into the folder
# already there when its manifest says otherwise.
if [ ! -f "$DIR/.ready" ] || [ "$(cat "$DIR/package.json" 2>/dev/null)" != "$MANIFEST" ]; then
  mkdir -p "$DIR"
  printf '%s\n' "$MANIFEST" > "$DIR/package.json"
  install_quietly "the MCP conformance suite $CONFORMANCE_VERSION, Inspector $INSPECTOR_VERSION and ext-tasks $EXT_TASKS_VERSION" "$DIR" "$NODE24_BIN" \
    npm install --ignore-scripts --no-audit --no-fund
  touch "$DIR/.ready"
fi

echo "NODE24_BIN='$NODE24_BIN'"
echo "MCP_CONFORMANCE_BIN='$DIR/node_modules/.bin/conformance'"
echo "MCP_INSPECTOR_BIN='$DIR/node_modules/.bin/mcp-inspector'"
echo "MCP_TOOLS_DIR='$DIR'"
