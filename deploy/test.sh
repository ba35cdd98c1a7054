#!/usr/bin/env bash
# `npm test`: everything CI checks, cheapest failure first. Extra arguments are ignored.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "1/9 install"
# npm writes node_modules/.package-lock.json on every install, so an older one means a stale install.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install`, not `npm ci`: with this platform's npm settings (omit-lockfile-registry-resolved)
  # the lock file leaves out other platforms' optional binaries, which `npm ci` then calls out of sync.
  # The lock file still pins every version.
  npm install --no-audit --no-fund
else
  echo "node_modules is up to date with package-lock.json"
fi

# The browser tests drive Debian's Chromium (npm's own browser downloads cannot work offline).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "the e2e browser tests need Chromium: apt-get install chromium" >&2
    exit 1
  fi
fi

# The python-gitlab e2e suite drives Debian's python3-gitlab with Debian's own interpreter.
if ! /usr/bin/python3 -c "import gitlab" >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing python3-gitlab for the python-gitlab e2e suite"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-gitlab >/dev/null
  else
    echo "the python-gitlab e2e suite needs Debian's python3-gitlab: apt-get install python3-gitlab" >&2
    exit 1
  fi
fi

# The LDAP tests start throwaway OpenLDAP servers (services/kit/src/testing/slapd.ts) from Debian's slapd.
if [ ! -x /usr/sbin/slapd ] || ! command -v ldapsearch >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing slapd and ldap-utils for the LDAP tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slapd ldap-utils >/dev/null
  else
    echo "the LDAP tests need OpenLDAP: apt-get install slapd ldap-utils" >&2
    exit 1
  fi
fi

step "2/9 infrastructure (PostgreSQL, Redis, NATS JetStream)"
node deploy/infra.mjs

step "3/9 generated code is up to date"
npm run gen
# An assignment, so that a failing git stops the script instead of passing as "no changes".
stale=$(git status --porcelain -- protos/src/gen)
if [ -n "$stale" ]; then
  echo "$stale"
  git --no-pager diff -- protos/src/gen
  echo "generated code is stale: run npm run gen and commit" >&2
  exit 1
fi

step "4/9 build"
npm run build

step "5/9 lint"
npm run lint

step "6/9 unit and contract tests"
# One worker runs every suite in turn, each starting stacks in it. What the suites leave behind adds
# up: run in band, one process reached 4.6 GB and its collector's pauses pushed in-process services
# past their gRPC deadlines (503s in the fuzz and the permission matrix, late in the run). So the
# worker is replaced whenever a suite leaves it holding more than 1 GB, and still gets a large heap.
NODE_OPTIONS="${NODE_OPTIONS:-} --max-old-space-size=8192" npx jest --selectProjects unit \
  --maxWorkers=1 --workerIdleMemoryLimit=1GB ${CI:+--ci}

step "7/9 end-to-end tests, one process of each service"
CANOPY_REPLICAS=1 npx jest --selectProjects e2e --runInBand ${CI:+--ci}

step "8/9 end-to-end tests again, two replicas of every service (nothing may rely on being the only one)"
CANOPY_REPLICAS=2 npx jest --selectProjects e2e --runInBand ${CI:+--ci}

step "9/9 fault suite: its own PostgreSQL, NATS and Redis stopped and restarted under two replicas of everything"
npx jest --selectProjects faults --runInBand ${CI:+--ci}
