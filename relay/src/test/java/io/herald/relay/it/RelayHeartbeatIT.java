package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

@HeraldIntegrationTest
class RelayHeartbeatIT {

  @Test
  void shouldAdvanceTheSlotWhileOnlyTablesOutsideThePublicationChange(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "heartbeat");
    try (Connection connection = fixture.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE public.noise (id bigserial PRIMARY KEY, filler text)");
    }
    try (RelayFixture.Relay relay =
            fixture.start(Map.of("debezium.source.heartbeat.interval.ms", "500"));
        EventCollector events = fixture.collect(fixture.publicationEvents)) {
      List<UUID> ids = fixture.writerOutbox(3).insert(10, 5);
      events.awaitIds(ids, Duration.ofMinutes(2));

      AtomicBoolean stop = new AtomicBoolean();
      CompletableFuture<Void> noise = CompletableFuture.runAsync(() -> writeNoise(fixture, stop));
      try {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> currentWal(fixture) > 0);
        // A WAL position written after the outbox went quiet, by the noise table only.
        Thread.sleep(200);
        long noiseWal = currentWal(fixture);
        long before = fixture.confirmedFlush();
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> fixture.confirmedFlush() > noiseWal);
        long after = fixture.confirmedFlush();
        System.out.printf(
            "RelayHeartbeatIT: confirmed_flush_lsn moved %d bytes past the outbox's last event"
                + " while only public.noise changed; slot lag metric %.0f bytes%n",
            after - before, relay.metric("herald_relay_slot_lag_bytes"));
        assertThat(after).isGreaterThan(noiseWal);
      } finally {
        stop.set(true);
        noise.join();
      }
    }
  }

  private static void writeNoise(RelayFixture fixture, AtomicBoolean stop) {
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO public.noise (filler) VALUES (repeat('x', 500))")) {
      while (!stop.get()) {
        insert.executeUpdate();
        Thread.sleep(5);
      }
    } catch (Exception e) {
      throw new IllegalStateException("noise writer failed", e);
    }
  }

  private static long currentWal(RelayFixture fixture) throws Exception {
    try (Connection connection = fixture.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
