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
 * @param processLinks where the processes connect: the direct addresses above, unless a link runs
 *     through a proxy ({@link #withProcessLinks}); the set-up and the herald command keep the
 *     direct ones
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
    Path logDir,
    ProcessLinks processLinks) {

  /**
   * The addresses the writer, relay and consumer connect to, when one of them differs from the
   * direct one: a proxy on the link, for network faults.
   *
   * @param postgresHost the host of PostgreSQL (or of a proxy in front of it)
   * @param destinationsBaseUrl the base URL of every destination, as {@link #destinationsBaseUrl()}
   */
  public record ProcessLinks(
      String postgresHost, int postgresPort, String bootstrapServers, String destinationsBaseUrl) {

    public ProcessLinks {
      Objects.requireNonNull(postgresHost, "postgresHost");
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      Objects.requireNonNull(destinationsBaseUrl, "destinationsBaseUrl");
    }

    public String jdbcUrl(String database) {
      return "jdbc:postgresql://" + postgresHost + ":" + postgresPort + "/" + database;
    }
  }

  /** Settings whose processes connect to the direct addresses. */
  public PipelineSettings(
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
    this(
        postgres,
        database,
        bootstrapServers,
        publication,
        slot,
        publicationTopic,
        deliveryTopic,
        dlqTopic,
        offsetsTopic,
        consumerGroup,
        destinationsBaseUrl,
        configDir,
        logDir,
        new ProcessLinks(
            Objects.requireNonNull(postgres, "postgres").host(),
            postgres.port(),
            bootstrapServers,
            destinationsBaseUrl));
  }

  public PipelineSettings {
    Objects.requireNonNull(postgres, "postgres");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(destinationsBaseUrl, "destinationsBaseUrl");
    Objects.requireNonNull(configDir, "configDir");
    Objects.requireNonNull(logDir, "logDir");
    Objects.requireNonNull(processLinks, "processLinks");
  }

  /** These settings with the processes connecting to {@code links} instead. */
  public PipelineSettings withProcessLinks(ProcessLinks links) {
    return new PipelineSettings(
        postgres,
        database,
        bootstrapServers,
        publication,
        slot,
        publicationTopic,
        deliveryTopic,
        dlqTopic,
        offsetsTopic,
        consumerGroup,
        destinationsBaseUrl,
        configDir,
        logDir,
        links);
  }

  /**
   * These settings on {@code server} instead, for the processes and the herald command alike (an
   * address that moves to the new primary at a failover); the other links stay.
   */
  public PipelineSettings withPostgres(PostgresServer server) {
    return new PipelineSettings(
        server,
        database,
        bootstrapServers,
        publication,
        slot,
        publicationTopic,
        deliveryTopic,
        dlqTopic,
        offsetsTopic,
        consumerGroup,
        destinationsBaseUrl,
        configDir,
        logDir,
        new ProcessLinks(
            server.host(),
            server.port(),
            processLinks.bootstrapServers(),
            processLinks.destinationsBaseUrl()));
  }

  /** The direct addresses: what the herald command connects to, whatever the processes do. */
  public ProcessLinks directLinks() {
    return new ProcessLinks(
        postgres.host(), postgres.port(), bootstrapServers, destinationsBaseUrl);
  }

  /**
   * Names unique to a test class of {@code stack}: its database, slot and topics (created here:
   * three partitions for the two event topics, one for the dead letters); {@code destinations} as
   * the base URL of every destination.
   */
  public static PipelineSettings isolated(
      StackContext stack, URI destinations, Path configDir, Path logDir) {
    return isolated(stack, stack.stack().kafka(), destinations, configDir, logDir);
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
