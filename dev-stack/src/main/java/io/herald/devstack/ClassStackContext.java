package io.herald.devstack;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link StackContext} of one test class; closing it drops its database's slots. */
final class ClassStackContext implements StackContext, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClassStackContext.class);
  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  private static final int MAX_IDENTIFIER = 63;

  private final HeraldStack stack;
  private final String token;
  private final String database;

  private ClassStackContext(HeraldStack stack, String token) {
    this.stack = stack;
    this.token = token;
    this.database = token;
  }

  /** Creates the class's database on the shared stack. */
  static ClassStackContext create(HeraldStack stack, Class<?> testClass) {
    ClassStackContext context = new ClassStackContext(stack, tokenFor(testClass));
    stack.postgres().createDatabase(context.database);
    return context;
  }

  /**
   * A lower-case identifier from the class name plus a per-JVM sequence number and random suffix,
   * valid as database, slot and publication name and inside topic names.
   */
  static String tokenFor(Class<?> testClass) {
    String suffix =
        "_"
            + SEQUENCE.incrementAndGet()
            + "_"
            + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
    String base = testClass.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
    if (base.isEmpty() || !Character.isLetter(base.charAt(0))) {
      base = "t_" + base;
    }
    // Room for the suffix and for "pub_"/"slot_" prefixes within PostgreSQL's 63 bytes.
    int room = MAX_IDENTIFIER - suffix.length() - "slot_".length();
    return (base.length() > room ? base.substring(0, room) : base) + suffix;
  }

  @Override
  public String database() {
    return database;
  }

  @Override
  public String jdbcUrl() {
    return stack.postgres().jdbcUrl(database);
  }

  @Override
  public String user() {
    return stack.postgres().user();
  }

  @Override
  public String password() {
    return stack.postgres().password();
  }

  @Override
  public DataSource dataSource() {
    return stack.postgres().dataSource(database());
  }

  @Override
  public String bootstrapServers() {
    return stack.kafka().bootstrapServers();
  }

  @Override
  public String topic(String base) {
    return requireBase(base) + "." + token;
  }

  @Override
  public String groupId(String base) {
    return requireBase(base) + "." + token;
  }

  @Override
  public String publication() {
    return "pub_" + token;
  }

  @Override
  public String slot() {
    return "slot_" + token;
  }

  @Override
  public HeraldStack stack() {
    return stack;
  }

  /** Drops the replication slots of this class's database so they stop retaining WAL. */
  @Override
  public void close() throws SQLException, InterruptedException {
    try (Connection connection =
        DriverManager.getConnection(stack.postgres().jdbcUrl("postgres"), user(), password())) {
      int dropped = DatabaseSlots.drop(connection, database);
      if (dropped > 0) {
        LOG.info("dropped {} replication slot(s) of database {} at class end", dropped, database);
      }
    }
  }

  private static String requireBase(String base) {
    if (base == null || !base.matches("[A-Za-z0-9._-]{1,180}")) {
      throw new IllegalArgumentException(
          "a topic or group base must be 1-180 of [A-Za-z0-9._-], was '" + base + "'");
    }
    return base;
  }
}
