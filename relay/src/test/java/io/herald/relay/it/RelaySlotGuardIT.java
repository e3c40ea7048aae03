package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

@HeraldIntegrationTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RelaySlotGuardIT {

  private static final int EXIT_REFUSED = 2;
  private static RelayFixture fixture;

  @BeforeAll
  static void setUp(StackContext context) {
    fixture = new RelayFixture(context, "slot-guard");
  }

  @Test
  @Order(1)
  void shouldRefuseToStartWhenTheSlotWasDroppedAndRecreatedUnderExistingOffsets() throws Exception {
    OutboxRows rows = fixture.writerOutbox(3);
    try (RelayFixture.Relay relay = fixture.start();
        EventCollector events = fixture.collect(fixture.publicationEvents)) {
      List<UUID> ids = rows.insert(50, 10);
      events.awaitIds(ids, Duration.ofMinutes(2));
      assertThat(relay.process().terminate()).isIn(0, 143);
    }
    slot("SELECT pg_drop_replication_slot(?)");
    rows.insert(20, 10); // committed while no slot retains the WAL: these can never be streamed
    slot("SELECT pg_create_logical_replication_slot(?, 'pgoutput')");

    try (RelayFixture.Relay relay = fixture.start()) {
      int exit = relay.process().awaitExit(120);
      String log = relay.process().log();
      System.out.println("RelaySlotGuardIT: recreated slot refused with: " + refusal(log));
      assertThat(exit).isEqualTo(EXIT_REFUSED);
      assertThat(log)
          .contains("Relay refuses to start")
          .contains("is ahead of the relay offsets")
          .contains("Recover:");
    }
  }

  @Test
  @Order(2)
  void shouldRefuseToStartWhenTheSlotIsMissing() throws Exception {
    slot("SELECT pg_drop_replication_slot(?)");

    try (RelayFixture.Relay relay = fixture.start()) {
      int exit = relay.process().awaitExit(120);
      String log = relay.process().log();
      System.out.println("RelaySlotGuardIT: missing slot refused with: " + refusal(log));
      assertThat(exit).isEqualTo(EXIT_REFUSED);
      assertThat(log).contains("Relay refuses to start").contains("does not exist");
    }
  }

  private static String refusal(String log) {
    int at = log.indexOf("Relay refuses to start");
    return at < 0 ? "(no refusal in log)" : log.substring(at, log.indexOf('\n', at));
  }

  private static void slot(String sql) throws Exception {
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, fixture.context().slot());
      statement.executeQuery().close();
    }
  }
}
