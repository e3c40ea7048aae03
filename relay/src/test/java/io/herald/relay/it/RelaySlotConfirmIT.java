package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.engine.EngineProperties;
import io.herald.relay.engine.ProducerSettings;
import io.herald.relay.offsets.EngineOffset;
import io.herald.relay.offsets.Lsn;
import io.herald.relay.offsets.OffsetTopic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The relay confirms positions to the slot from what its own offset flushes stored (not read back
 * from the offsets topic): the slot must still never be ahead of the offsets topic, or a crash
 * would resume behind the slot and skip events, and it must keep advancing, without reading the
 * topic back ({@code herald_relay_slot_confirmations_total}).
 */
@HeraldIntegrationTest
class RelaySlotConfirmIT {

  private static final int ROWS = 6_000;

  private static final String CONFIRMATIONS = "herald_relay_slot_confirmations_total";

  @Test
  void shouldConfirmToTheSlotOnlyPositionsTheOffsetsTopicAlreadyHolds(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "slot-confirm");
    RelayConfig config = RelayConfig.load(fixture.properties(Map.of()), Map.of());
    EngineProperties engine = config.engine();
    // Read as the relay reads it at start-up (RelayMain).
    OffsetTopic offsets =
        new OffsetTopic(
            ProducerSettings.clientSettings(config.producer()),
            engine.offsetTopic(),
            Json.mapper());
    long created = fixture.confirmedFlush();
    TreeSet<Long> confirmedSeen = new TreeSet<>();
    int samples = 0;
    try (RelayFixture.Relay relay = fixture.start();
        EventCollector events = fixture.collect(fixture.publicationEvents);
        BackgroundWriter writer = new BackgroundWriter(fixture.writerOutbox(4), ROWS, 3, 5)) {
      while (writer.size() < ROWS) {
        // Slot first, offsets second: stored positions only grow, so a later read of the offsets
        // that is behind the slot means the slot was ahead when it was read.
        long confirmed = fixture.confirmedFlush();
        long stored = storedPosition(offsets, engine).orElse(created);
        assertThat(confirmed)
            .as("the slot's confirmed_flush_lsn against the offsets topic's position")
            .isLessThanOrEqualTo(stored);
        confirmedSeen.add(confirmed);
        samples++;
      }
      List<UUID> ids = writer.finish();
      events.awaitIds(ids, Duration.ofMinutes(2));
      long storedAtEnd =
          Awaitility.await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> storedPosition(offsets, engine).orElse(created), p -> p > created);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> fixture.confirmedFlush() >= storedAtEnd);
      double fromFlush = relay.metric(CONFIRMATIONS, "from=\"flush\"");
      double readBack = relay.metric(CONFIRMATIONS, "from=\"read-back\"");
      System.out.printf(
          "RelaySlotConfirmIT: %d samples while %d rows were written; the slot confirmed %d"
              + " distinct positions, from %d to %d; %.0f confirmations from the engine's flush,"
              + " %.0f read back%n",
          samples,
          ROWS,
          confirmedSeen.size(),
          created,
          fixture.confirmedFlush(),
          fromFlush,
          readBack);
      // The task confirms after a flush, and while it streams every flush is the engine's
      // thread's, so the task knows each position it confirms; only a stop's flush, on another
      // thread, would leave the next confirmation to read back. Every position seen confirmed but
      // the slot's first was one of them.
      assertThat(fromFlush)
          .as("confirmations taken from the engine's own flush")
          .isGreaterThanOrEqualTo(confirmedSeen.size() - 1.0);
      assertThat(readBack).as("confirmations that read the offsets topic back").isZero();
    }
    assertThat(confirmedSeen)
        .as("positions the slot confirmed while the rows came")
        .hasSizeGreaterThan(3);
  }

  private static Optional<Long> storedPosition(OffsetTopic offsets, EngineProperties engine) {
    return offsets
        .read(
            engine.engineName(),
            engine.topicPrefix(),
            engine.databaseName(),
            engine.slotName(),
            Duration.ofSeconds(30))
        .engine()
        .flatMap(EngineOffset::confirmedPosition)
        .map(Lsn::value);
  }
}
