#!/usr/bin/env bash
# The compatibility matrix: the tests of the starter, lock-test and the sample on each Spring Boot line
# (3.5, 4.0, 4.1) with each JDK of this machine (17, 21, 25 under /usr/lib/jvm), results written into
# docs/compatibility.md and the README's table. Heavy (every cell builds and runs three modules' tests);
# the README's test command does not run it.
#
#   scripts/compat-matrix.sh                     # every cell this machine can run
#   scripts/compat-matrix.sh --boot 4.0 --jdk 25 # some cells; the others keep their last results
#
# Each cell installs what it built into a local Maven repository of the matrix (DISTLOCK_MATRIX_REPO,
# default ~/.cache/distlock-matrix/repository, seeded from ~/.m2/repository), never into ~/.m2, so the
# README snippets' test (ReadmeQuickStartIT) builds against the artifacts of that cell. Logs go beside it
# (DISTLOCK_MATRIX_LOGS), outside target/, which each cell's clean build removes.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*"; }

BOOT_LINES=(3.5 4.0 4.1)
JDK_MAJORS=(17 21 25)
declare -A PROFILE=([3.5]="-Pboot35" [4.0]="-Pboot40" [4.1]="")
MODULES=lock-spring-boot-starter,lock-test,samples/inventory-service
# What the tested modules and the README's projects need installed: the BOM and lock-kotlin come along.
INSTALL=distlock-bom,lock-kotlin,$MODULES
CACHE=$HOME/.cache/distlock-matrix
REPO=${DISTLOCK_MATRIX_REPO:-$CACHE/repository}
OUT=${DISTLOCK_MATRIX_LOGS:-$CACHE/logs}

boots=() jdks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --boot) boots+=("$2"); shift 2 ;;
    --jdk) jdks+=("$2"); shift 2 ;;
    *) echo "usage: $0 [--boot 3.5|4.0|4.1]... [--jdk 17|21|25]..." >&2; exit 2 ;;
  esac
done
[ ${#boots[@]} -gt 0 ] || boots=("${BOOT_LINES[@]}")
[ ${#jdks[@]} -gt 0 ] || jdks=("${JDK_MAJORS[@]}")

# One JDK home per major version (the packaged names have aliases: resolve links, keep the first).
declare -A JDK_HOME=()
for home in /usr/lib/jvm/*; do
  [ -f "$home/release" ] && [ -x "$home/bin/java" ] || continue
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")
  [ -n "$major" ] && [ -z "${JDK_HOME[$major]:-}" ] && JDK_HOME[$major]=$(readlink -f "$home")
done

if [ ! -d "$REPO" ]; then
  log "seeding $REPO from ~/.m2/repository"
  mkdir -p "$(dirname "$REPO")"
  cp -a "$HOME/.m2/repository" "$REPO" 2>/dev/null || mkdir -p "$REPO"
fi
mkdir -p "$OUT"
RESULTS=$OUT/results.tsv
# The code the cells test: the commit at the start, marked when the working tree differs from it.
COMMIT=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- . ':!README.md' ':!docs/compatibility.md' || COMMIT="$COMMIT with local changes"
: >"$RESULTS"

# Tests, failures+errors, skipped and the failed classes, from the JUnit reports of the tested modules.
count_reports() {
  python3 - "$@" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
tests = failed = skipped = 0
names = []
for module in sys.argv[1:]:
    for report in glob.glob(module + "/target/surefire-reports/TEST-*.xml") + glob.glob(module + "/target/failsafe-reports/TEST-*.xml"):
        suite = ET.parse(report).getroot()
        tests += int(suite.get("tests", 0))
        bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        failed += bad
        skipped += int(suite.get("skipped", 0))
        if bad:
            names.append(suite.get("name").rsplit(".", 1)[-1])
print(tests, failed, skipped, ", ".join(sorted(set(names))) or "-")
PY
}

run_cell() { # boot line, JDK major
  local boot=$1 major=$2 home=${JDK_HOME[$2]:-} cell_log result started seconds
  if [ -z "$home" ]; then
    printf '%s\t%s\tnot tested here: no JDK %s on this machine\n' "$boot" "$major" "$major" >>"$RESULTS"
    return
  fi
  cell_log="$OUT/boot$boot-jdk$major.log"
  local maven=(mvn -B -ntp -e -Dmaven.repo.local="$REPO" -Dmaven.javadoc.skip=true ${PROFILE[$boot]})
  log "Spring Boot $boot on JDK $major ($home): log in $cell_log"
  started=$(date +%s)
  if ! JAVA_HOME=$home "${maven[@]}" clean install -DskipTests -pl "$INSTALL" -am >"$cell_log" 2>&1; then
    result="failed: the build did not compile (see the log)"
  else
    JAVA_HOME=$home "${maven[@]}" verify -Dmaven.test.failure.ignore=true -pl "$MODULES" >>"$cell_log" 2>&1 || true
    read -r tests failed skipped names < <(count_reports ${MODULES//,/ })
    if ! grep -q "BUILD SUCCESS" <(tail -20 "$cell_log") && [ "$failed" -eq 0 ]; then
      result="failed: the build failed outside the tests (see the log)"
    elif [ "$tests" -eq 0 ]; then
      result="failed: no tests ran"
    elif [ "$failed" -eq 0 ]; then
      result="passed: $tests tests, $skipped skipped"
    else
      result="failed: $failed of $tests tests ($names)"
    fi
  fi
  seconds=$(($(date +%s) - started))
  log "Spring Boot $boot on JDK $major: $result ($seconds s)"
  printf '%s\t%s\ttested: %s (%d min; JDK %s, Spring Boot %s)\n' "$boot" "$major" "$result" $(((seconds + 59) / 60)) \
    "$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$home/release")" "$(boot_version "$boot")" >>"$RESULTS"
}

boot_version() { # boot line -> the Spring Boot version its profile builds with, from the parent POM
  local id=${PROFILE[$1]#-P}
  if [ -z "$id" ]; then
    sed -n '/<properties>/,/<\/properties>/s/.*<spring-boot.version>\(.*\)<\/spring-boot.version>.*/\1/p' pom.xml | head -1
  else
    sed -n "/<id>$id<\/id>/,/<\/profile>/s/.*<spring-boot.version>\(.*\)<\/spring-boot.version>.*/\1/p" pom.xml
  fi
}

for boot in "${boots[@]}"; do
  for major in "${jdks[@]}"; do
    run_cell "$boot" "$major"
  done
done

log "writing docs/compatibility.md and the README's table"
python3 scripts/compat_table.py "$RESULTS" "$COMMIT" "${BOOT_LINES[*]}" "${JDK_MAJORS[*]}"
