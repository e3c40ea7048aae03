package io.herald.runtime.inbox;

import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A Kafka record after a service's decoder has read it: a value the service can apply, or the
 * reason it never will be. Immutable.
 *
 * @param <T> what the service makes of a valid record
 */
public sealed interface Decoded<T> {

  /** The record as read, for its position and headers. */
  ConsumerRecord<byte[], byte[]> record();

  /** A record the service can apply. */
  record Valid<T>(ConsumerRecord<byte[], byte[]> record, T value) implements Decoded<T> {
    public Valid {
      Objects.requireNonNull(record, "record");
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * A record that will never apply; the handler sets it aside and the partition keeps flowing.
   *
   * @param reason a short code for metrics and headers ({@code invalid_json}, {@code missing_id})
   * @param detail the full diagnosis, for the log
   */
  record Invalid<T>(ConsumerRecord<byte[], byte[]> record, String reason, String detail)
      implements Decoded<T> {
    public Invalid {
      Objects.requireNonNull(record, "record");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }
  }
}
