#!/usr/bin/env bash
# Runs the inventory-service sample with no server: stock and locks live in an in-memory H2 database.
#   scripts/run-sample.sh                     # REST service on :8080 (POST /orders, GET /stock/{sku}, POST /load-runs)
#   scripts/run-sample.sh --load-run          # 300 concurrent buyers against 50 items, prints sold/stock-left/oversold, exits
#   scripts/run-sample.sh --load-run --inventory.load-run.unlocked=true   # the same without the lock: oversells
# Any arguments are passed to the application (Spring Boot --property=value form).
set -euo pipefail
cd "$(dirname "$0")/.."

# Build the sample and the modules it uses (lock-core, backends, starter) into the local repository.
mvn -q install -DskipTests -pl samples/inventory-service -am

exec java -jar samples/inventory-service/target/inventory-service-1.0.0-SNAPSHOT.jar "$@"
