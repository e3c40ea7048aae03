package io.herald.demo;

import io.herald.devstack.KafkaBroker;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the pipeline's processes find PostgreSQL, Kafka and the destinations, and the names they
 * use there. The demo uses the shipped defaults; the end-to-end test uses names unique to it.
 *
 * @param configDir the folder holding the shipped {@code writer.properties} and friends
 */
public record PipelineSettings(
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

  public PipelineSettings {
    Objects.requireNonNull(postgres, "postgres");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(destinationsBaseUrl, "destinationsBaseUrl");
    Objects.requireNonNull(configDir, "configDir");
    Objects.requireNonNull(logDir, "logDir");
  }

  /**
   * Names unique to a test class of {@code stack}: its database, slot and topics (created here:
   * three partitions for the two event topics, one for the dead letters); {@code destinations} as
   * the base URL of every destination.
   */
  public static PipelineSettings isolated(
      StackContext stack, URI destinations, Path configDir, Path logDir) {
    String publicationTopic = stack.topic("publication-events");
    String deliveryTopic = stack.topic("delivery-events");
    String dlqTopic = stack.topic("dlq");
    stack.stack().kafka().createTopic(publicationTopic, 3);
    stack.stack().kafka().createTopic(deliveryTopic, 3);
    stack.stack().kafka().createTopic(dlqTopic, 1);
    return new PipelineSettings(
        stack.stack().postgres(),
        stack.database(),
        stack.bootstrapServers(),
        stack.publication(),
        stack.slot(),
        publicationTopic,
        deliveryTopic,
        dlqTopic,
        stack.topic("relay-offsets"),
        stack.groupId("consumer"),
        destinations.toString(),
        configDir,
        logDir);
  }

  /**
   * As {@link #isolated(StackContext, URI, Path, Path)}, with Kafka on {@code kafka} instead of the
   * stack's broker (a replicated cluster a test starts itself): the topics are created there, with
   * the replicas {@code kafka} gives a new topic.
   */
  public static PipelineSettings isolated(
      StackContext stack, KafkaBroker kafka, URI destinations, Path configDir, Path logDir) {
    String publicationTopic = stack.topic("publication-events");
    String deliveryTopic = stack.topic("delivery-events");
    String dlqTopic = stack.topic("dlq");
    kafka.createTopic(publicationTopic, 3);
    kafka.createTopic(deliveryTopic, 3);
    kafka.createTopic(dlqTopic, 1);
    return new PipelineSettings(
        stack.stack().postgres(),
        stack.database(),
        kafka.bootstrapServers(),
        stack.publication(),
        stack.slot(),
        publicationTopic,
        deliveryTopic,
        dlqTopic,
        stack.topic("relay-offsets"),
        stack.groupId("consumer"),
        destinations.toString(),
        configDir,
        logDir);
  }
}
