#!/usr/bin/env bash
# The Python client's CI step (called by .ci/run after the Go tests): a venv
# with the client and every adapter's framework, pinned by pyproject.toml's
# extras, then mypy --strict and pytest. The tests build `hitl serve` from this
# checkout (or use $HITL_BIN) and run it on loopback ports.
set -euo pipefail
cd "$(dirname "$0")"
repo=$(cd ../.. && pwd)
# The venv is kept outside the checkout (CI runs in a fresh clone), so a
# second run only checks that the pinned packages are there.
venv=${HITL_PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hitl/python-venv}
python3 --version
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$repo/clients/python[dev,langgraph,openai-agents,claude-agent-sdk]"
if [ -z "${HITL_BIN:-}" ]; then
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  (cd "$repo" && go build -o "$bin/hitl" ./cmd/hitl)
  export HITL_BIN="$bin/hitl"
fi
"$venv/bin/mypy" --strict
"$venv/bin/pytest" -q
