package io.herald.writer.status;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/** What {@link StatusDecoder} makes of one record. */
sealed interface Decoded {

  ConsumerRecord<byte[], byte[]> record();

  /** A status event the store can apply. */
  record Valid(ConsumerRecord<byte[], byte[]> record, StatusEvent event) implements Decoded {}

  /**
   * A record that is skipped: logged with its position and counted, never retried.
   *
   * @param reason a short code, also the metric tag ({@code invalid_json}, {@code missing_id}, ...)
   * @param detail what exactly is wrong, for the log
   */
  record Invalid(ConsumerRecord<byte[], byte[]> record, String reason, String detail)
      implements Decoded {}
}
