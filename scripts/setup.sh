#!/usr/bin/env bash
# Prepares a fresh checkout: Node packages (and, as later parts need them, the system runtime).
set -euo pipefail
cd "$(dirname "$0")/.."

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "drover needs Node.js 20 or newer (found $(node -v))" >&2
  exit 1
fi

if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi

echo "setup complete: run 'npm start' to start drover, 'npm test' to run the tests"
