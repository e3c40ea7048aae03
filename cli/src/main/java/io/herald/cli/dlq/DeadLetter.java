package io.herald.cli.dlq;

import io.herald.cli.kafka.Records;
import io.herald.common.event.EventHeaders;
import io.herald.consumer.inbox.DeadLetterHeaders;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * One record of the dead-letter topic as {@code herald dlq} reads it back: where it sits in the
 * DLQ, the event it carries and why the consumer set it aside, and whether it was replayed. The
 * {@code herald.dlq.*} fields are null on a record without them (not written by a Herald consumer).
 * Immutable; {@code --json} prints it field by field.
 *
 * @param dlqTopic the dead-letter topic
 * @param dlqPartition its partition there
 * @param dlqOffset its offset there: with the partition, the dead letter's identity
 * @param id the event's {@code id} header, as written (null when missing)
 * @param reason {@code herald.dlq.reason}
 * @param detail {@code herald.dlq.detail}
 * @param originalTopic {@code herald.dlq.original.topic}
 * @param originalPartition {@code herald.dlq.original.partition}
 * @param originalOffset {@code herald.dlq.original.offset}
 * @param failedAt {@code herald.dlq.failed.at}
 * @param replayOf {@code herald.dlq.replay.of}: the earlier dead letter this one repeats, when a
 *     replayed record failed again
 * @param replayedAt when {@code herald dlq replay} put it back (ISO-8601), or null
 * @param replayedTo where it went, {@code <topic>-<partition>@<offset>}, or null
 */
public record DeadLetter(
    String dlqTopic,
    int dlqPartition,
    long dlqOffset,
    String id,
    String reason,
    String detail,
    String originalTopic,
    Integer originalPartition,
    Long originalOffset,
    String failedAt,
    String replayOf,
    String replayedAt,
    String replayedTo) {

  /** Reads the dead-letter headers of {@code record}, not yet knowing of any replay. */
  static DeadLetter of(ConsumerRecord<byte[], byte[]> record) {
    return new DeadLetter(
        record.topic(),
        record.partition(),
        record.offset(),
        Records.header(record, EventHeaders.ID),
        Records.header(record, DeadLetterHeaders.REASON),
        Records.header(record, DeadLetterHeaders.DETAIL),
        Records.header(record, DeadLetterHeaders.ORIGINAL_TOPIC),
        integer(Records.header(record, DeadLetterHeaders.ORIGINAL_PARTITION)),
        longValue(Records.header(record, DeadLetterHeaders.ORIGINAL_OFFSET)),
        Records.header(record, DeadLetterHeaders.FAILED_AT),
        Records.header(record, DeadLetterHeaders.REPLAY_OF),
        null,
        null);
  }

  /** This dead letter, replayed at {@code at} to {@code to}. */
  DeadLetter replayed(String at, String to) {
    return new DeadLetter(
        dlqTopic,
        dlqPartition,
        dlqOffset,
        id,
        reason,
        detail,
        originalTopic,
        originalPartition,
        originalOffset,
        failedAt,
        replayOf,
        at,
        to);
  }

  /** {@code <partition>@<offset>} in the DLQ. */
  public String position() {
    return dlqPartition + "@" + dlqOffset;
  }

  /** {@code <topic>-<partition>@<offset>} of the record it was, or null when not known. */
  public String original() {
    return originalTopic == null
        ? null
        : originalTopic
            + "-"
            + (originalPartition == null ? "?" : originalPartition)
            + "@"
            + (originalOffset == null ? "?" : originalOffset);
  }

  /** The event id, when the {@code id} header is a UUID: the inbox key intake deduplicates on. */
  public Optional<UUID> eventId() {
    // Not a UUID: the record was dead-lettered as invalid_id for this very reason.
    return Optional.ofNullable(Records.uuid(id));
  }

  /**
   * The record a replay produces: the original topic and partition (so the article keeps its
   * partition, hence its order), key, value and headers, without the failure's {@code herald.dlq.*}
   * headers and with {@code herald.dlq.replay.of} naming this dead letter. Empty when the dead
   * letter does not say where it came from.
   */
  static Optional<ProducerRecord<byte[], byte[]>> replayRecord(
      ConsumerRecord<byte[], byte[]> dead) {
    DeadLetter letter = of(dead);
    if (letter.originalTopic() == null || letter.originalPartition() == null) {
      return Optional.empty();
    }
    ProducerRecord<byte[], byte[]> replay =
        new ProducerRecord<>(
            letter.originalTopic(), letter.originalPartition(), dead.key(), dead.value());
    for (Header header : dead.headers()) {
      if (!header.key().startsWith(DeadLetterHeaders.PREFIX)) {
        replay.headers().add(header);
      }
    }
    replay
        .headers()
        .add(
            DeadLetterHeaders.REPLAY_OF,
            (letter.dlqTopic() + "-" + letter.position())
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return Optional.of(replay);
  }

  private static Integer integer(String text) {
    try {
      return text == null ? null : Integer.valueOf(text);
    } catch (NumberFormatException e) {
      return null; // not written by a Herald consumer; shown as unknown
    }
  }

  private static Long longValue(String text) {
    try {
      return text == null ? null : Long.valueOf(text);
    } catch (NumberFormatException e) {
      return null; // as above
    }
  }
}
