package io.herald.relay.it;

import java.util.Map;

/** One record read back from Kafka, headers decoded as UTF-8 strings. */
record ReceivedEvent(
    String topic,
    int partition,
    long offset,
    String key,
    String value,
    Map<String, String> headers) {

  String id() {
    return headers.get("id");
  }

  /** The {@code seq} field of the test payload. */
  long seq() {
    int at = value.indexOf("\"seq\":");
    int end = value.indexOf(',', at);
    return Long.parseLong(value.substring(at + 6, end).strip());
  }
}
