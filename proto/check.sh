#!/usr/bin/env bash
# The protobuf API's checks (buf.yaml at the repository root says what they check):
#   1. `buf lint`: buf's STANDARD rules, less the exceptions buf.yaml lists with reasons;
#   2. `buf breaking` against the previous commit (HEAD~1, or GALLERIST_PROTO_AGAINST):
#      any change of proto/ that breaks a client on the wire, in JSON or in its generated
#      code fails.
# buf is the @bufbuild/buf npm package of the Node.js client (clients/node), installed
# with `npm ci --prefix clients/node` when missing (and Debian's nodejs and npm before it
# when npm is missing, as tests/run.sh does).
# In a shallow clone without the previous commit, one more commit is fetched
# (`git fetch --deepen=1`); when that fails (no remote, or none reachable), the breaking
# check is skipped, saying so on stderr, and the lint still counts.
set -euo pipefail
cd "$(dirname "$0")/.."
buf=clients/node/node_modules/.bin/buf
against=${GALLERIST_PROTO_AGAINST:-HEAD~1}

if [ ! -x "$buf" ]; then
    if ! command -v npm >/dev/null; then
        as_root=env
        if [ "$(id -u)" -ne 0 ]; then as_root="sudo env"; fi
        echo "proto/check.sh: installing Debian's nodejs npm"
        $as_root apt-get update -qq
        $as_root DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
    fi
    echo "proto/check.sh: installing buf (npm ci --prefix clients/node)"
    npm ci --prefix clients/node --no-audit --no-fund --loglevel=error
fi

"$buf" lint
echo "proto/check.sh: buf lint passed"

has_commit() { git rev-parse --verify --quiet "$1^{commit}" >/dev/null; }
if ! has_commit "$against" && [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    echo "proto/check.sh: $against is not in this shallow clone; fetching one more commit"
    GIT_TERMINAL_PROMPT=0 timeout 120 git fetch --quiet --deepen=1 \
        || echo "proto/check.sh: git fetch --deepen=1 failed" >&2
fi
if ! has_commit "$against"; then
    echo "proto/check.sh: WARNING: buf breaking SKIPPED: $against is not in this clone" \
         "(a first commit, or a shallow clone whose remote cannot be reached);" \
         "only the lint ran" >&2
    exit 0
fi
# The previous commit's module root is proto/ (subdir=proto also reads a commit made
# before buf.yaml existed); the rules are this checkout's buf.yaml. The repository is
# git's common directory: `.git` itself, except in a worktree.
"$buf" breaking --against \
    "$(git rev-parse --git-common-dir)#format=git,ref=$(git rev-parse "$against"),subdir=proto"
echo "proto/check.sh: buf breaking against $against ($(git rev-parse --short "$against")) passed"
