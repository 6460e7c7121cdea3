#!/usr/bin/env bash
# CI of @hitl/client (clients/typescript) and its example (examples/typescript):
# install from the lockfiles, type-check, build, and run the tests against
# a real `hitl serve` built once from this commit (HITL_BIN), the frameworks
# from npm, and the npm pack install test. Needs Go and Node.js 20+ with npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export PATH="$PATH:/usr/local/go/bin"
start=$(date +%s)
node --version
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ -z "${HITL_BIN:-}" ]; then
  (cd "$root" && go build -o "$tmp/hitl" ./cmd/hitl)
  export HITL_BIN="$tmp/hitl"
fi
cd "$here"
npm ci --no-audit --no-fund
npx tsc --noEmit -p tsconfig.json
npm run build
npm test
if [ -d "$root/examples/typescript" ]; then
  cd "$root/examples/typescript"
  npm ci --no-audit --no-fund
  npm test
fi
echo "clients/typescript: ok in $(( $(date +%s) - start ))s"
