# One image per Herald process, built from this repository:
#   docker build --build-arg MODULE=writer --build-arg MAIN=io.herald.writer.WriterMain -t herald-writer .
# docker-compose.yml builds all of them. Every image also holds the operator's command, `herald`,
# reading the image's connect-config/ and the container's HERALD_* variables:
#   docker compose exec consumer herald deliveries list --state NEEDS_RECONCILIATION
FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
COPY . .
RUN ./mvnw -B -q -DskipTests -pl writer,relay,consumer,dev-stack,cli -am package \
 && ./mvnw -B -q -DskipTests -pl writer,relay,consumer,dev-stack \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=target/lib \
 && for m in writer relay consumer dev-stack cli; do cp $m/target/herald-*.jar $m/target/lib/; done

FROM eclipse-temurin:25-jre
ARG MODULE
ARG MAIN
ARG CONFIG=none
RUN useradd --system --uid 10001 herald
WORKDIR /app
COPY --from=build /src/${MODULE}/target/lib /app/lib
COPY --from=build /src/cli/target/lib /app/cli/lib
COPY connect-config /app/connect-config
# The herald command: from /app, so its default --config-dir is the image's connect-config/.
RUN printf '%s\n' '#!/bin/sh' 'cd /app || exit 2' \
      'exec java --enable-native-access=ALL-UNNAMED -Dlogback.configurationFile=/app/connect-config/logback-cli.xml -cp "/app/cli/lib/*" io.herald.cli.Herald "$@"' \
      > /usr/local/bin/herald && chmod 755 /usr/local/bin/herald
# Logging config lives beside the process's property file (no jar ships one): connect-config/logback-<module>.xml.
# HERALD_LOGBACK picks another, e.g. /app/connect-config/logback-writer-json.xml for JSON lines.
ENV HERALD_MAIN=${MAIN} HERALD_CONFIG=/app/connect-config/${CONFIG} \
    HERALD_LOGBACK=/app/connect-config/logback-${MODULE}.xml JAVA_OPTS="-XX:MaxRAMPercentage=75"
USER herald
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS -Dlogback.configurationFile=$HERALD_LOGBACK -cp '/app/lib/*' $HERALD_MAIN $HERALD_CONFIG \"$@\"", "--"]
