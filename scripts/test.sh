#!/usr/bin/env bash
# Installs what the test suite needs when it is missing, starts the local database
# servers when they are down, and runs every test: the whole build on Spring Boot 4.1,
# then the starter and the sample again on Spring Boot 3.5.
#
#   scripts/test.sh                 # everything
#   scripts/test.sh -pl lock-redis  # extra arguments go to both Maven runs
#
# Redis and etcd are not started here: the tests start their own redis-server and etcd
# processes on free loopback ports. ZooKeeper and H2 run inside the test JVM.
#
# It ends with one summary of every pass (scripts/suite-summary.py), passed or not: each pass's
# reports are moved to target/suite-reports/<pass>/<module>/ when it ends, because the Boot 3.5
# pass cleans the modules it runs again.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

install_missing_packages() {
  local missing=()
  command -v mvn >/dev/null || missing+=(maven)
  command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
  command -v python3 >/dev/null || missing+=(python3)
  [ -x /usr/bin/redis-server ] || missing+=(redis-server)
  [ -x /usr/bin/etcd ] || missing+=(etcd-server)
  command -v pg_ctlcluster >/dev/null || missing+=(postgresql)
  [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  if ! command -v apt-get >/dev/null || ! as_root true 2>/dev/null; then
    echo "Missing ${missing[*]} and no root apt-get to install them; install them and run again." >&2
    exit 1
  fi
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Debian starts nothing in containers; make sure a packaged Redis on 6379 does not linger as a dependency.
}

wait_for() { # description, command...
  local what=$1; shift
  for _ in $(seq 1 60); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  echo "$what did not come up within 60s" >&2
  return 1
}

pg_ok() { psql -h 127.0.0.1 -p 5432 -U postgres -d test -Atc 'select 1' >/dev/null 2>&1; }

ensure_postgres() {
  pg_ok && return 0
  log "starting PostgreSQL on 127.0.0.1:5432"
  local version
  version=$(ls /etc/postgresql | sort -V | tail -1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true
  wait_for "PostgreSQL" pg_isready -h 127.0.0.1 -p 5432
  if ! psql -h 127.0.0.1 -U postgres -d postgres -Atc 'select 1' >/dev/null 2>&1; then
    # A fresh Debian cluster asks for passwords over TCP; the tests connect as postgres without one.
    local hba="/etc/postgresql/$version/main/pg_hba.conf"
    as_root sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main reload
  fi
  psql -h 127.0.0.1 -U postgres -d postgres -Atc "select 1 from pg_database where datname = 'test'" | grep -q 1 \
    || psql -h 127.0.0.1 -U postgres -d postgres -c 'create database test' >/dev/null
  pg_ok
}

mariadb_ok() { mariadb -h 127.0.0.1 -P 3306 -u root -e 'select 1' test >/dev/null 2>&1; }

ensure_mariadb() {
  mariadb_ok && return 0
  log "starting MariaDB on 127.0.0.1:3306"
  if ! mariadb-admin ping >/dev/null 2>&1; then
    as_root mkdir -p /run/mysqld && as_root chown mysql:mysql /run/mysqld 2>/dev/null || true
    as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql
    wait_for "MariaDB" mariadb-admin ping
  fi
  # A fresh install lets root in through the socket only; the tests connect over TCP without a password.
  as_root mariadb -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
    GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
    CREATE DATABASE IF NOT EXISTS test;" 2>/dev/null || true
  wait_for "MariaDB over TCP" mariadb_ok
}

SUITE_REPORTS=target/suite-reports
PASS="" # the pass whose reports are still in the modules' target folders

# Moves this pass's test reports, and its inconclusive timing repeats, out of the modules' target folders.
collect_reports() {
  local dest="$SUITE_REPORTS/$1" found module
  while IFS= read -r found; do
    module=${found#./}
    module=${module%%/target/*}
    mkdir -p "$dest/$module"
    mv "$found" "$dest/$module/"
  done < <(find . -path ./target -prune -o -path '*/target/*' \
    \( -name surefire-reports -o -name failsafe-reports -o -name inconclusive-timing.txt \) -print -prune)
}

summarize() {
  local status=$?
  trap - EXIT
  set +e # the summary is printed whatever went wrong; the exit code stays the build's
  [ -n "$PASS" ] && collect_reports "$PASS"
  python3 scripts/suite-summary.py "$SUITE_REPORTS" --status "$status" --json "$SUITE_REPORTS/summary.json" || true
  exit "$status"
}

install_missing_packages
ensure_postgres
ensure_mariadb

# Reports of earlier runs would be counted as this run's.
rm -rf "$SUITE_REPORTS"
find . -path ./target -prune -o -path '*/target/*' \
  \( -name surefire-reports -o -name failsafe-reports -o -name inconclusive-timing.txt \) -print -prune \
  | xargs -r rm -rf
trap summarize EXIT

# The API check's baseline is built from a git ref once per clone (about 3 minutes): in the background,
# beside the main build, whose modules mostly wait on servers and leases.
baseline_build=""
if [ $# -eq 0 ]; then
  mkdir -p target
  scripts/api-baseline.sh --if-missing >target/api-baseline.log 2>&1 &
  baseline_build=$!
fi

# Javadoc jars come with a plain `mvn install` (the docs profile); the test run leaves them out to
# keep within its time budget. -fae: a failing module does not stop the independent ones, so one run
# shows every failure (the modules that depend on the failed one are still skipped).
MAVEN=(mvn -B -ntp -e -fae -Dmaven.javadoc.skip=true)
log "Spring Boot 4.1: full build and tests"
# Three modules at a time: most of the suite waits on leases and servers rather than on the CPU (on
# 2 cores the CPUs are busy under half of the run), and the backends' modules are independent of
# each other (every test uses its own ports, tables and keys), so three of them share the machine's
# cores without changing what any test sees.
PASS=boot41
"${MAVEN[@]}" -T "${DISTLOCK_BUILD_THREADS:-3}" install "$@"
collect_reports "$PASS"

# Before the Spring Boot 3.5 run cleans the starter: the jars just built against the API baseline
# (RELEASING.md). Whole-suite runs only, since a partial build leaves other modules' jars stale.
if [ -n "$baseline_build" ]; then
  log "API compatibility with the baseline release"
  wait "$baseline_build" || { cat target/api-baseline.log >&2; exit 1; }
  scripts/check-api.sh --no-build
fi

log "Spring Boot 3.5: starter, Kotlin support and sample"
# clean: classes compiled against Spring Boot 4.1 must not be reused against 3.5's Spring Framework 6.
# Three at a time as above: the test support, Kotlin and sample modules only wait for the starter.
PASS=boot35
"${MAVEN[@]}" -T "${DISTLOCK_BUILD_THREADS:-3}" -Pboot35 clean verify \
  -pl lock-spring-boot-starter,lock-test,lock-kotlin,samples/inventory-service "$@"
collect_reports "$PASS"
PASS=""

# Virtual threads: one module needs Java 21 or later (the machine's second JDK).
jdk21=""
for home in /usr/lib/jvm/*; do
  release="$home/release"
  [ -f "$release" ] || continue
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release")
  if [ -n "$major" ] && [ "$major" -ge 21 ]; then jdk21=$home; fi
done
if [ -n "$jdk21" ]; then
  log "Virtual threads on $(basename "$jdk21"): 10,000 threads on 100 keys, pinning watched by JFR"
  PASS=jdk21
  JAVA_HOME=$jdk21 "${MAVEN[@]}" -f tests/virtual-threads/pom.xml verify
  collect_reports "$PASS"
  PASS=""
elif [ "${CI:-}" = "true" ]; then
  echo "No JDK 21 or later under /usr/lib/jvm for the virtual-thread tests." >&2
  exit 1
else
  log "No JDK 21 or later under /usr/lib/jvm: skipping the virtual-thread tests"
fi

# The documentation site: built from docs/ and the README (MkDocs, installed when missing), then every
# internal link and anchor of the HTML checked; no network. About 15 seconds.
log "Documentation site: build and link check"
scripts/docs-site.sh check
