#!/usr/bin/env bash
# The test command: installs what the tests need, then runs them.
#   - Debian's Chromium (the review page's browser test), Node.js with npm (the game played
#     from the Node.js client), curl (the documented HTTP calls), nginx (replicas behind
#     a load balancer) and PostgreSQL (hosted games shared by replicas; the tests start a
#     throwaway cluster), each when missing
#   - the package with its dev extra (builds the Cython extensions and protobuf stubs)
#   - the Node.js client's packages
# Arguments go to pytest, e.g. `bash tests/run.sh tests/engine -x`.
set -euo pipefail
cd "$(dirname "$0")/.."
chromium=${GALLERIST_CHROMIUM:-/usr/bin/chromium}
nginx=${GALLERIST_NGINX:-/usr/sbin/nginx}   # Debian's, often not on a user's PATH
initdb=${GALLERIST_INITDB:-}
if [ -z "$initdb" ]; then   # Debian's: /usr/lib/postgresql/<version>/bin/initdb
    for found in /usr/lib/postgresql/*/bin/initdb; do initdb=$found; done
fi
missing=()
[ -x "$chromium" ] || missing+=(chromium)
command -v npm >/dev/null || missing+=(nodejs npm)
command -v curl >/dev/null || missing+=(curl)
command -v nginx >/dev/null || [ -x "$nginx" ] || missing+=(nginx)
[ -x "$initdb" ] || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
    as_root=env
    if [ "$(id -u)" -ne 0 ]; then as_root="sudo env"; fi
    echo "installing Debian's ${missing[*]}"
    $as_root apt-get update -qq
    $as_root DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
python -m pip install --quiet -e ".[dev]"
npm ci --prefix clients/node --no-audit --no-fund --loglevel=error
python -m pytest -q "$@"
