package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The replication connection dies under a streaming relay: Debezium's streaming thread fails, the
 * engine's poll (the relay's hand-off) must raise that failure so Debezium restarts its task, and
 * the restarted task must stream on from the committed offset.
 */
@HeraldIntegrationTest
class RelayStreamFailureIT {

  @Test
  void shouldRestartStreamingAfterTheWalsenderIsTerminatedWithNothingLost(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "stream-failure");
    try (EventCollector events = fixture.collect(fixture.publicationEvents);
        BackgroundWriter writer =
            new BackgroundWriter(fixture.writerOutbox(10), Scale.of(3_000), 10, 20);
        RelayFixture.Relay relay = fixture.start()) {
      Awaitility.await()
          .atMost(Duration.ofMinutes(2))
          .until(
              () -> {
                events.poll();
                return events.ids().size() > 200;
              });
      int walsender = activeSlotPid(fixture, context.slot());

      assertThat(terminate(fixture, walsender)).isTrue();
      // A new walsender serves the slot: Debezium restarted its task after the failure.
      Awaitility.await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                int pid = activeSlotPid(fixture, context.slot());
                return pid != 0 && pid != walsender;
              });

      List<UUID> ids = writer.finish();
      events.awaitIds(ids, Duration.ofMinutes(3)).drain(Duration.ofSeconds(1));
      System.out.printf(
          "RelayStreamFailureIT: walsender %d terminated mid-stream; %d events, %d duplicates%n",
          walsender, ids.size(), events.duplicates());
      events.assertIdsExactly(ids);
      events.assertCommitOrderPerKey();
      assertThat(relay.process().isAlive()).as("the relay recovered in process").isTrue();
      assertThat(relay.get("/health").status()).isEqualTo(200);
    }
  }

  /** The pid of the walsender reading {@code slot}, 0 when none is. */
  private static int activeSlotPid(RelayFixture fixture, String slot) throws Exception {
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT coalesce(active_pid, 0) FROM pg_replication_slots WHERE slot_name = ?")) {
      query.setString(1, slot);
      try (ResultSet rows = query.executeQuery()) {
        return rows.next() ? rows.getInt(1) : 0;
      }
    }
  }

  private static boolean terminate(RelayFixture fixture, int pid) throws Exception {
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement terminate =
            connection.prepareStatement("SELECT pg_terminate_backend(?)")) {
      terminate.setInt(1, pid);
      try (ResultSet rows = terminate.executeQuery()) {
        return rows.next() && rows.getBoolean(1);
      }
    }
  }
}
