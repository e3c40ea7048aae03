package io.herald.common.event;

import java.nio.charset.StandardCharsets;

/**
 * Kafka header names carried by every Herald event. Values are plain UTF-8 strings (not
 * JSON-quoted).
 */
public final class EventHeaders {

  /** The event id: the outbox row's UUIDv7. Consumers deduplicate on it. */
  public static final String ID = "id";

  /** The event type, one of {@link EventTypes}. */
  public static final String EVENT_TYPE = "eventType";

  /** The tenant the event belongs to. */
  public static final String TENANT = "tenant";

  /** W3C trace context {@code traceparent}, when the request carried or started a trace. */
  public static final String TRACEPARENT = "traceparent";

  /** W3C trace context {@code tracestate}, only when present. */
  public static final String TRACESTATE = "tracestate";

  /**
   * The text of a header value as read from Kafka: UTF-8, with one pair of surrounding double
   * quotes removed (a producer that JSON-encodes header values is tolerated); null for a missing
   * header or a null value.
   */
  public static String decode(byte[] value) {
    if (value == null) {
      return null;
    }
    String text = new String(value, StandardCharsets.UTF_8);
    if (text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")) {
      text = text.substring(1, text.length() - 1);
    }
    return text;
  }

  private EventHeaders() {}
}
