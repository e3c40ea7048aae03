#!/usr/bin/env bash
# Runs the whole pipeline on this machine with no Docker: PostgreSQL and Kafka from the build's own
# dependencies, then writer, relay, consumer and the destination simulator.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/java-home.sh
echo "The demo is not wired yet: it lands with the writer, relay and consumer processes." >&2
exit 2
