#!/usr/bin/env bash
# Builds the API baseline: the jars of the modules the API check covers, from the git ref and for the
# version the root POM names (distlock.api.baseline.ref and distlock.api.baseline.version), into
# target/api-baseline/<version>/<artifactId>.jar. scripts/check-api.sh calls it when the folder is
# missing; run it by hand after moving the baseline (RELEASING.md).
#
#   scripts/api-baseline.sh              # the ref and version of pom.xml
#   scripts/api-baseline.sh REF VERSION  # another baseline, e.g. v1.0.0 1.0.0
#   scripts/api-baseline.sh --if-missing # only when target/ has no baseline of that ref (scripts/test.sh)
#
# The ref is exported with git archive into a temporary folder and built there without tests:
# nothing in the work tree, the git repository or the local Maven repository changes.
set -euo pipefail
cd "$(dirname "$0")/.."

property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" pom.xml | head -1; }
if_missing=""
if [ "${1:-}" = "--if-missing" ]; then if_missing=1; shift; fi
ref=${1:-$(property distlock.api.baseline.ref)}
version=${2:-$(property distlock.api.baseline.version)}
out="target/api-baseline/$version"
# The modules whose POM sets distlock.api.skip to false.
modules=$(grep -l '<distlock.api.skip>false</distlock.api.skip>' */pom.xml | xargs -n1 dirname | sort | paste -sd, -)

git rev-parse --verify --quiet "$ref^{commit}" >/dev/null || { echo "No commit $ref in this repository." >&2; exit 1; }
if [ -n "$if_missing" ] && [ -f "$out/commit" ] && [ "$(cat "$out/commit")" = "$(git rev-parse "$ref^{commit}")" ]; then
  echo "==> the API baseline $version from $ref is in $out"
  exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/distlock-api-baseline.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "==> building the API baseline $version from $ref ($modules)"
git archive "$ref" | tar -x -C "$work"
(cd "$work" && mvn -B -ntp -q -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dspotless.check.skip=true \
  -Dmaven.install.skip=true -pl "$modules" -am package)
rm -rf "$out" && mkdir -p "$out"
for module in ${modules//,/ }; do
  jar=$(ls "$work/$module"/target/*.jar | grep -v -e '-tests\.jar$' -e '-sources\.jar$' -e '-javadoc\.jar$' | head -1)
  cp "$jar" "$out/$(basename "$module").jar"
done
git rev-parse "$ref^{commit}" >"$out/commit"
echo "==> baseline in $out: $(ls "$out" | grep -c '\.jar$') jars"
