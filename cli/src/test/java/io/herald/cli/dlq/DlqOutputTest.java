package io.herald.cli.dlq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class DlqOutputTest {

  private static final String NL = System.lineSeparator();
  private static final String ID = "0190c5a0-0000-7000-8000-000000000001";

  @Test
  void shouldReadTheDeadLetterHeadersBack() {
    DeadLetter letter = DeadLetter.of(deadLetter());

    assertThat(letter.position()).isEqualTo("0@7");
    assertThat(letter.id()).isEqualTo(ID);
    assertThat(letter.reason()).isEqualTo("rejected_by_database");
    assertThat(letter.detail()).isEqualTo("SQLState 23514: refused");
    assertThat(letter.original()).isEqualTo("events-2@41");
    assertThat(letter.failedAt()).isEqualTo("2026-12-01T10:00:00Z");
    assertThat(letter.eventId()).hasValueSatisfying(id -> assertThat(id.toString()).isEqualTo(ID));
    assertThat(letter.replayedAt()).isNull();
  }

  @Test
  void shouldHaveNoEventIdWhenTheIdHeaderIsNotAUuid() {
    ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("dlq", 0, 1, null, new byte[0]);
    add(record, "id", "not-a-uuid");

    assertThat(DeadLetter.of(record).eventId()).isEmpty();
    assertThat(DeadLetter.of(record).original()).isNull();
    assertThat(DeadLetter.replayRecord(record)).isEmpty();
  }

  @Test
  void shouldReplayToTheOriginalPartitionWithTheOriginalHeadersAndNotTheFailures() {
    ProducerRecord<byte[], byte[]> replay = DeadLetter.replayRecord(deadLetter()).orElseThrow();

    assertThat(replay.topic()).isEqualTo("events");
    assertThat(replay.partition()).isEqualTo(2);
    assertThat(new String(replay.key(), StandardCharsets.UTF_8)).isEqualTo("t1/a-1");
    assertThat(new String(replay.value(), StandardCharsets.UTF_8)).isEqualTo("{}");
    assertThat(names(replay)).containsExactly("id", "eventType", "herald.dlq.replay.of");
    assertThat(value(replay.headers().lastHeader("herald.dlq.replay.of"))).isEqualTo("dlq-0@7");
  }

  @Test
  void shouldListDeadLettersAsATableWithACountLine() {
    DeadLetter letter = DeadLetter.of(deadLetter());
    DeadLetter replayed =
        DeadLetter.of(deadLetter()).replayed("2026-12-01T11:00:00Z", "events-2@99");

    String text = DlqOutput.list("dlq", List.of(letter, replayed), 5, null);

    assertThat(text)
        .startsWith("DLQ  ID ")
        .contains("REASON", "FAILED AT", "ORIGINAL", "REPLAYED", "DETAIL")
        .contains(ID, "rejected_by_database", "events-2@41", "SQLState 23514: refused")
        .contains("2026-12-01T11:00:00Z -> events-2@99")
        .endsWith(
            "5 dead letters in dlq; the first 2 shown (--limit); 1 of those shown replayed" + NL);
  }

  @Test
  void shouldSayThereAreNoneWhenTheTopicIsEmpty() {
    assertThat(DlqOutput.list("dlq", List.of(), 0, "invalid_json"))
        .isEqualTo(
            "0 dead letters with reason invalid_json in dlq; 0 of those shown replayed" + NL);
  }

  @Test
  void shouldShortenALongDetailToOneLine() {
    String detail = "line one\n" + "x".repeat(200);

    String shortened = DlqOutput.shorten(detail);

    assertThat(shortened).hasSize(DlqOutput.DETAIL_WIDTH).startsWith("line one x").endsWith("...");
    assertThat(DlqOutput.shorten("")).isNull();
  }

  @Test
  void shouldPrintEachReplayOutcomeAndTheCounts() {
    DeadLetter letter = DeadLetter.of(deadLetter());
    List<ReplayResult> results =
        List.of(
            ReplayResult.of(
                ReplayResult.REPLAYED, letter, "2026-12-01T11:00:00Z", "events-2@99", null),
            ReplayResult.of(
                ReplayResult.ALREADY_REPLAYED, letter, "2026-12-01T11:00:00Z", "events-2@99", null),
            ReplayResult.of(ReplayResult.SKIPPED, letter, null, null, "no event id"));

    assertThat(DlqOutput.replay(results))
        .isEqualTo(
            "replayed "
                + ID
                + " (DLQ 0@7, rejected_by_database) to events-2@99"
                + NL
                + "already replayed "
                + ID
                + " (DLQ 0@7, rejected_by_database) at 2026-12-01T11:00:00Z to events-2@99:"
                + " nothing to do"
                + NL
                + "skipped "
                + ID
                + " (DLQ 0@7, rejected_by_database): no event id"
                + NL
                + "1 replayed, 1 already replayed, 1 skipped"
                + NL);
  }

  private static ConsumerRecord<byte[], byte[]> deadLetter() {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>(
            "dlq",
            0,
            7,
            "t1/a-1".getBytes(StandardCharsets.UTF_8),
            "{}".getBytes(StandardCharsets.UTF_8));
    add(record, "id", ID);
    add(record, "eventType", "PublicationRequested");
    add(record, "herald.dlq.reason", "rejected_by_database");
    add(record, "herald.dlq.detail", "SQLState 23514: refused");
    add(record, "herald.dlq.original.topic", "events");
    add(record, "herald.dlq.original.partition", "2");
    add(record, "herald.dlq.original.offset", "41");
    add(record, "herald.dlq.failed.at", "2026-12-01T10:00:00Z");
    return record;
  }

  private static void add(ConsumerRecord<byte[], byte[]> record, String name, String value) {
    record.headers().add(name, value.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> names(ProducerRecord<byte[], byte[]> record) {
    return java.util.Arrays.stream(record.headers().toArray()).map(Header::key).toList();
  }

  private static String value(Header header) {
    return new String(header.value(), StandardCharsets.UTF_8);
  }
}
