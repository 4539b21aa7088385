#!/usr/bin/env bash
# The jest tests that need Node 22.13 or later (jest.node24.config.js: the MCP server's OAuth store on node:sqlite),
# run by the Node 24 of the runtimes cache (test/e2e/runtimes.sh installs it). Arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(SKIP_N8N=1 bash test/e2e/runtimes.sh)"
exec "$NODE24_BIN/node" node_modules/.bin/jest -c jest.node24.config.js "$@"
