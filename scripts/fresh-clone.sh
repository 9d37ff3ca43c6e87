#!/usr/bin/env bash
# What a new user does, checked: a fresh clone of the committed tree, `npm install && npm start` on the embedded
# database, the service answering /readyz, and a work tree as clean afterwards as it was cloned. Prints how long
# `npm install` took (CI runs this; docs/performance.md, "Install", keeps the figures).
set -euo pipefail
# A new user's machine: the embedded database (no DATABASE_URL, which CI sets for the suite) and no MOTU_* settings.
unset DATABASE_URL NODE_ENV
for name in $(env | sed -n 's/^\(MOTU_[A-Z0-9_]*\)=.*/\1/p'); do unset "$name"; done
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
git clone -q "$repo" "$work/motu"
cd "$work/motu"
started=$(date +%s)
npm install --no-audit --no-fund > "$work/install.log" 2>&1 || { tail -40 "$work/install.log"; exit 1; }
took=$(( $(date +%s) - started ))
port=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
PORT="$port" npm start > "$work/start.log" 2>&1 &
server=$!
for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$port/readyz" > /dev/null 2>&1 && break
  sleep 1
done
curl -fsS "http://127.0.0.1:$port/readyz" > /dev/null || { echo "fresh clone: npm start did not answer /readyz"; tail -40 "$work/start.log"; exit 1; }
grep -q 'Admin token' "$work/start.log" || { echo "fresh clone: the first start printed no admin token"; exit 1; }
kill "$server"; wait "$server" 2>/dev/null || true
dirty="$(git status --porcelain)"
if [ -n "$dirty" ]; then echo "fresh clone: npm install && npm start left the work tree changed:"; echo "$dirty"; exit 1; fi
echo "fresh clone: npm install took ${took} s on Node $(node -v); npm start answered /readyz; the work tree is clean"
