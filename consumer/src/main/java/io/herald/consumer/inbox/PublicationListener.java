package io.herald.consumer.inbox;

import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.IntakeResult;
import io.herald.consumer.delivery.SqlErrors;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code herald.publication.events} as one member of the consumer group and turns each batch
 * into deliveries in one PostgreSQL transaction. Offsets are committed only after the database
 * commit and after every dead letter of the batch is acknowledged by Kafka, so no offset passes a
 * record that was neither stored nor dead-lettered. Records that cannot be decoded go to the
 * dead-letter topic and the partition keeps flowing.
 *
 * <p>On a failure (database or broker unavailable) the batch is re-read from its first offset after
 * a pause: redelivery is harmless thanks to the inbox. If a batch fails for a reason that is not
 * transient, its records are retried one transaction each, so one bad record is isolated and
 * dead-lettered instead of blocking its partition.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once. The Kafka consumer is used only by
 * the listener's own thread.
 */
public final class PublicationListener implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PublicationListener.class);

  private final ListenerSettings settings;
  private final RecordDecoder decoder = new RecordDecoder();
  private final Intake intake;
  private final DeadLetters deadLetters;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final KafkaClientMetrics kafkaMetrics;
  private final ConsumerMetrics metrics;
  private final Runnable onNewDeliveries;
  private final Set<String> knownDestinations;
  private final AtomicLong lastPollNanos = new AtomicLong(System.nanoTime());
  private volatile boolean running;
  private Thread thread;

  public PublicationListener(
      ListenerSettings settings,
      Deliveries deliveries,
      Supplier<UUID> ids,
      Clock clock,
      ConsumerMetrics metrics,
      Set<String> knownDestinations,
      Runnable onNewDeliveries) {
    this.settings = settings;
    this.knownDestinations = Set.copyOf(knownDestinations);
    this.intake = new Intake(deliveries, ids);
    this.metrics = metrics;
    this.onNewDeliveries = onNewDeliveries;
    this.consumer = new KafkaConsumer<>(consumerProperties(settings));
    this.kafkaMetrics = new KafkaClientMetrics(consumer);
    kafkaMetrics.bindTo(metrics.registry());
    this.deadLetters =
        new DeadLetters(
            new KafkaProducer<>(producerProperties(settings)), settings.dlqTopic(), clock);
  }

  static Map<String, Object> consumerProperties(ListenerSettings settings) {
    Map<String, Object> props = new HashMap<>(settings.consumerOverrides());
    props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "herald-consumer-" + settings.groupId());
    // What the guarantees rest on: never overridable.
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  static Map<String, Object> producerProperties(ListenerSettings settings) {
    Map<String, Object> props = new HashMap<>(settings.producerOverrides());
    props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "herald-consumer-dlq-" + settings.groupId());
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("Listener already started");
    }
    running = true;
    thread = Thread.ofPlatform().name("herald-listener").start(this::loop);
    log.info(
        "Listening to {} as group {} (dead letters to {})",
        settings.topic(),
        settings.groupId(),
        settings.dlqTopic());
  }

  /** Whether the poll loop ran recently (health). */
  public boolean healthy(Duration maxSilence) {
    return running
        && thread != null
        && thread.isAlive()
        && System.nanoTime() - lastPollNanos.get() < maxSilence.toNanos();
  }

  private void loop() {
    try {
      consumer.subscribe(List.of(settings.topic()));
      while (running) {
        lastPollNanos.set(System.nanoTime());
        ConsumerRecords<byte[], byte[]> records = consumer.poll(settings.pollTimeout());
        if (records.isEmpty()) {
          continue;
        }
        try {
          handle(records);
        } catch (WakeupException e) {
          throw e;
        } catch (Exception e) {
          if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return;
          }
          metrics.loopFailure("listener");
          log.error(
              "Handling {} records failed; re-reading them after {}",
              records.count(),
              settings.failureBackoff(),
              e);
          rewind(records);
          pause(settings.failureBackoff());
        }
      }
    } catch (WakeupException e) {
      if (running) {
        log.error("Listener woken up unexpectedly; stopping", e);
      }
    } catch (RuntimeException e) {
      log.error("Listener stopped by an unexpected failure", e);
    } finally {
      running = false;
      try {
        consumer.close();
      } catch (RuntimeException e) {
        log.warn("Closing the Kafka consumer failed", e);
      }
    }
  }

  private void handle(ConsumerRecords<byte[], byte[]> records) throws Exception {
    List<Decoded.Valid> valid = new ArrayList<>();
    List<Future<RecordMetadata>> deadLettered = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      Decoded decoded = decoder.decode(record);
      switch (decoded) {
        case Decoded.Valid v -> valid.add(v);
        case Decoded.Invalid invalid -> deadLettered.add(deadLetter(invalid));
      }
    }
    List<Intake.Result> results = store(valid, deadLettered);
    for (Future<RecordMetadata> future : deadLettered) {
      try {
        future.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            "Dead-letter topic " + settings.dlqTopic() + " did not acknowledge", e.getCause());
      }
    }
    consumer.commitSync(nextOffsets(records));
    report(results);
  }

  /** One transaction for the batch; if that fails for a non-transient reason, one per record. */
  private List<Intake.Result> store(
      List<Decoded.Valid> valid, List<Future<RecordMetadata>> deadLettered) throws SQLException {
    if (valid.isEmpty()) {
      return List.of();
    }
    try {
      return intake.accept(valid);
    } catch (SQLException e) {
      if (SqlErrors.isTransient(e)) {
        throw e;
      }
      log.warn(
          "Batch of {} records rejected by the database; isolating the culprit", valid.size(), e);
    }
    List<Intake.Result> results = new ArrayList<>();
    for (Decoded.Valid record : valid) {
      try {
        results.addAll(intake.accept(List.of(record)));
      } catch (SQLException e) {
        if (SqlErrors.isTransient(e)) {
          throw e;
        }
        deadLettered.add(
            deadLetter(
                new Decoded.Invalid(
                    record.record(),
                    "rejected_by_database",
                    "SQLState " + e.getSQLState() + ": " + e.getMessage())));
      }
    }
    return results;
  }

  private Future<RecordMetadata> deadLetter(Decoded.Invalid invalid) {
    ConsumerRecord<byte[], byte[]> record = invalid.record();
    log.error(
        "Dead-lettering {}-{}@{} to {}: {} ({})",
        record.topic(),
        record.partition(),
        record.offset(),
        settings.dlqTopic(),
        invalid.reason(),
        invalid.detail());
    metrics.deadLettered(invalid.reason());
    return deadLetters.send(record, invalid.reason(), invalid.detail());
  }

  private void report(List<Intake.Result> results) {
    boolean created = false;
    for (Intake.Result result : results) {
      switch (result) {
        case Intake.Result.Redelivered r -> metrics.received("redelivered");
        case Intake.Result.Accepted accepted -> {
          switch (accepted.intake()) {
            case IntakeResult.Created c -> {
              metrics.received("created");
              created = true;
              if (!knownDestinations.contains(c.delivery().destination())) {
                // Kept, not dead-lettered: the request is valid and waits, PENDING, until the
                // destination is configured. But nobody should have to discover that by chance.
                metrics.unknownDestination(c.delivery().destination());
                log.error(
                    "Delivery {} ({}) is for destination '{}', which this consumer has no"
                        + " consumer.destinations.{}.* for: it stays PENDING until one is configured",
                    c.delivery().deliveryId(),
                    c.delivery().aggregateId(),
                    c.delivery().destination(),
                    c.delivery().destination());
              }
            }
            case IntakeResult.Duplicate d -> metrics.received("duplicate");
            case IntakeResult.Conflict conflict -> {
              metrics.received("conflict");
              metrics.conflict(conflict.existing().destination());
              log.error(
                  "CONFLICT: job {} requests {} with payload {} but delivery {} holds payload {};"
                      + " refused, existing delivery unchanged",
                  accepted.input().request().jobId(),
                  accepted.input().request().key(),
                  accepted.input().request().payloadHash(),
                  conflict.existing().deliveryId(),
                  conflict.existingPayloadHash());
            }
          }
        }
      }
    }
    if (created) {
      onNewDeliveries.run();
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(
      ConsumerRecords<byte[], byte[]> records) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
    for (TopicPartition partition : records.partitions()) {
      List<ConsumerRecord<byte[], byte[]>> list = records.records(partition);
      offsets.put(partition, new OffsetAndMetadata(list.getLast().offset() + 1));
    }
    return offsets;
  }

  private void rewind(ConsumerRecords<byte[], byte[]> records) {
    Set<TopicPartition> assigned = consumer.assignment();
    for (TopicPartition partition : records.partitions()) {
      if (assigned.contains(partition)) {
        consumer.seek(partition, records.records(partition).getFirst().offset());
      }
    }
  }

  private void pause(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  @Override
  public void close() {
    Thread current;
    synchronized (this) {
      running = false;
      current = thread;
    }
    if (current != null) {
      consumer.wakeup();
      try {
        current.join(Duration.ofSeconds(30).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else {
      consumer.close();
    }
    kafkaMetrics.close();
    deadLetters.close();
    log.info("Listener for {} stopped", settings.topic());
  }
}
