package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay against a PostgreSQL that requires a verified certificate: Debezium's replication
 * connection (through the idle-wait socket) and the relay's own connections (slot checks, leader
 * lock) all run over TLS, and every event arrives.
 */
@HeraldIntegrationTest
class RelayTlsIT {

  /** Which of the relay's server sessions are encrypted, by application name or backend type. */
  private static final String SESSIONS =
      "SELECT CASE WHEN a.backend_type = 'walsender' THEN 'walsender' ELSE a.application_name END,"
          + " s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid"
          + " WHERE a.datname = ? AND (a.backend_type = 'walsender'"
          + " OR a.application_name LIKE 'herald-relay%')";

  private static ServerTls tls;

  @BeforeAll
  static void turnOnTls(StackContext context) throws Exception {
    tls = ServerTls.enable(context).orElse(null);
  }

  @AfterAll
  static void turnOffTls() throws Exception {
    if (tls != null) {
      tls.close();
    }
  }

  @Test
  void shouldStreamEveryEventOverVerifiedTls(StackContext context) throws Exception {
    assumeTrue(tls != null, "TLS needs the server's data directory on this machine");
    RelayFixture fixture = new RelayFixture(context, "tls");
    OutboxRows writer = fixture.writerOutbox(5);
    try (RelayFixture.Relay relay =
            fixture.start(
                Map.of(
                    "debezium.source.database.sslmode",
                    "verify-ca",
                    "debezium.source.database.sslrootcert",
                    tls.certificate().toString()));
        EventCollector events = fixture.collect(fixture.publicationEvents)) {
      List<UUID> ids = writer.insert(300, 10);

      events.awaitIds(ids, Duration.ofMinutes(2));

      events.assertIdsExactly(ids);
      Map<String, Boolean> sessions = new HashMap<>();
      Awaitility.await("the relay's sessions")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                sessions.clear();
                sessions.putAll(encryption(fixture, context.database()));
                return sessions
                    .keySet()
                    .containsAll(List.of("walsender", "herald-relay", "herald-relay-leader-lock"));
              });
      assertThat(sessions).as("encrypted, per session").doesNotContainValue(false);
      assertThat(relay.process().isAlive()).isTrue();
    }
  }

  /** Whether each kind of session is encrypted; false wins if one of a kind is not. */
  private static Map<String, Boolean> encryption(RelayFixture fixture, String database)
      throws SQLException {
    Map<String, Boolean> sessions = new HashMap<>();
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(SESSIONS)) {
      statement.setString(1, database);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          sessions.merge(rows.getString(1), rows.getBoolean(2), Boolean::logicalAnd);
        }
      }
    }
    return sessions;
  }
}
