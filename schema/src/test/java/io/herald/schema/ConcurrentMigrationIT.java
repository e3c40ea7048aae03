package io.herald.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The writer and the consumer migrate their schemas when they start, and may start at the same
 * moment against one database: both run the shared capture steps.
 */
@HeraldIntegrationTest
class ConcurrentMigrationIT {

  private static final int ROUNDS = 4;

  @Test
  void shouldMigrateBothSchemasWhenWriterAndConsumerStartAtTheSameMoment(StackContext stack)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < ROUNDS; round++) {
        String database = stack.database() + "_r" + round;
        stack.stack().postgres().createDatabase(database);
        PGSimpleDataSource dataSource = dataSource(stack.stack().postgres(), database);
        CaptureSettings capture =
            new CaptureSettings(stack.publication(), stack.slot() + "_r" + round);
        CyclicBarrier start = new CyclicBarrier(2);
        List<Future<Integer>> migrations = new ArrayList<>();
        for (HeraldSchema schema : HeraldSchema.values()) {
          Callable<Integer> migration =
              () -> {
                start.await();
                return SchemaMigrator.migrate(dataSource, schema, capture);
              };
          migrations.add(pool.submit(migration));
        }

        for (Future<Integer> migration : migrations) {
          // Each schema applies its own migrations plus the four shared capture steps (V1 to V4).
          assertThat(migration.get()).isGreaterThanOrEqualTo(4);
        }
        assertThat(publishedTables(dataSource, capture.publication()))
            .containsExactly("consumer.outbox", "herald_relay.heartbeat", "writer.outbox");
        assertThat(slotsOf(dataSource, database)).containsExactly(capture.slot());
        dropSlot(dataSource, capture.slot());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static PGSimpleDataSource dataSource(PostgresServer postgres, String database) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(postgres.jdbcUrl(database));
    dataSource.setUser(postgres.user());
    dataSource.setPassword(postgres.password());
    return dataSource;
  }

  private static List<String> publishedTables(PGSimpleDataSource dataSource, String publication)
      throws SQLException {
    return strings(
        dataSource,
        "SELECT schemaname || '.' || tablename FROM pg_publication_tables WHERE pubname = ?"
            + " ORDER BY 1",
        publication);
  }

  private static List<String> slotsOf(PGSimpleDataSource dataSource, String database)
      throws SQLException {
    return strings(
        dataSource, "SELECT slot_name FROM pg_replication_slots WHERE database = ?", database);
  }

  private static void dropSlot(PGSimpleDataSource dataSource, String slot) throws SQLException {
    strings(dataSource, "SELECT pg_drop_replication_slot(?)::text", slot);
  }

  private static List<String> strings(PGSimpleDataSource dataSource, String sql, String parameter)
      throws SQLException {
    List<String> values = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, parameter);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          values.add(rows.getString(1));
        }
      }
    }
    return values;
  }
}
