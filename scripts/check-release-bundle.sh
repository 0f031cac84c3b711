#!/usr/bin/env bash
# Builds the Maven Central bundle as a release would and checks it for what Central refuses (see
# scripts/release/verify_bundle.py), then proves the check works: the same bundle without
# lock-core's Javadoc jar must fail it.
#
#   scripts/check-release-bundle.sh                  # release version: the current one without -SNAPSHOT
#   RELEASE_VERSION=1.0.1 scripts/check-release-bundle.sh
#   scripts/check-release-bundle.sh --verify FILE    # check a bundle built elsewhere (GNUPGHOME must hold its key)
#
# The build runs in a temporary copy of the work tree (tracked and untracked files, without what
# .gitignore leaves out) with the release version set, signs with a throwaway GPG key made in a
# temporary GNUPGHOME, skips the tests, installs nothing and uploads nothing. Extra arguments go to
# Maven. It takes about 3 minutes on 2 cores; scripts/test.sh runs it as one of its jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

log() { printf '==> %s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

command -v gpg >/dev/null || fail "gpg is missing (Debian: gnupg)"
command -v python3 >/dev/null || fail "python3 is missing"

work=$(mktemp -d "${TMPDIR:-/tmp}/distlock-release-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

verify() { # bundle zip, BOM POM
  rm -rf "$work/bundle" && mkdir "$work/bundle"
  unzip -q "$1" -d "$work/bundle"
  python3 "$root/scripts/release/verify_bundle.py" "$work/bundle" "$2"
}

if [ "${1:-}" = "--verify" ]; then
  [ -f "${2:-}" ] || fail "usage: $0 --verify central-bundle.zip"
  verify "$(realpath "$2")" "$root/distlock-bom/pom.xml" || fail "the bundle would be refused"
  exit 0
fi

current=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
release=${RELEASE_VERSION:-${current%-SNAPSHOT}}
case $release in *SNAPSHOT*) fail "the release version $release is a SNAPSHOT" ;; esac

log "copying the work tree and setting version $release (was $current)"
mkdir "$work/tree"
while IFS= read -r -d '' file; do [ -e "$file" ] && printf '%s\0' "$file"; done \
  < <(git ls-files -z --cached --others --exclude-standard) | tar --null -cf - -T - | tar -xf - -C "$work/tree"
"$work/tree/scripts/set-version.sh" "$release" >/dev/null

export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"
trap 'gpgconf --kill all >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
log "making a throwaway signing key in $GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'distlock release check <release-check@distlock.invalid>' \
  ed25519 sign 1d 2>/dev/null
key=$(gpg --list-keys --with-colons 2>/dev/null | awk -F: '/^fpr:/ { print $10; exit }')

log "release build (mvn -Prelease deploy, tests skipped, nothing uploaded)"
start=$(date +%s)
(cd "$work/tree" && mvn -B -ntp -Prelease -DskipTests -Dmaven.install.skip=true -Dgpg.keyname="$key" \
  deploy "$@" >"$work/build.log" 2>&1) || { tail -60 "$work/build.log"; fail "the release build failed"; }
log "release build took $(( $(date +%s) - start ))s"
bundle="$work/tree/target/central-publishing/central-bundle.zip"
[ -f "$bundle" ] || fail "no bundle at $bundle"

log "checking the bundle"
verify "$bundle" "$work/tree/distlock-bom/pom.xml" || fail "the bundle would be refused"

log "control: the same bundle without lock-core's Javadoc jar must fail the check"
zip -q -d "$bundle" "dev/distlock/lock-core/$release/lock-core-$release-javadoc.jar*" >/dev/null \
  || fail "control: could not remove the Javadoc jar from the bundle"
if verify "$bundle" "$work/tree/distlock-bom/pom.xml" >"$work/control.log"; then
  cat "$work/control.log"; fail "control: the check passed a bundle without lock-core's Javadoc jar"
fi
grep -q "lock-core: no lock-core-$release-javadoc.jar" "$work/control.log" \
  || { cat "$work/control.log"; fail "control: the check failed for another reason"; }
log "control failed as it must: $(grep 'javadoc.jar' "$work/control.log" | head -1 | sed 's/^ *//')"
log "release bundle OK"
