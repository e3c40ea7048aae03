package io.herald.demo;

import io.herald.devstack.PostgresServer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the pipeline's processes find PostgreSQL, Kafka and the destinations, and the names they
 * use there. The demo uses the shipped defaults; the end-to-end test uses names unique to it.
 *
 * @param configDir the folder holding the shipped {@code writer.properties} and friends
 */
record PipelineSettings(
    PostgresServer postgres,
    String database,
    String bootstrapServers,
    String publication,
    String slot,
    String publicationTopic,
    String deliveryTopic,
    String dlqTopic,
    String offsetsTopic,
    String consumerGroup,
    String destinationsBaseUrl,
    Path configDir,
    Path logDir) {

  PipelineSettings {
    Objects.requireNonNull(postgres, "postgres");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(destinationsBaseUrl, "destinationsBaseUrl");
    Objects.requireNonNull(configDir, "configDir");
    Objects.requireNonNull(logDir, "logDir");
  }
}
