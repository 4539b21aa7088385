#!/usr/bin/env bash
# Runs every test this repository has, installing what they need first:
#   lint (TypeScript + ESLint + n8n's community-package scanner), the jest suites (real HTTP against
#   the sandbox), the OpenAPI document against Prism and Spectral (npm run test:openapi:third-party), n8n end to end (real n8n 2.x on Node 24, then in queue mode with PostgreSQL and
#   Redis: main, two workers, two webhook processes), Node-RED end to end (Node-RED 5 on
#   Node 24 and 4 on Node 20), the Node-RED editor in a real browser (Debian's Chromium), both editors
#   installing, updating and uninstalling the packages from a local registry (npm run test:e2e:registry) and the demo
#   started from a fresh clone (npm run test:demo).
# Ends with one line "all: N passed, N failed" and exits non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
failed=0
failures=()
start_all=$(date +%s)

stage() { # name command...
	local name=$1; shift
	local log; log=$(mktemp)
	local t0; t0=$(date +%s)
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	local t1; t1=$(date +%s)
	# Count from the stage's own closing line: jest's "Tests: ..." or a plain "N passed, N failed".
	local p f
	p=$(grep -Eo '^Tests: .*' "$log" | tail -1 | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || true)
	f=$(grep -Eo '^Tests: .*' "$log" | tail -1 | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || true)
	if [ -z "$p$f" ]; then
		p=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || true)
		f=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || true)
	fi
	p=${p:-0}; f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)); failed=$((failed + f))
	[ "$rc" -eq 0 ] || failures+=("$name")
	echo "=== $name: exit $rc, $p passed, $f failed, $((t1 - t0)) s"
	rm -f "$log"
}

# Prerequisites outside npm: Chromium for the browser test, Node 24 and n8n for end to end.
if ! command -v chromium >/dev/null 2>&1; then
	echo "=== installing Debian's chromium"
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "chromium install failed"
fi
# PostgreSQL and Redis for n8n's queue mode (npm run test:e2e:queue), from Debian's packages.
queue_packages=()
command -v redis-server >/dev/null 2>&1 || queue_packages+=(redis-server)
# openssl makes the certificate of the MCP OAuth tests' loopback https servers (packages/mcp-server/test/selfSigned.ts).
command -v openssl >/dev/null 2>&1 || queue_packages+=(openssl)
[ -x "${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}/postgres" ] || queue_packages+=(postgresql)
if [ ${#queue_packages[@]} -gt 0 ]; then
	echo "=== installing Debian's ${queue_packages[*]}"
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${queue_packages[@]}" >/dev/null) || echo "${queue_packages[*]} install failed"
fi
stage runtimes bash test/e2e/runtimes.sh

stage build npm run build
stage lint npm run lint
CHAT_MESSAGING_SKIP_BUILD=1 stage jest npx jest --ci  # built just above
# The Chat SDK kit's adapter contracts (`@chat-adapter/tests`) run under vitest, the kit's runner.
stage test:chat-kit npm run test:chat-kit
for script in test:openapi:third-party test:e2e:n8n test:e2e:n8n-agents test:browser:n8n test:e2e:queue test:e2e:node-red test:browser test:e2e:registry test:demo; do
	if npm pkg get "scripts.$script" | grep -q '"'; then stage "$script" npm run "$script"; fi
done
# The MCP server with the MCP project's conformance suite and Inspector, at both revisions it serves (2025-11-25 and
# 2026-07-28, the Inspector's legacy and modern eras), with a task's life and a cancel at each.
MCP_REVISIONS=2025-11-25,2026-07-28 stage test:e2e:mcp npm run test:e2e:mcp
# The MCP server as an OAuth connector: its jest tests (node:sqlite, and redis-server for what replicas share) on Node 24, then end to end
# with the SDK's OAuth client, the conformance suite's authorization scenarios, Chromium and two replicas on Redis.
stage test:mcp-oauth npm run test:mcp-oauth
stage test:e2e:mcp-oauth npm run test:e2e:mcp-oauth

echo "=== stages failed: ${failures[*]:-none}; $(( $(date +%s) - start_all )) s in all"
echo "all: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ ${#failures[@]} -eq 0 ]
