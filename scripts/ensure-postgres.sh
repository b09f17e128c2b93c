#!/usr/bin/env sh
# The PostgreSQL ledger's tests start a throwaway server (test/support/postgres.ts) from the
# machine's binaries: Debian's postgresql (initdb, pg_ctl). Installed here when missing (CI, npm's
# pretest); idempotent, and nothing is downloaded at run time by the tool itself. The package's own
# cluster is not used (each test run makes and removes its own).
for dir in "" /usr/lib/postgresql/*/bin; do
  if [ -z "$dir" ]; then
    command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && exit 0
  elif [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
    exit 0
  fi
done
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: initdb/pg_ctl are missing and cannot be installed here (needs root and apt-get); the PostgreSQL ledger tests will fail" >&2
  exit 0
fi
echo "ensure-postgres: installing postgresql (Debian package) for the PostgreSQL ledger's tests" >&2
apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
