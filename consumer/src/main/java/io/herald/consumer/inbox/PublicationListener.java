package io.herald.consumer.inbox;

import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.IntakeResult;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.runtime.inbox.Decoded;
import io.herald.runtime.inbox.InboxHandler;
import io.herald.runtime.inbox.InboxLoop;
import io.herald.runtime.inbox.InboxSettings;
import java.sql.SQLException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Intake of {@code herald.publication.events}: the consumer's handler on the shared {@link
 * InboxLoop}. Each batch becomes deliveries in one PostgreSQL transaction ({@link Intake}); a
 * record that cannot be decoded, or that the database refuses, goes to the dead-letter topic, and
 * the loop commits a batch's offsets only once Kafka has acknowledged its dead letters.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once; the loop's thread does all the work.
 */
public final class PublicationListener
    implements InboxHandler<Received, Intake.Result>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PublicationListener.class);

  private final String dlqTopic;
  private final RecordDecoder decoder = new RecordDecoder();
  private final Intake intake;
  private final DeadLetters deadLetters;
  private final ConsumerMetrics metrics;
  private final Runnable onNewDeliveries;
  private final Set<String> knownDestinations;
  private final InboxLoop<Received, Intake.Result> loop;

  /**
   * @param inbox how the loop reads the topic
   * @param producerOverrides {@code kafka.producer.*}, prefix stripped, for the dead-letter
   *     producer
   */
  public PublicationListener(
      InboxSettings inbox,
      String dlqTopic,
      Map<String, String> producerOverrides,
      Deliveries deliveries,
      Supplier<UUID> ids,
      Clock clock,
      ConsumerMetrics metrics,
      Set<String> knownDestinations,
      Runnable onNewDeliveries) {
    this.dlqTopic = dlqTopic;
    this.knownDestinations = Set.copyOf(knownDestinations);
    this.intake = new Intake(deliveries, ids, this.knownDestinations);
    this.metrics = metrics;
    this.onNewDeliveries = onNewDeliveries;
    this.deadLetters =
        new DeadLetters(
            new KafkaProducer<>(producerProperties(inbox, producerOverrides)), dlqTopic, clock);
    this.loop = new InboxLoop<>(inbox, this, metrics.registry());
  }

  static Map<String, Object> producerProperties(
      InboxSettings inbox, Map<String, String> producerOverrides) {
    Map<String, Object> props = new HashMap<>(producerOverrides);
    props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "herald-consumer-dlq-" + inbox.groupId());
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, inbox.bootstrapServers());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  public void start() {
    loop.start();
  }

  /** The loop's health signal. */
  public InboxLoop.Health health() {
    return loop.health();
  }

  @Override
  public Decoded<Received> decode(ConsumerRecord<byte[], byte[]> record) {
    return decoder.decode(record);
  }

  @Override
  public List<Intake.Result> apply(List<Received> values) throws SQLException {
    return intake.accept(values);
  }

  @Override
  public Future<?> reject(Decoded.Invalid<Received> invalid) {
    ConsumerRecord<byte[], byte[]> record = invalid.record();
    log.error(
        "Dead-lettering {}-{}@{} to {}: {} ({})",
        record.topic(),
        record.partition(),
        record.offset(),
        dlqTopic,
        invalid.reason(),
        invalid.detail());
    metrics.deadLettered(invalid.reason());
    return deadLetters.send(record, invalid.reason(), invalid.detail());
  }

  @Override
  public void failed(Exception failure) {
    metrics.loopFailure("listener");
  }

  @Override
  public void applied(List<Received> values, List<Intake.Result> results) {
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
                // Kept, not dead-lettered: the request is valid. It waits in UNKNOWN_DESTINATION,
                // announced to the writer's view, until an operator retries (once the destination
                // is configured) or abandons it.
                metrics.unknownDestination(c.delivery().destination());
                log.error(
                    "Delivery {} ({}) is for destination '{}', which this consumer has no"
                        + " consumer.destinations.{}.* for: UNKNOWN_DESTINATION until an operator"
                        + " retries it (once configured) or abandons it",
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

  @Override
  public void close() {
    try {
      loop.close();
    } finally {
      deadLetters.close();
    }
  }
}
