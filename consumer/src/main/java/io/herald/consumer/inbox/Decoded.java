package io.herald.consumer.inbox;

import io.herald.common.event.PublicationRequested;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** A Kafka record after decoding: a valid request, or the reason it is not one. */
sealed interface Decoded {

  ConsumerRecord<byte[], byte[]> record();

  record Valid(
      ConsumerRecord<byte[], byte[]> record,
      UUID messageId,
      PublicationRequested request,
      String traceParent,
      String traceState)
      implements Decoded {}

  /**
   * @param reason a short code for metrics and the DLQ header ({@code invalid_json}, ...)
   * @param detail the full diagnosis
   */
  record Invalid(ConsumerRecord<byte[], byte[]> record, String reason, String detail)
      implements Decoded {}
}
