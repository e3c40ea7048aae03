# One image per Herald process, built from this repository:
#   docker build --build-arg MODULE=writer --build-arg MAIN=io.herald.writer.WriterMain -t herald-writer .
# docker-compose.yml builds all of them.
FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
COPY . .
RUN ./mvnw -B -q -DskipTests -pl writer,relay,consumer,dev-stack -am package \
 && ./mvnw -B -q -DskipTests -pl writer,relay,consumer,dev-stack \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=target/lib \
 && for m in writer relay consumer dev-stack; do cp $m/target/herald-*.jar $m/target/lib/; done

FROM eclipse-temurin:25-jre
ARG MODULE
ARG MAIN
ARG CONFIG=none
RUN useradd --system --uid 10001 herald
WORKDIR /app
COPY --from=build /src/${MODULE}/target/lib /app/lib
COPY connect-config /app/connect-config
# Logging config lives beside the process's property file (no jar ships one): connect-config/logback-<module>.xml.
# HERALD_LOGBACK picks another, e.g. /app/connect-config/logback-writer-json.xml for JSON lines.
ENV HERALD_MAIN=${MAIN} HERALD_CONFIG=/app/connect-config/${CONFIG} \
    HERALD_LOGBACK=/app/connect-config/logback-${MODULE}.xml JAVA_OPTS="-XX:MaxRAMPercentage=75"
USER herald
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS -Dlogback.configurationFile=$HERALD_LOGBACK -cp '/app/lib/*' $HERALD_MAIN $HERALD_CONFIG \"$@\"", "--"]
