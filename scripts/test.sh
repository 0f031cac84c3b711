#!/usr/bin/env bash
# Installs what the test suite needs when it is missing, starts the local database
# servers when they are down, and runs every test: every module on Spring Boot 4.1; the
# starter, test support, Kotlin support and sample again on Spring Boot 3.5; the virtual
# thread tests on Java 21 or later; the API check, the release bundle check and the documentation
# site's links.
#
#   scripts/test.sh                 # everything
#   scripts/test.sh -pl lock-redis  # one Maven build of what the arguments name, on Spring Boot 4.1
#
# Redis and etcd are not started here: the tests start their own redis-server and etcd
# processes on free loopback ports. ZooKeeper and H2 run inside the test JVM.
#
# It ends with one summary of every pass (scripts/suite-summary.py), passed or not: the reports
# are moved to target/suite-reports/<pass>/<module>/. Each job's output is in target/suite-logs/.
# DISTLOCK_TEST_SLOTS sets how many jobs run at once (5).
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
  command -v gpg >/dev/null || missing+=(gnupg)
  command -v zip >/dev/null || missing+=(zip)
  command -v unzip >/dev/null || missing+=(unzip)
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

# Moves this pass's test reports, and its inconclusive timing repeats, out of the modules' target folders
# of the tree at $2 (this one when not given).
collect_reports() {
  local dest="$PWD/$SUITE_REPORTS/$1" root=${2:-.} found module
  while IFS= read -r found; do
    module=${found#./}
    module=${module%%/target/*}
    mkdir -p "$dest/$module"
    mv "$root/$found" "$dest/$module/"
  done < <(cd "$root" && find . -path ./target -prune -o -path '*/target/*' \
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

MAVEN=(mvn -B -ntp -e -Dmaven.javadoc.skip=true)

if [ $# -gt 0 ]; then
  # A partial run: the arguments go to one Maven build of Spring Boot 4.1, modules three at a time.
  log "Spring Boot 4.1: mvn install $*"
  PASS=boot41
  "${MAVEN[@]}" -fae -T "${DISTLOCK_BUILD_THREADS:-3}" install "$@"
  collect_reports "$PASS"
  PASS=""
  exit 0
fi

# The whole suite runs in two steps. First every module is compiled, packaged and installed without its
# tests (about a minute). Then each module's tests run as a job of its own, several jobs at a time
# (scripts/suite-jobs.py): a module's tests need its dependencies' jars, not their tests, so no module
# waits for another's tests, and the slowest jobs start first. Most of the suite waits on leases and
# servers rather than on the CPU, and every test uses its own ports, tables and keys, so jobs that
# share the machine do not change what any test sees; timing tests measure the machine's stalls and
# repeat when a stall explains an overrun (docs/test-suite.md).
log "Spring Boot 4.1: compile, package and install every module"
"${MAVEN[@]}" -T 2 -DskipTests install

# The jars the API check compares, copied before the test jobs package their modules again.
api_jars=target/api-current
rm -rf "$api_jars" && mkdir -p "$api_jars"
for pom in */pom.xml; do
  grep -q '<distlock.api.skip>false</distlock.api.skip>' "$pom" || continue
  module=$(dirname "$pom")
  cp "$(ls "$module"/target/*.jar | grep -v -e '-tests\.jar$' -e '-sources\.jar$' -e '-javadoc\.jar$' | head -1)" "$api_jars/"
done

# The Spring Boot 3.5 pass builds the starter, the test support, Kotlin support and the sample again
# against Spring Boot 3.5, in a copy of the tree: its classes must not be mixed with those compiled
# against Spring Boot 4.1, and the copy lets it run beside the other jobs.
boot35_tree=target/boot35-tree
rm -rf "$boot35_tree" && mkdir -p "$boot35_tree"
tar --exclude=./target --exclude=./.git --exclude='*/target' -cf - . | tar -xf - -C "$boot35_tree"

# Virtual threads: one module needs Java 21 or later (the machine's second JDK).
jdk21=""
for home in /usr/lib/jvm/*; do
  release="$home/release"
  [ -f "$release" ] || continue
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release")
  if [ -n "$major" ] && [ "$major" -ge 21 ]; then jdk21=$home; fi
done
if [ -z "$jdk21" ] && [ "${CI:-}" = "true" ]; then
  echo "No JDK 21 or later under /usr/lib/jvm for the virtual-thread tests." >&2
  exit 1
fi

# A module's tests: the formatting was checked and the classes compiled in the first step.
tests_of() { echo "${MAVEN[*]} -Dspotless.check.skip=true -Dmaven.source.skip=true verify -pl $1"; }
jobs=$(
  # The longest first (seconds measured on 2 cores with several jobs at a time).
  for module in lock-jdbc lock-redis lock-zookeeper lock-etcd; do printf '%s\t%s\n' "$module" "$(tests_of $module)"; done
  printf 'boot35\tcd %s && %s -T 2 -Pboot35 -Dspotless.check.skip=true clean verify -pl %s\n' "$boot35_tree" \
    "${MAVEN[*]}" lock-spring-boot-starter,lock-test,lock-kotlin,samples/inventory-service
  # The Maven Central bundle, built with a release version and a throwaway key, and checked for what
  # Central refuses (about 3 minutes of CPU).
  printf 'release-bundle\tscripts/check-release-bundle.sh\n'
  for module in samples/inventory-service lock-leader-tests lock-spring-boot-starter tests/fencing-harness; do
    printf '%s\t%s\n' "$module" "$(tests_of $module)"
  done
  # The API check: the baseline is built from a git ref once per clone (about 3 minutes of CPU).
  printf 'api-check\tscripts/api-baseline.sh --if-missing && scripts/check-api.sh --jars %s\n' "$api_jars"
  for module in lock-contract-kit lock-test lock-core lock-fencing lock-shedlock lock-spring-integration \
    lock-kotlin tests/architecture; do
    printf '%s\t%s\n' "$module" "$(tests_of $module)"
  done
  if [ -n "$jdk21" ]; then
    printf 'virtual-threads\tJAVA_HOME=%s %s -f tests/virtual-threads/pom.xml verify\n' "$jdk21" "${MAVEN[*]}"
  fi
  # The documentation site: built from docs/ and the README (MkDocs, installed when missing), then every
  # internal link and anchor of the HTML checked; no network.
  printf 'docs-site\tscripts/docs-site.sh check\n'
)
[ -n "$jdk21" ] || log "No JDK 21 or later under /usr/lib/jvm: skipping the virtual-thread tests"

log "Tests: $(echo "$jobs" | wc -l) jobs, ${DISTLOCK_TEST_SLOTS:-5} at a time (logs in target/suite-logs/)"
status=0
echo "$jobs" | python3 scripts/suite-jobs.py --slots "${DISTLOCK_TEST_SLOTS:-5}" --logs target/suite-logs || status=$?
PASS=boot41
collect_reports "$PASS"
PASS=""
collect_reports boot35 "$boot35_tree"
if [ -d "$SUITE_REPORTS/boot41/tests/virtual-threads" ]; then
  mkdir -p "$SUITE_REPORTS/jdk21/tests" && mv "$SUITE_REPORTS/boot41/tests/virtual-threads" "$SUITE_REPORTS/jdk21/tests/"
fi
exit "$status"
