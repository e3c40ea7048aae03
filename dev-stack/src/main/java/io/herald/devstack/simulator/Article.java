package io.herald.devstack.simulator;

import java.time.Instant;
import java.util.Objects;

/**
 * An article as the simulated destination stores it.
 *
 * @param remoteId the id the destination assigned
 * @param externalReference the caller's stable reference (Herald sends its idempotency key), may be
 *     null when the caller sent none
 * @param idempotencyKey the {@code Idempotency-Key} header of the creating request, may be null
 * @param body the request body as received
 */
public record Article(
    String remoteId,
    String externalReference,
    String idempotencyKey,
    String body,
    Instant createdAt) {

  public Article {
    Objects.requireNonNull(remoteId, "remoteId");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(createdAt, "createdAt");
  }
}
