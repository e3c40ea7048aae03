package io.herald.consumer.inbox;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
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

  @Override
  public void close() {
    producer.close();
  }
}
