package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

/**
 * F13: PostgreSQL refuses new connections for a while. Another client, a login role made for the
 * purpose (not a superuser, so PostgreSQL's {@code superuser_reserved_connections} stay free for
 * the runner's own checks), opens connections until the server answers {@code 53300
 * too_many_connections}, then ends the pipeline's idle pooled connections ({@code
 * pg_terminate_backend} on the {@code herald-*} application names of the pipeline's database, never
 * a walsender) and takes the freed slots itself, again every {@link #TERMINATE_EVERY} while it
 * holds them: the pools' connections in use finish their statement and keep working, but each one
 * that goes idle is ended and no process can open a new one. It holds them a seeded 6 to 9 s under
 * the steady load, then closes them all. (Most slots are taken before the pipeline starts, a
 * ballast held through the run: see {@link #openBallast}.)
 *
 * <p>The writer must answer 503 (counted, {@code writer_503}; clients resend it as after no
 * answer), never 500 (an unexpected answer fails the round) nor hang past the client's timeout
 * ({@code no_answer_in_10s}, asserted 0 by the IT); no acknowledged write may be lost (the
 * checker); every process must be healthy again by itself within {@link #RECOVERY_TIMEOUT} of the
 * release, no restart (else a violation). The role is created before each hog and dropped after it
 * (try/finally): the stack is shared with the module's other IT classes.
 */
final class ConnectionHog implements FaultClass, AutoCloseable {

  private static final String ROLE = "herald_faults_hog";
  private static final String APPLICATION = "herald-faults-hog";

  /** A bound on the hog, above the embedded server's max_connections of 300. */
  private static final int MAX_CONNECTIONS = 400;

  /**
   * Above the writer's {@code writer.db.connect-timeout} (5 s): a request waits that long for a
   * connection before its 503, so a shorter hog would only delay answers.
   */
  private static final int MIN_HOLD_MILLIS = 6000;

  private static final int MAX_HOLD_MILLIS = 9000;
  private static final Duration TERMINATE_EVERY = Duration.ofMillis(250);
  private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(90);

  private static final String TOO_MANY_CONNECTIONS = "53300";

  // CREATE ROLE takes no bind parameters; the password is 32 hex digits made up here.
  private static final String CREATE_ROLE = "CREATE ROLE " + ROLE + " LOGIN PASSWORD '%s'";
  private static final String DROP_ROLE = "DROP ROLE IF EXISTS " + ROLE;

  /**
   * The pipeline's idle client sessions in its database (pools, the relay's leader lock), ended so
   * that their processes must open new ones; a walsender (the relay's stream) is left alone.
   */
  private static final String TERMINATE_IDLE =
      "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
          + " WHERE datname = ? AND backend_type = 'client backend' AND state = 'idle'"
          + " AND application_name LIKE 'herald-%' AND application_name <> ?";

  private static final String PIPELINE_SESSIONS =
      "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND backend_type = 'client backend'"
          + " AND application_name LIKE 'herald-%' AND application_name <> ?";

  /** How long the hog keeps trying for the slots of the sessions it has just ended. */
  private static final int BALLAST_OPENERS = 4;

  private static final Duration TAKE_WITHIN = Duration.ofSeconds(1);

  private static final SecureRandom SECRETS = new SecureRandom();

  private final StackContext stack;
  private int hogged;
  private int terminated;
  private long maxRecoveryMillis;
  private int left;
  private volatile String password;
  private final List<Connection> ballast = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();

  ConnectionHog(StackContext stack) {
    this.stack = stack;
  }

  @Override
  public String id() {
    return "F13";
  }

  @Override
  public String description() {
    return "PostgreSQL refuses new connections (another client holds every slot of"
        + " max_connections): 503s from the writer, no lost acknowledged write, every process"
        + " recovers by itself";
  }

  /**
   * Before the pipeline starts: creates the hog role and opens the ballast, every free connection
   * slot but {@code margin}, held until {@link #close()}. Opening a connection costs a backend
   * start (some 40 ms on the shared build machine), so filling all 300 slots at each injection
   * would take longer than a round's load; with the ballast an injection only takes the last {@code
   * margin} slots and those its ending sessions free. The margin must fit the pipeline's start (its
   * pools, migrations) and the herald command runs after the load.
   */
  void openBallast(int margin) throws SQLException, InterruptedException {
    password = secret();
    try (Connection admin = admin();
        Statement ddl = admin.createStatement()) {
      ddl.execute(DROP_ROLE);
      ddl.execute(String.format(CREATE_ROLE, password));
    }
    List<Connection> opened = Collections.synchronizedList(new ArrayList<>());
    // A few threads at once: the backends start in parallel on the server's cores.
    List<Thread> openers = new ArrayList<>();
    List<SQLException> failures = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < BALLAST_OPENERS; i++) {
      openers.add(
          Thread.ofPlatform()
              .name("faults-hog-" + i)
              .start(
                  () -> {
                    try {
                      while (opened.size() < MAX_CONNECTIONS && open(opened)) {
                        // Opened one; try the next.
                      }
                    } catch (SQLException e) {
                      failures.add(e);
                    }
                  }));
    }
    for (Thread opener : openers) {
      opener.join();
    }
    ballast.addAll(opened);
    if (!failures.isEmpty()) {
      throw failures.getFirst();
    }
    closeAll(ballast.subList(0, Math.min(margin, ballast.size())));
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    if (password == null) {
      throw new IllegalStateException("openBallast() first");
    }
    int hold = MIN_HOLD_MILLIS + random.nextInt(MAX_HOLD_MILLIS - MIN_HOLD_MILLIS);
    List<Connection> hog = new ArrayList<>();
    int ended = 0;
    long fillMillis;
    long released;
    try (Connection admin = admin();
        PreparedStatement terminate = admin.prepareStatement(TERMINATE_IDLE)) {
      try {
        long start = System.nanoTime();
        fill(hog);
        fillMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        int most = hog.size();
        long until = System.nanoTime() + Duration.ofMillis(hold).toNanos();
        while (System.nanoTime() < until) {
          int now = terminateIdle(terminate);
          ended += now;
          take(hog, now);
          most = Math.max(most, hog.size());
          // Sessions of the pools go idle between statements: end them as they do.
          Thread.sleep(TERMINATE_EVERY.toMillis());
        }
        hogged = Math.max(hogged, ballast.size() + most);
        left = Math.max(left, pipelineSessions(admin));
      } finally {
        closeAll(hog);
        released = System.nanoTime();
      }
    }
    terminated += ended;
    long recovery = awaitEveryProcessHealthy(pipeline, released);
    maxRecoveryMillis = Math.max(maxRecoveryMillis, recovery);
    return String.format(
        "hold every free connection for %d ms (%d beside a ballast of %d, taken in %d ms; %d"
            + " pooled sessions ended; all processes healthy %d ms after the release)",
        hold, hogged - ballast.size(), ballast.size(), fillMillis, ended, recovery);
  }

  /** Closes the ballast and drops the role: the stack is shared with the other IT classes. */
  @Override
  public void close() throws SQLException {
    try {
      closeAll(ballast);
    } finally {
      try (Connection admin = admin();
          Statement ddl = admin.createStatement()) {
        ddl.execute(DROP_ROLE);
      }
    }
  }

  private Connection admin() throws SQLException {
    return DriverManager.getConnection(stack.jdbcUrl(), stack.user(), stack.password());
  }

  @Override
  public RoundChecks endRound() {
    Map<String, Long> figures = new LinkedHashMap<>();
    figures.put("hog_connections", (long) hogged);
    figures.put("pooled_sessions_ended", (long) terminated);
    figures.put("pipeline_sessions_at_release", (long) left);
    figures.put("max_recovery_ms", maxRecoveryMillis);
    RoundChecks checks = new RoundChecks(figures, violations);
    hogged = 0;
    terminated = 0;
    maxRecoveryMillis = 0;
    left = 0;
    violations.clear();
    return checks;
  }

  /** Opens connections as the hog role until the server refuses one (or the bound is reached). */
  private void fill(List<Connection> hog) throws SQLException {
    while (hog.size() + ballast.size() < MAX_CONNECTIONS && open(hog)) {
      // Opened one; try the next.
    }
  }

  /**
   * Takes the slots of {@code ended} sessions just terminated: they free as their backends exit,
   * within milliseconds, and a pool reconnects as soon as it notices, so the hog keeps trying for a
   * short while instead of giving up at the first refusal.
   */
  private void take(List<Connection> hog, int ended) throws SQLException, InterruptedException {
    long until = System.nanoTime() + TAKE_WITHIN.toNanos();
    int taken = 0;
    while (taken < ended && hog.size() < MAX_CONNECTIONS && System.nanoTime() < until) {
      if (open(hog)) {
        taken++;
      } else {
        // Refused: the ended backends have not exited yet.
        Thread.sleep(5);
      }
    }
    fill(hog);
  }

  /** Opens one hog connection; false when the server refuses it for want of a slot. */
  private boolean open(List<Connection> hog) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", ROLE);
    properties.setProperty("password", password);
    properties.setProperty("ApplicationName", APPLICATION);
    properties.setProperty("connectTimeout", "10");
    try {
      hog.add(DriverManager.getConnection(stack.jdbcUrl(), properties));
      return true;
    } catch (SQLException e) {
      if (TOO_MANY_CONNECTIONS.equals(e.getSQLState())) {
        return false;
      }
      throw new SQLException(
          "opening hog connection "
              + (hog.size() + 1)
              + " failed (SQLState "
              + e.getSQLState()
              + ")",
          e.getSQLState(),
          e);
    }
  }

  /** The pipeline's client sessions still open in its database (pools, leader lock). */
  private int pipelineSessions(Connection admin) throws SQLException {
    try (PreparedStatement count = admin.prepareStatement(PIPELINE_SESSIONS)) {
      count.setString(1, stack.database());
      count.setString(2, APPLICATION);
      try (ResultSet row = count.executeQuery()) {
        row.next();
        return row.getInt(1);
      }
    }
  }

  private int terminateIdle(PreparedStatement terminate) throws SQLException {
    terminate.setString(1, stack.database());
    terminate.setString(2, APPLICATION);
    try (ResultSet row = terminate.executeQuery()) {
      row.next();
      return row.getInt(1);
    }
  }

  /** Closes and removes every connection of {@code hog}. */
  private static void closeAll(List<Connection> hog) {
    SQLException first = null;
    for (Connection connection : hog) {
      try {
        connection.close();
      } catch (SQLException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    hog.clear();
    if (first != null) {
      // The sessions end with this JVM's sockets at the latest; the role is dropped regardless.
      throw new IllegalStateException("closing the hog's connections failed", first);
    }
  }

  /**
   * Polls every process's {@code /health} until all answer 200; records a violation when one does
   * not within {@link #RECOVERY_TIMEOUT}. Returns the milliseconds from {@code released}.
   */
  private long awaitEveryProcessHealthy(Pipeline pipeline, long released)
      throws InterruptedException {
    SelfRecovery.Result recovery = SelfRecovery.await(pipeline, released, RECOVERY_TIMEOUT);
    if (!recovery.unhealthy().isEmpty()) {
      violations.add(
          "not healthy by itself within "
              + RECOVERY_TIMEOUT
              + " of the release: "
              + recovery.unhealthy());
    }
    return recovery.millis();
  }

  private static String secret() {
    byte[] bytes = new byte[16];
    SECRETS.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
