package io.herald.writer.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.herald.common.event.EventHeaders;
import io.herald.runtime.ops.HealthCheck;
import io.herald.writer.job.JobStatusStore;
import io.herald.writer.job.StatusUpdate;
import io.herald.writer.job.StoreUnavailableException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer's status view: reads the consumer's status events from Kafka and applies each to its
 * job ({@link JobStatusStore}), so {@code GET /v1/publications/{id}} shows the delivery state.
 *
 * <p>One background thread owns the {@link KafkaConsumer}. Offsets are committed after the records
 * of a poll are applied, so a crash re-reads them and the inbox drops what was applied already. An
 * unavailable database stops progress (the same record is retried with backoff, the offset does not
 * move) instead of skipping; a record that can never apply (no {@code id} header, invalid JSON) is
 * logged, counted under {@code herald.writer.status.events{outcome="invalid"}} and skipped. Memory
 * is bounded by one poll ({@code max.poll.records}). {@link #close()} stops it within the poll
 * timeout plus the current backoff.
 */
public final class StatusListener implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StatusListener.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final KafkaConsumer<String, byte[]> consumer;
  private final String topic;
  private final JobStatusStore store;
  private final ObjectMapper mapper;
  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;

  public StatusListener(
      String bootstrapServers,
      String topic,
      String groupId,
      JobStatusStore store,
      ObjectMapper mapper,
      MeterRegistry registry) {
    this.topic = Objects.requireNonNull(topic, "topic");
    this.store = Objects.requireNonNull(store, "store");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    this.registry = Objects.requireNonNull(registry, "registry");
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "herald-writer-status");
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // A new group starts from the oldest retained event: the view catches up on history.
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
    this.consumer =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer());
    this.thread = new Thread(this::run, "herald-status-listener");
    this.thread.setDaemon(true);
  }

  public void start() {
    thread.start();
    log.info("Status view reading {}", topic);
  }

  /**
   * UP while the listener thread runs; the API does not depend on it, so it never takes /health
   * down by Kafka alone.
   */
  public HealthCheck healthCheck() {
    return HealthCheck.of(
        "status-view",
        () ->
            thread.isAlive() || !running
                ? HealthCheck.Status.up("reading " + topic)
                : HealthCheck.Status.down("the status listener thread stopped; see the log"));
  }

  private void run() {
    try {
      consumer.subscribe(List.of(topic));
      while (running) {
        ConsumerRecords<String, byte[]> records = consumer.poll(POLL_TIMEOUT);
        for (ConsumerRecord<String, byte[]> record : records) {
          if (!handle(record)) {
            return; // closing while the database was down: the offset stays, the record comes again
          }
        }
        if (!records.isEmpty()) {
          consumer.commitSync();
        }
      }
    } catch (WakeupException | InterruptException e) {
      if (running) {
        log.error("Status listener interrupted while running", e);
      }
    } catch (RuntimeException e) {
      log.error("Status listener stopped on an unexpected failure", e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * Applies one record, retrying while the database is unavailable.
   *
   * @return false when closing interrupted the retries
   */
  private boolean handle(ConsumerRecord<String, byte[]> record) {
    UUID eventId;
    StatusUpdate update;
    try {
      eventId = UUID.fromString(header(record, EventHeaders.ID));
      update = StatusUpdate.fromJson(mapper.readTree(record.value()));
    } catch (IllegalArgumentException | IOException | NullPointerException e) {
      count("invalid");
      log.warn(
          "Skipping status event at {}-{}@{}: {}",
          record.topic(),
          record.partition(),
          record.offset(),
          e.getMessage());
      return true;
    }
    Duration backoff = Duration.ofMillis(500);
    while (running) {
      try {
        JobStatusStore.Outcome outcome = store.apply(eventId, update);
        count(outcome.name().toLowerCase(Locale.ROOT));
        if (outcome == JobStatusStore.Outcome.UNKNOWN_JOB) {
          log.warn(
              "Status event {} names job {} of tenant {}, which this writer does not have",
              eventId,
              update.jobId(),
              update.tenant());
        }
        return true;
      } catch (StoreUnavailableException e) {
        log.warn(
            "Status event {} not applied, retrying in {}: {}", eventId, backoff, e.getMessage());
        try {
          Thread.sleep(backoff.toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return false;
        }
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                ? MAX_BACKOFF
                : backoff.multipliedBy(2);
      } catch (RuntimeException e) {
        count("failed");
        log.error("Status event {} cannot be applied; skipped", eventId, e);
        return true;
      }
    }
    return false;
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    if (header == null || header.value() == null) {
      throw new IllegalArgumentException("no '" + name + "' header");
    }
    return new String(header.value(), StandardCharsets.UTF_8);
  }

  private void count(String outcome) {
    counters
        .computeIfAbsent(
            outcome,
            key ->
                Counter.builder("herald.writer.status.events")
                    .description("Status events read by the status view, by outcome")
                    .tag("outcome", key)
                    .register(registry))
        .increment();
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(POLL_TIMEOUT.multipliedBy(4).toMillis());
      if (thread.isAlive()) {
        thread.interrupt(); // sleeping in a database backoff
        thread.join(CLOSE_WAIT.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("Status listener did not stop within {}", CLOSE_WAIT);
    }
  }
}
