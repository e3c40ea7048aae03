package io.herald.runtime.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pools Herald's processes use, against a real PostgreSQL. */
@HeraldIntegrationTest
class DatabasesIT {

  @Test
  void shouldPlanEveryExecutionOfAPreparedStatementWithItsOwnParameters(StackContext stack)
      throws Exception {
    DatabaseConfig config =
        new DatabaseConfig(
            stack.jdbcUrl(), stack.user(), stack.password(), 1, Duration.ofSeconds(5));
    try (HikariDataSource pool = Databases.pool("plans", config, new SimpleMeterRegistry());
        Connection connection = pool.getConnection()) {
      try (Statement ddl = connection.createStatement()) {
        ddl.execute("CREATE TABLE grows (id integer PRIMARY KEY, v text)");
      }
      // Twenty executions: the driver prepares it on the server after five, and the server would
      // then plan it once for all parameters (a lookup this simple costs the same either way).
      try (PreparedStatement select =
          connection.prepareStatement("SELECT v FROM grows WHERE id = ?")) {
        for (int i = 0; i < 20; i++) {
          select.setInt(1, i);
          try (ResultSet none = select.executeQuery()) {
            assertThat(none.next()).isFalse();
          }
        }
      }

      try (PreparedStatement plans =
              connection.prepareStatement(
                  "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                      + " WHERE statement LIKE 'SELECT v FROM grows%'");
          ResultSet row = plans.executeQuery()) {
        assertThat(row.next()).as("the statement is prepared on the server").isTrue();
        assertThat(row.getLong("generic_plans")).isZero();
        assertThat(row.getLong("custom_plans")).isGreaterThanOrEqualTo(10);
      }
    }
  }
}
