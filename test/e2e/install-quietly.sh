# Sourced by the runtime scripts: runs an npm install into the cache with one progress line and its time
# on stderr, its own output appended to <dir>/install.log (its last lines shown only when it fails).
#   install_quietly <what> <dir> <node bin dir to put first on PATH, or ""> <command...>
# The node bin dir matters: npm run by the machine's Node 20 for a Node 24 runtime warns EBADENGINE once per
# package that wants Node >= 22 (hundreds of lines for n8n); run by the runtime's own Node it has nothing to warn.
install_quietly() {
  local what="$1" dir="$2" node_bin="$3"; shift 3
  local log="$dir/install.log" t0=$SECONDS
  echo "== $what: $*" >>"$log"
  printf '[runtimes] installing %s into %s ... ' "$what" "$dir" >&2
  if (cd "$dir" && PATH="${node_bin:+$node_bin:}$PATH" "$@" >>"$log" 2>&1); then
    printf 'done in %d s\n' $((SECONDS - t0)) >&2
  else
    printf 'FAILED after %d s; the end of %s:\n' $((SECONDS - t0)) "$log" >&2
    tail -n 30 "$log" >&2
    return 1
  fi
}
