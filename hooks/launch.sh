#!/bin/sh
# Run one scree hook script (hooks/<name>.py) under a real Python interpreter.
#
# Claude Code runs hooks on every Bash call; a version-manager shim for python3 (pyenv, asdf) adds
# 50-180 ms to each. So, in order:
#   1. the plugin's own venv ($CLAUDE_PLUGIN_DATA/venv, which `uv run` makes for the MCP server);
#   2. the real executable behind `python3`, resolved once and cached in $CLAUDE_PLUGIN_DATA/hooks-python;
#   3. `python3` itself.
# The hook scripts use the standard library only, hence -I -S (no site-packages, no user paths).
# `scree doctor` reports which interpreter this picks and what a shim would cost.
here=${0%/*}
script="$here/$1"
data=${CLAUDE_PLUGIN_DATA:-${HOME:+$HOME/.cache/scree}}
if [ -z "$data" ]; then  # nowhere private to cache: resolve each time
  exec python3 -I -S "$script"
fi
if [ -x "$data/venv/bin/python3" ]; then
  exec "$data/venv/bin/python3" -I -S "$script"
fi
cache="$data/hooks-python"
if [ -r "$cache" ]; then
  IFS= read -r py < "$cache"
  if [ -n "$py" ] && [ -x "$py" ]; then
    exec "$py" -I -S "$script"
  fi
fi
py=$(python3 -I -S -c 'import sys; print(sys.executable)' 2>/dev/null </dev/null)
if [ -n "$py" ] && [ -x "$py" ]; then
  if mkdir -p "$data" 2>/dev/null && printf '%s\n' "$py" > "$cache.$$" 2>/dev/null; then
    mv -f "$cache.$$" "$cache" 2>/dev/null || rm -f "$cache.$$"
  fi
  exec "$py" -I -S "$script"
fi
exec python3 -I -S "$script"
