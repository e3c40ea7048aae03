package io.herald.consumer.inbox;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;

/**
 * Sends records the consumer cannot use to the dead-letter topic: original key, value and headers,
 * plus the reason and where the record came from ({@link DeadLetterHeaders}).
 */
final class DeadLetters implements AutoCloseable {

  /**
   * How long closing the producer may wait for dead letters still in flight. Unbounded, a close
   * with Kafka unreachable waits out {@code delivery.timeout.ms} (two minutes by default) and holds
   * the consumer's shutdown that long. Nothing is lost past the bound: the inbox loop commits no
   * offset past a record whose dead letter was not acknowledged, so the next member reads it again
   * and dead-letters it again.
   */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final Clock clock;

  DeadLetters(Producer<byte[], byte[]> producer, String topic, Clock clock) {
    this.producer = producer;
    this.topic = topic;
    this.clock = clock;
  }

  Future<RecordMetadata> send(ConsumerRecord<byte[], byte[]> record, String reason, String detail) {
    ProducerRecord<byte[], byte[]> dead =
        new ProducerRecord<>(topic, null, record.key(), record.value());
    for (Header header : record.headers()) {
      dead.headers().add(header);
    }
    add(dead, DeadLetterHeaders.REASON, reason);
    add(dead, DeadLetterHeaders.DETAIL, detail == null ? "" : detail);
    add(dead, DeadLetterHeaders.ORIGINAL_TOPIC, record.topic());
    add(dead, DeadLetterHeaders.ORIGINAL_PARTITION, Integer.toString(record.partition()));
    add(dead, DeadLetterHeaders.ORIGINAL_OFFSET, Long.toString(record.offset()));
    add(dead, DeadLetterHeaders.FAILED_AT, clock.instant().toString());
    return producer.send(dead);
  }

  private static void add(ProducerRecord<byte[], byte[]> record, String name, String value) {
    record.headers().add(name, value.getBytes(StandardCharsets.UTF_8));
  }

  /** Closes the producer, waiting at most {@link #CLOSE_WAIT} for dead letters in flight. */
  @Override
  public void close() {
    producer.close(CLOSE_WAIT);
  }
}
