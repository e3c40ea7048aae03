package io.herald.consumer.destination;

/**
 * What a lookup by external reference established, with the HTTP status the destination answered
 * (null when no answer came), for the attempt history ({@code consumer.delivery_attempt}).
 */
public sealed interface LookupResult {

  /** A short label for the attempt history and logs. */
  String label();

  /** The destination's HTTP status, or null when no answer came. */
  Integer httpStatus();

  record Found(String remoteId, Integer httpStatus) implements LookupResult {
    public Found(String remoteId) {
      this(remoteId, null);
    }

    @Override
    public String label() {
      return "found";
    }
  }

  /** The destination answered that no article carries the reference. */
  record NotFound(Integer httpStatus) implements LookupResult {
    public NotFound() {
      this(null);
    }

    @Override
    public String label() {
      return "not-found";
    }
  }

  /** No answer: the question stays open. */
  record Unavailable(String reason, Integer httpStatus) implements LookupResult {
    public Unavailable(String reason) {
      this(reason, null);
    }

    @Override
    public String label() {
      return "unavailable";
    }
  }
}
