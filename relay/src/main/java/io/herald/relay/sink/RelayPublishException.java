package io.herald.relay.sink;

/**
 * The sink could not get a record acknowledged by Kafka and gave up; thrown out of the batch so the
 * engine stops without any offset passing the unacknowledged record.
 */
public final class RelayPublishException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  RelayPublishException(String message, Throwable cause) {
    super(message, cause);
  }
}
