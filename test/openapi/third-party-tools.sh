#!/usr/bin/env bash
# Installs the third-party OpenAPI tools the document is checked with — Stoplight Prism (a validating proxy) and
# Spectral with the OWASP API ruleset (a linter) — from npm into a cache outside the clone, as runtimes.sh does for
# n8n: they are heavy, and nobody on this project wrote them, which is the point. Pinned versions, no install
# scripts (neither needs one), idempotent. Prints shell assignments (PRISM_BIN, SPECTRAL_BIN, SPECTRAL_OWASP) for eval.
set -euo pipefail
CACHE="${CHAT_MESSAGING_CACHE:-$HOME/.cache/chat-messaging}"
PRISM_VERSION="${PRISM_VERSION:-5.14.2}"
SPECTRAL_VERSION="${SPECTRAL_VERSION:-6.16.3}"
SPECTRAL_OWASP_VERSION="${SPECTRAL_OWASP_VERSION:-2.0.1}"
PRISM_DIR="$CACHE/prism-$PRISM_VERSION"
SPECTRAL_DIR="$CACHE/spectral-$SPECTRAL_VERSION-owasp-$SPECTRAL_OWASP_VERSION"
# shellcheck source=../e2e/install-quietly.sh
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/install-quietly.sh"

install_into() { # what dir packages...
	local what="$1" dir="$2"; shift 2
	[ -f "$dir/.ready" ] && return 0
	mkdir -p "$dir"
	echo '{"private":true}' > "$dir/package.json"
	install_quietly "$what" "$dir" "" npm install --no-save --ignore-scripts --no-audit --no-fund "$@"
	touch "$dir/.ready"
}

install_into "Prism $PRISM_VERSION" "$PRISM_DIR" "@stoplight/prism-cli@$PRISM_VERSION"
install_into "Spectral $SPECTRAL_VERSION with the OWASP ruleset $SPECTRAL_OWASP_VERSION" "$SPECTRAL_DIR" \
	"@stoplight/spectral-cli@$SPECTRAL_VERSION" "@stoplight/spectral-owasp-ruleset@$SPECTRAL_OWASP_VERSION"

echo "PRISM_BIN='$PRISM_DIR/node_modules/.bin/prism'"
echo "SPECTRAL_BIN='$SPECTRAL_DIR/node_modules/.bin/spectral'"
echo "SPECTRAL_OWASP='$SPECTRAL_DIR/node_modules/@stoplight/spectral-owasp-ruleset'"
