#!/usr/bin/env bash
# Runs the whole pipeline on this machine with no Docker: PostgreSQL and Kafka from the build's own
# dependencies (data under .demo/), the destination simulator, and the writer, relay and consumer as
# three processes configured by connect-config/*.properties. Then it sends a few publication
# requests and shows each becoming exactly one remote article.
#   ./demo.sh                  run the scenario and stop
#   ./demo.sh --keep-running   leave everything up afterwards (Ctrl-C stops it)
set -euo pipefail
cd "$(dirname "$0")"
source scripts/java-home.sh
echo "Building (tests skipped) ..."
./mvnw -B -q -DskipTests -pl demo -am package
# The demo's own logging config; each process it starts gets connect-config/logback-<process>.xml.
exec "$JAVA_HOME/bin/java" -Xmx512m --enable-native-access=ALL-UNNAMED \
  -Dlogback.configurationFile=demo/logback-demo.xml \
  -cp "demo/target/classes:$(cat demo/target/demo.classpath)" \
  io.herald.demo.DemoMain "$@"
