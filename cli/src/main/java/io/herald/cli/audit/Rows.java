package io.herald.cli.audit;

import io.herald.common.id.UuidOrder;
import java.time.Instant;
import java.util.Comparator;
import java.util.UUID;

/** The two sides the audit merges, one row per job id. */
final class Rows {

  private Rows() {}

  /** The database's order of job ids: the merge walks both sides in it. */
  static final Comparator<UUID> DATABASE_ORDER = UuidOrder.DATABASE;

  /** A row of {@code writer.publication_job}. */
  record Job(
      UUID id,
      String tenant,
      String articleId,
      String revisionId,
      String destination,
      String payloadHash,
      String status,
      Instant createdAt) {

    String key() {
      return tenant + "/" + articleId + "/" + revisionId + "/" + destination;
    }
  }

  /**
   * What the consumer side knows of one job id: its events in Kafka (null counts when none), its
   * delivery (null id when none) and what surrounds the delivery.
   */
  record Consumed(
      UUID jobId,
      Long eventCopies,
      Long eventIds,
      Long eventHashes,
      String eventHash,
      boolean consumed,
      boolean deadLettered,
      Integer partition,
      Long offset,
      UUID deliveryId,
      String state,
      String deliveryHash,
      Instant updatedAt,
      Instant uncertainSince,
      String tenant,
      String articleId,
      String revisionId,
      String destination,
      boolean inInbox,
      String statusEventState,
      long remoteArticles,
      boolean destinationListed) {

    boolean hasEvent() {
      return eventCopies != null;
    }

    boolean hasDelivery() {
      return deliveryId != null;
    }

    String key() {
      return hasDelivery()
          ? tenant + "/" + articleId + "/" + revisionId + "/" + destination
          : "job " + jobId;
    }
  }
}
