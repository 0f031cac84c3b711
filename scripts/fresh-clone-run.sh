#!/usr/bin/env bash
# Runs the README's test command (scripts/test.sh) with CI=true on a fresh clone of HEAD in a temporary
# folder, as a new contributor would, and appends one line to tests/suite-runs.md: date, commit,
# seconds, result, failed tests and inconclusive timing repeats. Commit that file to keep the record.
#
#   scripts/fresh-clone-run.sh
#
# The clone installs its artifacts into a Maven repository of its own, which links every other
# artifact of ~/.m2/repository: a run never replaces the distlock snapshots that builds of this
# working tree use. The run's output is kept in target/fresh-clone-runs/, its jobs' logs and test reports
# in a folder of the same name.
# DISTLOCK_FRESH_CLONE_COMMAND runs another command in the clone instead of scripts/test.sh (to try
# this script without waiting for the suite).
set -uo pipefail
cd "$(dirname "$0")/.."

repo=$(pwd)
commit=$(git rev-parse --short HEAD)
record=tests/suite-runs.md
command=${DISTLOCK_FRESH_CLONE_COMMAND:-scripts/test.sh}
work=$(mktemp -d "${TMPDIR:-/tmp}/distlock-fresh-clone.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A repository whose entries link to the shared one, except dev/distlock, which the clone's build installs.
own_maven_repository() {
  local shared=${HOME}/.m2/repository own=$work/m2 entry
  mkdir -p "$own/dev"
  for entry in "$shared"/* "$shared"/dev/*; do
    [ -e "$entry" ] || continue
    case "${entry#"$shared"/}" in
      dev | dev/distlock) ;;
      dev/*) ln -s "$entry" "$own/dev/" ;;
      *) ln -s "$entry" "$own/" ;;
    esac
  done
  echo "$own"
}

# One markdown cell: "-" when empty, items joined by "; ", no pipe that would end the cell.
cell() { local text; text=$(paste -sd ';' - | sed 's/;/; /g; s/|/\\|/g'); echo "${text:--}"; }

git clone -q --no-checkout "$repo" "$work/distlock"
git -C "$work/distlock" checkout -q --detach "$(git rev-parse HEAD)"
mkdir -p target/fresh-clone-runs
log="$repo/target/fresh-clone-runs/$(date -u +%Y%m%dT%H%M%SZ)-$commit.log"
echo "==> $command on a fresh clone of $commit in $work (output also in $log)"
started=$(date +%s)
(cd "$work/distlock" && CI=true MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$(own_maven_repository)" \
  bash -c "$command") 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
seconds=$(($(date +%s) - started))
# The jobs' logs and the reports outlive the clone, beside the run's output.
kept=${log%.log}
mkdir -p "$kept"
for folder in suite-logs suite-reports; do
  [ -d "$work/distlock/target/$folder" ] && cp -r "$work/distlock/target/$folder" "$kept/"
done

summary="$work/distlock/target/suite-reports/summary.json"
failed="build failed (exit $status) before any test report"
inconclusive="-"
if [ -f "$summary" ]; then
  failed=$(python3 -c 'import json,sys; print("\n".join(t.split(":")[0] for t in json.load(open(sys.argv[1]))["failedTests"]))' "$summary" | cell)
  inconclusive=$(python3 -c 'import json,sys; print("\n".join(l.split()[2] for l in json.load(open(sys.argv[1]))["inconclusive"]))' "$summary" | cell)
fi
if [ "$status" -eq 0 ]; then result=green; else result="red (exit $status)"; fi
line="| $(date -u -d "@$started" '+%Y-%m-%d %H:%M') | $commit | $seconds | $result | $failed | $inconclusive |"
echo "$line" >> "$record"
echo "==> $record: $line"
exit "$status"
