package io.herald.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.schema.DatabaseRoles.Role;
import java.io.File;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.replication.PGReplicationStream;

/**
 * The least-privilege roles on a real PostgreSQL: set up by the administrator's script, migrated as
 * herald_migrator, each process role limited to what its process runs.
 */
@HeraldIntegrationTest
class DatabaseRolesIT {

  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  private static final String INSERT_JOB =
      "INSERT INTO writer.publication_job (id, tenant_id, article_id, revision_id, destination,"
          + " idempotency_key, payload_hash, content) VALUES (gen_random_uuid(), 't', 'a', 'r',"
          + " 'd', repeat('0', 64), repeat('0', 64), '{}')";
  private static final String INSERT_WRITER_OUTBOX =
      "INSERT INTO writer.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id, payload)"
          + " VALUES (gen_random_uuid(), 'publication', 'a', 'PublicationRequested', 't', '{}')";
  private static final String INSERT_DELIVERY =
      "INSERT INTO consumer.delivery (id, job_id, message_id, tenant_id, article_id, revision_id,"
          + " destination, idempotency_key, payload_hash, content) VALUES (gen_random_uuid(),"
          + " gen_random_uuid(), gen_random_uuid(), 't', 'a', 'r', 'd', 'k', 'h', '{}')";
  private static final String INSERT_CONSUMER_INBOX =
      "INSERT INTO consumer.inbox (message_id, handler) VALUES (gen_random_uuid(), 'h')";
  private static final String HEARTBEAT =
      "INSERT INTO herald_relay.heartbeat (id, beat_at) VALUES ('herald-relay', now())"
          + " ON CONFLICT (id) DO UPDATE SET beat_at = EXCLUDED.beat_at";

  private static StackContext stack;

  @BeforeAll
  static void setUp(StackContext context) {
    stack = context;
    DatabaseRoles.setUp(context.dataSource(), passwords());
    CaptureSettings capture = new CaptureSettings(context.publication(), context.slot());
    DataSource migrator = as(context.jdbcUrl(), Role.MIGRATOR);
    SchemaMigrator.migrate(migrator, HeraldSchema.WRITER, capture);
    SchemaMigrator.migrate(migrator, HeraldSchema.CONSUMER, capture);
  }

  @Test
  void shouldLetTheWriterUseItsSchemaButNeitherReadNorWriteTheConsumers() throws SQLException {
    try (Connection writer = connect(Role.WRITER)) {
      assertThat(update(writer, INSERT_JOB)).isOne();
      assertThat(update(writer, INSERT_WRITER_OUTBOX)).isOne();
      assertThat(count(writer, "writer.publication_job")).isOne();

      assertRefused(writer, "SELECT count(*) FROM consumer.delivery");
      assertRefused(writer, "SELECT count(*) FROM consumer.inbox");
      assertRefused(writer, INSERT_DELIVERY);
      assertRefused(writer, INSERT_CONSUMER_INBOX);
    }
  }

  @Test
  void shouldLetTheConsumerUseItsSchemaButNeitherReadNorWriteTheWriters() throws SQLException {
    try (Connection consumer = connect(Role.CONSUMER)) {
      assertThat(update(consumer, INSERT_DELIVERY)).isOne();
      assertThat(update(consumer, INSERT_CONSUMER_INBOX)).isOne();

      assertRefused(consumer, "SELECT count(*) FROM writer.publication_job");
      assertRefused(consumer, "SELECT count(*) FROM writer.outbox");
      assertRefused(consumer, INSERT_JOB);
      assertRefused(consumer, INSERT_WRITER_OUTBOX);
    }
  }

  @Test
  void shouldRefuseTheRelayToWriteAJobWhileItReadsTheOutboxesAndBeats() throws SQLException {
    try (Connection relay = connect(Role.RELAY)) {
      assertRefused(relay, INSERT_JOB);
      assertRefused(relay, "SELECT count(*) FROM writer.publication_job");
      assertRefused(relay, "SELECT count(*) FROM consumer.delivery");
      assertRefused(relay, INSERT_WRITER_OUTBOX);

      count(relay, "writer.outbox");
      count(relay, "consumer.outbox");
      assertThat(update(relay, HEARTBEAT)).isOne();
      assertThat(update(relay, HEARTBEAT)).isOne();
      assertThat(
              queryString(
                  relay,
                  "SELECT database_name FROM herald_relay.capture_slot WHERE slot_name = '"
                      + stack.slot()
                      + "'"))
          .isEqualTo(stack.database());
      // PostgresSlots' server check: the cluster's identity and the current WAL position.
      assertThat(
              queryString(
                  relay,
                  "SELECT (SELECT system_identifier::text FROM pg_control_system())"
                      + " || ' ' || pg_current_wal_lsn()::text"))
          .isNotBlank();
    }
  }

  @Test
  void shouldKeepTheProcessesOffTheSchemaHistoryAndTheSchemaDefinition() throws SQLException {
    for (Role role : new Role[] {Role.WRITER, Role.CONSUMER, Role.RELAY}) {
      try (Connection connection = connect(role)) {
        assertRefused(connection, "SELECT count(*) FROM writer.flyway_schema_history");
        assertRefused(connection, "SELECT count(*) FROM consumer.flyway_schema_history");
        assertRefused(connection, "CREATE TABLE writer.intruder (id int)");
        assertRefused(connection, "CREATE TABLE consumer.intruder (id int)");
      }
    }
    try (Connection writer = connect(Role.WRITER)) {
      assertRefused(writer, HEARTBEAT);
    }
  }

  @Test
  void shouldGrantATableALaterMigrationCreatesToItsSchemasRoleOnly() throws SQLException {
    try (Connection migrator = connect(Role.MIGRATOR)) {
      update(migrator, "CREATE TABLE writer.later_table (id bigint GENERATED ALWAYS AS IDENTITY)");
    }
    try (Connection writer = connect(Role.WRITER)) {
      assertThat(update(writer, "INSERT INTO writer.later_table DEFAULT VALUES")).isOne();
    }
    try (Connection consumer = connect(Role.CONSUMER)) {
      assertRefused(consumer, "SELECT count(*) FROM writer.later_table");
    }
    try (Connection relay = connect(Role.RELAY)) {
      assertRefused(relay, "SELECT count(*) FROM writer.later_table");
    }
  }

  @Test
  void shouldLetTheRelayEndAFormerLeadersReaderWithoutSignallingRights() throws Exception {
    // Not closed here: the server ends this session, and closing the driver's side of it throws
    // (the driver's cleaner releases it).
    Connection reader = replicationConnection(Role.RELAY);
    try (Connection relay = connect(Role.RELAY)) {
      PGReplicationStream stream =
          reader
              .unwrap(PGConnection.class)
              .getReplicationAPI()
              .replicationStream()
              .logical()
              .withSlotName(stack.slot())
              .withSlotOption("proto_version", 1)
              .withSlotOption("publication_names", stack.publication())
              .start();
      await().atMost(Duration.ofSeconds(10)).until(() -> activePid(relay) != null);
      Integer readerPid = activePid(relay);

      // PostgresSlots.endReader's statement.
      try (PreparedStatement end =
          relay.prepareStatement(
              "SELECT active_pid, pg_terminate_backend(active_pid) FROM pg_replication_slots"
                  + " WHERE slot_name = ? AND active_pid IS NOT NULL")) {
        end.setString(1, stack.slot());
        try (ResultSet rows = end.executeQuery()) {
          assertThat(rows.next()).isTrue();
          assertThat(rows.getInt(1)).isEqualTo(readerPid);
          assertThat(rows.getBoolean(2)).isTrue();
        }
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> activePid(relay) == null);
      // The reader's session is gone: ending its stream finds the connection closed.
      assertThatThrownBy(stream::close).isInstanceOf(SQLException.class);
    }
  }

  @Test
  void shouldNotLetTheRelayOrTheWriterAlterThePublication() throws SQLException {
    for (Role role : new Role[] {Role.WRITER, Role.CONSUMER, Role.RELAY}) {
      try (Connection connection = connect(role)) {
        assertRefused(
            connection, "ALTER PUBLICATION " + stack.publication() + " ADD TABLE writer.inbox");
      }
    }
  }

  @Test
  void shouldHandAnInstallationMigratedByASuperuserOverToTheRoles() throws SQLException {
    String database = stack.database() + "_legacy";
    stack.stack().postgres().createDatabase(database);
    String url = stack.stack().postgres().jdbcUrl(database);
    PGSimpleDataSource admin = new PGSimpleDataSource();
    admin.setUrl(url);
    admin.setUser(stack.user());
    admin.setPassword(stack.password());
    CaptureSettings capture = new CaptureSettings(stack.publication(), stack.slot() + "_legacy");
    try {
      SchemaMigrator.migrate(admin, HeraldSchema.WRITER, capture);
      SchemaMigrator.migrate(admin, HeraldSchema.CONSUMER, capture);

      DatabaseRoles.setUp(admin, passwords());
      // Nothing to apply; the run's grants are what hands the tables to the process roles.
      assertThat(SchemaMigrator.migrate(as(url, Role.MIGRATOR), HeraldSchema.WRITER, capture))
          .isZero();
      assertThat(SchemaMigrator.migrate(as(url, Role.MIGRATOR), HeraldSchema.CONSUMER, capture))
          .isZero();

      try (Connection writer = as(url, Role.WRITER).getConnection()) {
        assertThat(update(writer, INSERT_JOB)).isOne();
        assertRefused(writer, INSERT_DELIVERY);
      }
      try (Connection consumer = as(url, Role.CONSUMER).getConnection()) {
        assertThat(update(consumer, INSERT_DELIVERY)).isOne();
        assertRefused(consumer, INSERT_JOB);
      }
      try (Connection connection = admin.getConnection()) {
        assertThat(
                queryString(
                    connection,
                    "SELECT string_agg(DISTINCT owner, ',') FROM ("
                        + " SELECT tableowner AS owner FROM pg_tables"
                        + "  WHERE schemaname IN ('writer', 'consumer', 'herald_relay')"
                        + " UNION SELECT nspowner::regrole::text FROM pg_namespace"
                        + "  WHERE nspname IN ('writer', 'consumer', 'herald_relay')"
                        + " UNION SELECT pubowner::regrole::text FROM pg_publication) o"))
            .isEqualTo(Role.MIGRATOR.roleName());
      }
    } finally {
      try (Connection connection = admin.getConnection();
          PreparedStatement drop =
              connection.prepareStatement(
                  "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                      + " WHERE slot_name = ?")) {
        drop.setString(1, capture.slot());
        drop.executeQuery().close();
      }
    }
  }

  /**
   * The administrator's shell step (docker-compose.yml runs it at PostgreSQL's first start) sets
   * the roles up with psql, passwords from files or variables, quotes and backslashes included.
   */
  @Test
  void shouldSetTheRolesUpWithTheShellScriptWherePsqlIsInstalled(@TempDir Path dir)
      throws Exception {
    Optional<Path> psql = onPath("psql");
    assumeTrue(psql.isPresent(), "psql is not on the PATH: skipping ops/postgres/herald-roles.sh");
    Path root = Path.of("").toAbsolutePath();
    while (!Files.isDirectory(root.resolve("ops"))) {
      root = root.getParent();
    }
    Path passwordFile = dir.resolve("herald-writer-password.txt");
    Files.writeString(passwordFile, "it's a \\ file");
    URI server = URI.create(stack.jdbcUrl().substring("jdbc:".length()));
    ProcessBuilder script =
        new ProcessBuilder("bash", root.resolve("ops/postgres/herald-roles.sh").toString())
            .redirectErrorStream(true);
    script.environment().put("PGHOST", server.getHost());
    script.environment().put("PGPORT", Integer.toString(server.getPort()));
    script.environment().put("PGUSER", stack.user());
    script.environment().put("PGPASSWORD", stack.password());
    script.environment().put("PGDATABASE", stack.database());
    script.environment().put("WRITER_PASSWORD_FILE", passwordFile.toString());
    script.environment().put("RELAY_PASSWORD", "quote ' and backslash \\ too");
    Process process = script.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output)
        .contains("no MIGRATOR_PASSWORD_FILE or MIGRATOR_PASSWORD: herald_migrator keeps")
        .contains("are set up");
    try (Connection admin = stack.dataSource().getConnection()) {
      assertThat(
              queryString(
                  admin,
                  "SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_authid"
                      + " WHERE rolname IN ('herald_writer', 'herald_relay')"
                      + " AND rolpassword LIKE 'SCRAM-SHA-256$%'"))
          .isEqualTo("herald_relay,herald_writer");
    }
  }

  private static Optional<Path> onPath(String program) {
    return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .map(dir -> Path.of(dir, program))
        .filter(Files::isExecutable)
        .findFirst();
  }

  private static Integer activePid(Connection connection) throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT active_pid FROM pg_replication_slots WHERE slot_name = ?")) {
      query.setString(1, stack.slot());
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        int pid = rows.getInt(1);
        return rows.wasNull() ? null : pid;
      }
    }
  }

  static Map<Role, String> passwords() {
    Map<Role, String> passwords = new EnumMap<>(Role.class);
    for (Role role : Role.values()) {
      passwords.put(role, "test-" + role.roleName());
    }
    return passwords;
  }

  static DataSource as(String jdbcUrl, Role role) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(jdbcUrl);
    dataSource.setUser(role.roleName());
    dataSource.setPassword("test-" + role.roleName());
    return dataSource;
  }

  private static Connection connect(Role role) throws SQLException {
    Connection connection = as(stack.jdbcUrl(), role).getConnection();
    // Each statement on its own: a refused one must not abort the next.
    connection.setAutoCommit(true);
    return connection;
  }

  private static Connection replicationConnection(Role role) throws SQLException {
    Properties properties = new Properties();
    PGProperty.USER.set(properties, role.roleName());
    PGProperty.PASSWORD.set(properties, "test-" + role.roleName());
    PGProperty.REPLICATION.set(properties, "database");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
    PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
    return DriverManager.getConnection(stack.jdbcUrl(), properties);
  }

  private static void assertRefused(Connection connection, String sql) {
    assertThatThrownBy(() -> update(connection, sql))
        .as(sql)
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(INSUFFICIENT_PRIVILEGE));
  }

  private static int update(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      return statement.execute(sql) ? 1 : statement.getUpdateCount();
    }
  }

  private static long count(Connection connection, String table) throws SQLException {
    return Long.parseLong(queryString(connection, "SELECT count(*) FROM " + table));
  }

  private static String queryString(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1);
    }
  }
}
