package io.herald.relay.it;

import io.herald.devstack.FreePort;
import io.herald.devstack.StackContext;
import io.herald.schema.CaptureSettings;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * One test class's relay set-up: migrated schemas with the class's own publication and slot, its
 * own topics, and property files for child-JVM relays built from the shipped {@code
 * connect-config/relay.properties} with the test's connection settings on top. Public for the relay
 * benchmark in {@code bench}, which runs on this fixture (the relay's test-jar).
 */
public final class RelayFixture {

  static final Path SHIPPED = Path.of("..", "connect-config", "relay.properties");

  private final StackContext context;
  private final String name;
  private final DataSource dataSource;
  private final AtomicInteger instances = new AtomicInteger();
  public final String publicationEvents;
  public final String deliveryEvents;
  public final String offsetsTopic;

  /**
   * The database the relay captures: the class's own on the stack's server, or another server's (a
   * failover pair behind a proxy).
   */
  public record Database(
      String host, int port, String name, String user, String password, DataSource dataSource) {}

  private final Database database;

  public RelayFixture(StackContext context, String name) {
    this(
        context,
        name,
        new Database(
            context.stack().postgres().host(),
            context.stack().postgres().port(),
            context.database(),
            context.user(),
            context.password(),
            context.dataSource()));
  }

  /** A fixture whose relay captures {@code database}; Kafka, topics and names are the stack's. */
  public RelayFixture(StackContext context, String name, Database database) {
    this.context = context;
    this.name = name;
    this.database = database;
    this.dataSource = database.dataSource();
    CaptureSettings capture = new CaptureSettings(context.publication(), context.slot());
    SchemaMigrator.migrate(dataSource, HeraldSchema.WRITER, capture);
    SchemaMigrator.migrate(dataSource, HeraldSchema.CONSUMER, capture);
    publicationEvents = context.topic("publication-events");
    deliveryEvents = context.topic("delivery-events");
    offsetsTopic = context.topic("relay-offsets");
    context.stack().kafka().createTopic(publicationEvents, 3);
    context.stack().kafka().createTopic(deliveryEvents, 1);
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public StackContext context() {
    return context;
  }

  OutboxRows writerOutbox(int keys) {
    return new OutboxRows(dataSource, "writer", keys);
  }

  OutboxRows consumerOutbox(int keys) {
    return new OutboxRows(dataSource, "consumer", keys);
  }

  EventCollector collect(String topic) {
    return new EventCollector(context.bootstrapServers(), topic);
  }

  /** A running relay child with the given extra settings and a free ops port. */
  Relay start(Map<String, String> overrides) throws IOException {
    return start(overrides, RelayChild.TEST_JVM);
  }

  /** As {@link #start(Map)}, with the child's JVM options. */
  public Relay start(Map<String, String> overrides, List<String> jvmOptions) throws IOException {
    int n = instances.incrementAndGet();
    int port = freePort();
    Path file = properties(overrides, port, "relay-" + n + ".properties");
    Path dir = file.getParent();
    return new Relay(RelayChild.start(file, dir.resolve("relay-" + n + ".log"), jvmOptions), port);
  }

  /** The properties file a relay started with {@code overrides} reads, for in-process tools. */
  Path properties(Map<String, String> overrides) throws IOException {
    return properties(overrides, freePort(), "tool-" + instances.incrementAndGet() + ".properties");
  }

  private Path properties(Map<String, String> overrides, int port, String fileName)
      throws IOException {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(SHIPPED, StandardCharsets.UTF_8)) {
      properties.load(reader);
    }
    properties.setProperty("relay.kafka.bootstrap-servers", context.bootstrapServers());
    properties.setProperty("relay.ops.host", "127.0.0.1");
    properties.setProperty("relay.ops.port", Integer.toString(port));
    properties.setProperty("relay.topics.publication-events", publicationEvents);
    properties.setProperty("relay.topics.delivery-events", deliveryEvents);
    properties.setProperty("relay.standby.poll-interval", "500ms");
    properties.setProperty("relay.slot.lag-check-interval", "1s");
    properties.setProperty("debezium.source.database.hostname", database.host());
    properties.setProperty("debezium.source.database.port", Integer.toString(database.port()));
    properties.setProperty("debezium.source.database.dbname", database.name());
    properties.setProperty("debezium.source.database.user", database.user());
    properties.setProperty("debezium.source.database.password", database.password());
    properties.setProperty("debezium.source.slot.name", context.slot());
    properties.setProperty("debezium.source.publication.name", context.publication());
    properties.setProperty("debezium.source.offset.storage.topic", offsetsTopic);
    properties.putAll(overrides);
    Path dir = Path.of("target", "relay-it", name);
    Files.createDirectories(dir);
    Path file = dir.resolve(fileName);
    try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      properties.store(writer, "generated by " + name);
    }
    return file;
  }

  Relay start() throws IOException {
    return start(Map.of());
  }

  /** The slot's confirmed_flush_lsn as a number. */
  long confirmedFlush() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT (confirmed_flush_lsn - '0/0'::pg_lsn)::bigint FROM pg_replication_slots"
                    + " WHERE slot_name = ?")) {
      statement.setString(1, context.slot());
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getLong(1) : -1;
      }
    }
  }

  private static int freePort() throws IOException {
    return FreePort.find();
  }

  /** A relay child and its ops port. */
  public record Relay(RelayChild process, int opsPort) implements AutoCloseable {

    /** GET on the ops server; the status code and body, or -1 when it does not answer. */
    HttpResult get(String path) {
      try (HttpClient client =
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
        HttpResponse<String> response =
            client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + opsPort + path))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        return new HttpResult(response.statusCode(), response.body());
      } catch (IOException e) {
        return new HttpResult(-1, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new HttpResult(-1, e.toString());
      }
    }

    public long pid() {
      return process.pid();
    }

    /** SIGTERM, then waits for the relay to exit; returns its exit code. */
    public int terminate() throws InterruptedException {
      return process.terminate();
    }

    /** A gauge or counter value from /metrics (first series of that name), or NaN. */
    public double metric(String name) {
      return metric(name, "");
    }

    /**
     * The value of the first series of {@code name} whose labels hold {@code label} (as rendered,
     * {@code from="flush"}; empty for any series), or NaN.
     */
    public double metric(String name, String label) {
      HttpResult result = get("/metrics");
      for (String line : result.body().split("\n")) {
        boolean named = line.startsWith(name + " ") || line.startsWith(name + "{");
        if (named && line.substring(0, line.lastIndexOf(' ')).contains(label)) {
          return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return Double.NaN;
    }

    @Override
    public void close() throws InterruptedException {
      process.close();
    }
  }

  record HttpResult(int status, String body) {}
}
