#!/usr/bin/env bash
# The API compatibility check: compares the public API of lock-core, the backends' registries and
# builders, and the starter's annotations and properties with the baseline release (japicmp; the
# modules and what they cover are in the POMs, see RELEASING.md). A binary- or source-incompatible
# change fails it, unless the major version differs from the baseline's.
#
#   scripts/check-api.sh             # builds the checked modules (no tests) and compares
#   scripts/check-api.sh --no-build  # compares the jars the last build left in target/
#   scripts/check-api.sh --jars DIR  # compares the jars copied into DIR (scripts/test.sh)
#   scripts/check-api.sh --control   # proves the check: a copy without a public method must fail it
#
# The baseline is built once from its git ref (scripts/api-baseline.sh) into target/api-baseline/.
# Reports: <module>/target/japicmp/. Extra arguments go to Maven.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" pom.xml | head -1; }
baseline=$(property distlock.api.baseline.version)
ref=$(property distlock.api.baseline.ref)
current=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
modules=$(grep -l '<distlock.api.skip>false</distlock.api.skip>' */pom.xml | xargs -n1 dirname | sort | paste -sd, -)
dir="$root/target/api-baseline/$baseline"
mvn_args=(-B -ntp -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dmaven.install.skip=true)

if [ ! -f "$dir/commit" ] || [ "$(cat "$dir/commit")" != "$(git rev-parse "$ref^{commit}")" ]; then
  scripts/api-baseline.sh
fi

mode=${1:-}
jars=""
case $mode in
  --no-build | --control) shift ;;
  --jars) jars=$(cd "$2" && pwd); mode=--no-build; shift 2 ;;
  *) mode="" ;;
esac

if [ "$mode" = "--control" ]; then
  # RegistryOptions.withApplicationName is public API that lock-core's main code does not call, so the
  # copy still compiles (its tests are not compiled); only lock-core is built.
  work=$(mktemp -d "${TMPDIR:-/tmp}/distlock-api-control.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  git ls-files -z | tar --null -cf - -T - | tar -xf - -C "$work"
  python3 - "$work/lock-core/src/main/java/dev/distlock/core/RegistryOptions.java" <<'PY'
import re, sys
path = sys.argv[1]
source = open(path).read()
changed = re.sub(r"\n    public RegistryOptions withApplicationName\(String applicationName\) \{\n.*?\n    \}\n", "\n", source, flags=re.S)
assert changed != source, "withApplicationName not found"
open(path, "w").write(changed)
PY
  echo "==> control: lock-core without RegistryOptions.withApplicationName(String) must fail the API check"
  if (cd "$work" && mvn "${mvn_args[@]}" -Dmaven.test.skip=true -Dspotless.check.skip=true -Papi-check -Ddistlock.api.baseline.dir="$dir" \
    -pl lock-core verify "$@" \
    >"$work/control.log" 2>&1); then
    tail -40 "$work/control.log"; echo "FAILED: the API check passed without a public method" >&2; exit 1
  fi
  grep -q "withApplicationName(java.lang.String):METHOD_REMOVED" "$work/control.log" \
    || { tail -40 "$work/control.log"; echo "FAILED: the API check failed for another reason" >&2; exit 1; }
  grep -m1 -o "[^ ]*withApplicationName(java.lang.String):METHOD_REMOVED" "$work/control.log"
  echo "==> control failed as it must"
  exit 0
fi

args=()
if [ "${current%%.*}" != "${baseline%%.*}" ]; then
  echo "==> major version $current against baseline $baseline: incompatible changes are reported, not refused"
  args+=(-Ddistlock.api.failOnBreaking=false)
fi
echo "==> API of $current against $baseline ($modules)"
[ -n "$jars" ] && args+=(-Ddistlock.api.current.dir="$jars")
if [ "$mode" = "--no-build" ]; then
  mvn -B -ntp -pl "$modules" japicmp:cmp "${args[@]}" "$@"
else
  mvn "${mvn_args[@]}" -Papi-check -pl "$modules" -am verify "${args[@]}" "$@"
fi
