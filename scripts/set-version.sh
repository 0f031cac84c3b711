#!/usr/bin/env bash
# Sets the project version in every POM of the work tree (the modules, distlock-bom, the parent
# references and tests/virtual-threads) and in the README's BOM snippet (marked quickstart:bom), which a
# test builds against this version. The README's release coordinates (its quick start and "1. Get the
# artifacts") name the latest release and are changed by hand (RELEASING.md).
#
#   scripts/set-version.sh 1.0.0             # from the current version
#   scripts/set-version.sh 1.1.0-SNAPSHOT
set -euo pipefail
cd "$(dirname "$0")/.."

new=${1:?usage: $0 NEW_VERSION}
current=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
[ "$current" != "$new" ] || { echo "The version is $new already."; exit 0; }
find . -name pom.xml -not -path '*/target/*' \
  -exec sed -i "s:<version>$current</version>:<version>$new</version>:g" {} +
# Only the block after the <!-- quickstart:bom --> marker, up to its closing fence.
sed -i "/<!-- quickstart:bom -->/,/^\`\`\`\$/{/^\`\`\`xml/b;s:<version>$current</version>:<version>$new</version>:}" README.md
remaining=$(grep -rl --include=pom.xml "<version>$current</version>" . | grep -v /target/ || true)
[ -z "$remaining" ] || { echo "Still $current in: $remaining" >&2; exit 1; }
echo "$current -> $new"
