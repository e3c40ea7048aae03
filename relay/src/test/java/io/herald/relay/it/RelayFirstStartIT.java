package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

@HeraldIntegrationTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RelayFirstStartIT {

  private static RelayFixture fixture;
  private static RelayFixture.Relay relay;

  @BeforeAll
  static void setUp(StackContext context) {
    fixture = new RelayFixture(context, "first-start");
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  @Order(1)
  void shouldDeliverRowsCommittedBeforeAnyRelayEverRanEvenWhenAlreadyDeleted() throws Exception {
    OutboxRows writer = fixture.writerOutbox(7);
    List<UUID> ids = new ArrayList<>(writer.insert(150, 1));
    ids.addAll(writer.insert(150, 50));
    // Retention in "delete" mode removes rows right after the insert: the WAL still holds them.
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement delete =
            connection.prepareStatement("DELETE FROM writer.outbox WHERE id = ANY (?)")) {
      delete.setArray(1, connection.createArrayOf("uuid", ids.subList(0, 100).toArray()));
      assertThat(delete.executeUpdate()).isEqualTo(100);
    }

    relay = fixture.start();
    try (EventCollector events = fixture.collect(fixture.publicationEvents)) {
      events.awaitIds(ids, Duration.ofMinutes(2)).drain(Duration.ofMillis(500));
      events.assertIdsExactly(ids);
      events.assertCommitOrderPerKey();
    }
    // Making the outbox router reads OpenTelemetry's global: unset, it printed a java.util.logging
    // notice into the log, outside its format.
    assertThat(relay.process().log()).doesNotContain("AutoConfiguredOpenTelemetrySdk");
  }

  @Test
  @Order(2)
  void shouldCarryTraceparentAndTracestateAsPlainStringHeaders() throws Exception {
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    String tracestate = "herald=t1,vendor=x";
    List<UUID> ids = fixture.writerOutbox(3).insert(3, 1, traceparent, tracestate);

    try (EventCollector events = fixture.collect(fixture.publicationEvents)) {
      events.awaitIds(ids, Duration.ofMinutes(1));
      List<ReceivedEvent> traced =
          events.events().stream().filter(e -> ids.contains(UUID.fromString(e.id()))).toList();
      assertThat(traced).hasSize(3);
      for (ReceivedEvent event : traced) {
        // Plain UTF-8: no JSON quotes around the value.
        assertThat(event.headers()).containsEntry("traceparent", traceparent);
        assertThat(event.headers()).containsEntry("tracestate", tracestate);
        assertThat(event.headers().get("id")).doesNotStartWith("\"");
      }
    }
  }
}
