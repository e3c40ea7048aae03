package io.herald.common.event;

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

  private EventHeaders() {}
}
