#!/usr/bin/env bash
# Runs the benchmarks and writes their tables to benchmarks/results/*.md.
#
#   benchmarks/run.sh                      # all of the below, one after another
#   benchmarks/run.sh redis                # one peer comparison: redis, zookeeper, etcd or jdbc
#   benchmarks/run.sh coordination         # semaphores and multi-key locks beside Redisson and Curator
#   benchmarks/run.sh read-write           # read/write lock rates on every backend
#   benchmarks/run.sh contention           # contended paths: 8 readers + 1 writer and many waiters on one
#                                          # key beside Redisson and Curator, and the Redis hand-over tail
#   benchmarks/run.sh overrun              # calls under CPU load on every backend, plain locks beside
#                                          # semaphores (how far each overruns its wait)
#   benchmarks/run.sh server-state [KEYS [NAMES]]
#                                          # KEYS distinct keys (default 1,000,000) locked and
#                                          # released once per backend, NAMES distinct semaphore
#                                          # names (default KEYS) acquired and released, and what
#                                          # stays on the server
#
# Needs what the test suite needs (scripts/test.sh installs it): redis-server and etcd on the
# PATH, PostgreSQL on 127.0.0.1:5432 and MariaDB on 127.0.0.1:3306. The project is installed
# into the local Maven repository first. Extra Maven options can be given in MAVEN_ARGS, e.g. a short
# contention run: MAVEN_ARGS="-Dcontention.rounds=2 -Dcontention.sliceMillis=1000" benchmarks/run.sh contention
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

contention() {
  log "benchmark: contended paths"
  local out=benchmarks/results/contention.md parts=benchmarks/contention/target
  local handover=$PWD/benchmarks/redis/target/contention-handover.md
  rm -f "$parts"/contention-*.md "$handover"
  mvn_quiet -q -pl benchmarks/contention exec:java
  log "benchmark: Redis hand-over tail, distlock beside the busy spin"
  mvn_quiet -q -pl benchmarks/redis exec:java -Dparts=handover -Dlibraries=distlock -Dexec.args="$handover"
  {
    echo "# Contended paths"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, $(java -version 2>&1 | head -1), by"
    echo "\`benchmarks/run.sh contention\` (modules \`benchmarks/contention\`, main \`ContentionBenchmark\`, and"
    echo "\`benchmarks/redis\` with \`-Dparts=handover -Dlibraries=distlock\`). Four measurements, each below with"
    echo "its servers, rounds and what is counted: 8 readers and 1 writer on one key (distlock beside Redisson's"
    echo "\`RReadWriteLock\` on Redis and Curator's \`InterProcessReadWriteLock\` on ZooKeeper; alone on etcd and"
    echo "PostgreSQL, against its single-thread read rate and its plain lock's hand-over rate), many clients"
    echo "waiting for one key (beside Redisson's \`RLock\` and Curator's \`InterProcessMutex\`), the leader"
    echo "hand-over on resign, and the Redis hand-over latency beside a busy-spinning waiter. Rates are medians"
    echo "over interleaved rounds, ratios the"
    echo "median of per-round ratios (hand-over percentiles: over all samples of all rounds). The machine's cores"
    echo "are shared with the servers measured; compare rows of one run."
    echo
    echo "Ratios:"
    echo
    cat "$parts"/contention-ratios.md
    grep -h '^distlock ÷ busy spin' "$handover" | sed -e 's/^/- Redis hand-over, /'
    echo
    # Each part is a document of its own; its headings go one level down here.
    for part in "$parts"/contention-read-write.md "$parts"/contention-many-waiters.md "$parts"/contention-leader.md \
      "$handover"; do
      sed -E 's/^(#+) /#\1 /' "$part"
      echo
    done | cat -s
  } >"$out"
  log "wrote $out"
}

overrun() {
  log "benchmark: calls under CPU load, plain locks beside semaphores"
  local out=benchmarks/results/overrun.md parts=benchmarks/contention/target
  rm -f "$parts"/contention-overrun.md
  mvn_quiet -q -pl benchmarks/contention exec:java -Dexec.args="$PWD/$parts overrun"
  {
    head -1 "$parts"/contention-overrun.md
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, $(java -version 2>&1 | head -1), by"
    echo "\`benchmarks/run.sh overrun\` (module \`benchmarks/contention\`, main \`ContentionBenchmark\`, part"
    echo "\`overrun\`)."
    tail -n +2 "$parts"/contention-overrun.md
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
    contention
    server_state
    ;;
  redis | zookeeper | etcd | jdbc | coordination) install_project; peer_comparison "$1" ;;
  read-write) install_project; read_write ;;
  contention) install_project; contention ;;
  overrun) install_project; overrun ;;
  server-state) install_project; server_state "${2:-}" "${3:-}" ;;
  *) echo "usage: $0 [all | redis | zookeeper | etcd | jdbc | coordination | read-write | contention | overrun | server-state [KEYS [NAMES]]]" >&2; exit 2 ;;
esac
