package io.herald.consumer.destination;

/** What a lookup by external reference established. */
public sealed interface LookupResult {

  record Found(String remoteId) implements LookupResult {}

  /** The destination answered that no article carries the reference. */
  record NotFound() implements LookupResult {}

  /** No answer: the question stays open. */
  record Unavailable(String reason) implements LookupResult {}
}
