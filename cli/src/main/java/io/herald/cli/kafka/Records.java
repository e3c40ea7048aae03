package io.herald.cli.kafka;

import io.herald.common.event.EventHeaders;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Reading fields of a record the command reads back. Stateless and thread-safe. */
public final class Records {

  private Records() {}

  /**
   * The last {@code name} header of {@code record} as text ({@link EventHeaders#decode}, which also
   * unquotes a JSON string header); null when it is missing or has no value.
   */
  public static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : EventHeaders.decode(header.value());
  }

  /** {@code text} as a UUID; null when it is null or not a UUID (the caller counts or notes it). */
  public static UUID uuid(String text) {
    if (text == null) {
      return null;
    }
    try {
      return UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
