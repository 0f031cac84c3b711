#!/usr/bin/env bash
# Runs the benchmarks and writes their tables to benchmarks/results/*.md.
#
#   benchmarks/run.sh                      # all of the below, one after another
#   benchmarks/run.sh redis                # one peer comparison: redis, zookeeper, etcd or jdbc
#   benchmarks/run.sh coordination         # semaphores and multi-key locks beside Redisson and Curator
#   benchmarks/run.sh read-write           # read/write lock rates on every backend
#   benchmarks/run.sh server-state [KEYS [NAMES]]
#                                          # KEYS distinct keys (default 1,000,000) locked and
#                                          # released once per backend, NAMES distinct semaphore
#                                          # names (default KEYS) acquired and released, and what
#                                          # stays on the server
#
# Needs what the test suite needs (scripts/test.sh installs it): redis-server and etcd on the
# PATH, PostgreSQL on 127.0.0.1:5432 and MariaDB on 127.0.0.1:3306. The project is installed
# into the local Maven repository first. Extra Maven options can be given in MAVEN_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*"; }
mvn_quiet() { mvn -B -ntp ${MAVEN_ARGS:-} "$@"; }

install_project() {
  log "installing the project (tests skipped)"
  mvn_quiet -q install -DskipTests
}

peer_comparison() { # backend
  log "benchmark: $1 beside its peers"
  mvn_quiet -q -pl "benchmarks/$1" exec:java
}

read_write() {
  log "benchmark: read/write locks on every backend"
  local out=benchmarks/results/read-write.md parts=() backend
  rm -f benchmarks/read-write/target/read-write-*.md
  mvn_quiet -q -pl benchmarks/read-write exec:java
  for backend in memory redis zookeeper etcd jdbc; do
    parts+=(benchmarks/read-write/target/read-write-"$backend".md)
  done
  {
    echo "# Read/write lock figures"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, $(java -version 2>&1 | head -1), by"
    echo "\`benchmarks/run.sh read-write\` (harness \`dev.distlock.bench.rw.ReadWriteBenchmark\`, module \`benchmarks/read-write\`)."
    echo "Per backend: one thread's plain, read and write acquire+release on an idle key, then 8 readers"
    echo "(over two registries, standing for two JVMs) and 1 writer looping on one key. Warm-up 1 s,"
    echo "3 s per row, watchdog leases. Compare rows of one backend; absolute rates move with the load."
    echo
    # Each part is a document of its own; its headings go one level down here.
    sed -e 's/^# /## /' "${parts[@]}" | cat -s
  } >"$out"
  log "wrote $out"
}

server_state() { # keys, semaphore names
  local keys=${1:-1000000} report semaphore_report
  local names=${2:-$keys}
  report=$(mktemp)
  semaphore_report=$(mktemp)
  log "server state: $keys distinct keys and $names distinct semaphore names per backend"
  mvn_quiet -pl lock-redis,lock-zookeeper,lock-etcd,lock-jdbc verify \
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test='SingleRedisServerSideIT#manyDistinct*,ClusterRedisServerSideIT#manyDistinct*,RedlockServerSideIT#manyDistinct*,ZooKeeperServerStateIT,EtcdServerStateIT,ServerStateIT#distinct*' \
    -Dfailsafe.failIfNoSpecifiedTests=false \
    -Ddistlock.server-state.keys="$keys" -Ddistlock.server-state.report="$report" \
    -Ddistlock.server-state.semaphores="$names" -Ddistlock.server-state.semaphore-report="$semaphore_report" \
    -Djunit.jupiter.execution.timeout.mode=disabled
  local out=benchmarks/results/server-state.md
  {
    echo "# What stays on the server"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores by \`benchmarks/run.sh server-state $keys $names\`:"
    echo "the server-state tests of each backend lock and release $keys distinct keys once each"
    echo "(several threads and registries), wait out the documented horizon, count what is left and check"
    echo "that the lock still works. The suite runs the same tests with 100,000 keys (20,000 on the Redis"
    echo "Cluster and Redlock setups). \"Before\" is the server as the test found it."
    echo
    echo "| backend | keys | took | keys/s | before | after |"
    echo "|---|---:|---:|---:|---|---|"
    cat "$report"
    echo
    echo "## Semaphores"
    echo
    echo "The same tests acquire and release permits of $names distinct semaphore names, each a"
    echo "\`LeasedSemaphore\` of 2 permits (its keys: two slots and the queue), over two registries; by"
    echo "turns, one acquisition takes both permits, or two registries take one each, or one holds a permit"
    echo "while another's acquisition of both waits for it. Then the same count and bound as for the locks."
    echo "The suite runs them with 2,000 to 10,000 names per backend."
    echo
    echo "| backend | names | acquisitions | took | names/s | before | after |"
    echo "|---|---:|---:|---:|---:|---|---|"
    cat "$semaphore_report"
  } >"$out"
  rm -f "$report" "$semaphore_report"
  log "wrote $out"
}

case "${1:-all}" in
  all)
    install_project
    for backend in redis zookeeper etcd jdbc coordination; do peer_comparison "$backend"; done
    read_write
    server_state
    ;;
  redis | zookeeper | etcd | jdbc | coordination) install_project; peer_comparison "$1" ;;
  read-write) install_project; read_write ;;
  server-state) install_project; server_state "${2:-}" "${3:-}" ;;
  *) echo "usage: $0 [all | redis | zookeeper | etcd | jdbc | coordination | read-write | server-state [KEYS [NAMES]]]" >&2; exit 2 ;;
esac
