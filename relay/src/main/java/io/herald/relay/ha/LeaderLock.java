package io.herald.relay.ha;

import io.herald.runtime.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leadership among the relays of one database: a PostgreSQL session-level advisory lock held on a
 * dedicated connection for as long as the relay streams.
 *
 * <p>PostgreSQL releases the lock the moment the holder's session ends: at once when its process
 * dies (the kernel closes the socket), within the session's TCP keepalive / user timeout (set
 * below) when its host vanishes, and within its idle timeout when it freezes ({@link
 * #expireWhenIdle()}). A standby polls {@code pg_try_advisory_lock} every {@code pollInterval}, so
 * it takes over within one interval plus the engine's start. The replication slot itself admits one
 * reader, so even a relay that has not noticed losing its lock cannot stream next to the new
 * leader; the leader checks its lock connection on every {@link #stillHeld()} call and, when it is
 * gone, stops streaming, {@link #release()}s the lock and stands by again with {@link #acquire} (a
 * database restart ends every session, the lock's among them).
 *
 * <p>Every relay of one database uses the same key ({@code relay.standby.lock-key}); relays of
 * different databases use different keys or servers. {@link #acquire}, {@link #stillHeld} and
 * {@link #release} run on the owner thread; {@link #close} may run on the shutdown thread.
 */
public final class LeaderLock implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaderLock.class);

  private static final String TRY_LOCK_SQL = "SELECT pg_try_advisory_lock(?)";

  private static final String SET_SQL = "SELECT set_config(?, ?, false)";

  /**
   * The lock's settings ({@code relay.standby.*}).
   *
   * @param lockKey the advisory lock key, the same for every relay of one database
   * @param pollInterval how often a standby tries the lock, and the streaming relay checks it
   * @param deadPeerTimeout how long PostgreSQL waits on an unresponsive holder before ending its
   *     session (TCP keepalive, {@code tcp_user_timeout}, {@code idle_session_timeout}); bounds
   *     takeover after a host failure or a freeze
   */
  public record Settings(long lockKey, Duration pollInterval, Duration deadPeerTimeout) {

    /**
     * The wait before the next try after {@code failures} failed ones in a row (the database
     * unreachable): doubles from the poll interval up to the dead-peer timeout, so that a standby
     * does not hammer a database that is down, and takes the lock within one dead-peer timeout of
     * its return.
     */
    public Duration backoff(int failures) {
      Duration wait = pollInterval;
      for (int i = 1; i < failures && wait.compareTo(deadPeerTimeout) < 0; i++) {
        wait = wait.multipliedBy(2);
      }
      return wait.compareTo(deadPeerTimeout) < 0 ? wait : deadPeerTimeout;
    }
  }

  private final String jdbcUrl;
  private final Properties connectionProperties;
  private final Settings settings;
  private final long key;
  private final Duration pollInterval;
  private final Duration deadPeerTimeout;
  private volatile Connection connection;

  /**
   * @param database the captured database (only its URL, credentials and secret driver properties
   *     are used: the lock holds one connection of its own)
   */
  public LeaderLock(DatabaseConfig database, Settings settings) {
    this.jdbcUrl = database.jdbcUrl();
    this.connectionProperties = new Properties();
    connectionProperties.putAll(database.driverSecrets());
    connectionProperties.setProperty("user", database.user());
    if (database.password() != null) {
      connectionProperties.setProperty("password", database.password());
    }
    connectionProperties.setProperty("tcpKeepAlive", "true");
    connectionProperties.setProperty("ApplicationName", "herald-relay-leader-lock");
    this.settings = settings;
    this.key = settings.lockKey();
    this.pollInterval = settings.pollInterval();
    this.deadPeerTimeout = settings.deadPeerTimeout();
  }

  /**
   * Waits until this relay holds the lock or {@code keepWaiting} turns false. While the database
   * cannot be reached, tries again with {@link Settings#backoff}; logs once when it cannot, once
   * when it can again and once when another relay holds the lock, not on every try.
   *
   * @return true when the lock is held
   */
  public boolean acquire(BooleanSupplier keepWaiting) throws InterruptedException {
    boolean loggedWaiting = false;
    int failures = 0;
    long unreachableSince = 0;
    while (keepWaiting.getAsBoolean()) {
      Duration wait = pollInterval;
      try {
        boolean locked = tryLock();
        if (failures > 0) {
          log.info(
              "The leader lock {} can be tried again after {} ms and {} failed tries",
              key,
              TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unreachableSince),
              failures);
          failures = 0;
        }
        if (locked) {
          log.info("Leader lock {} acquired: this relay streams", key);
          return true;
        }
        if (!loggedWaiting) {
          log.info(
              "Leader lock {} is held by another relay; standing by, retrying every {}",
              key,
              pollInterval);
          loggedWaiting = true;
        }
      } catch (SQLException e) {
        closeConnection();
        failures++;
        wait = settings.backoff(failures);
        if (failures == 1) {
          unreachableSince = System.nanoTime();
          log.warn(
              "Could not try the leader lock {} (SQLState {}); standing by and trying again with"
                  + " backoff from {} up to {}, logged again once a try gets through",
              key,
              e.getSQLState(),
              pollInterval,
              deadPeerTimeout,
              e);
        } else {
          log.debug("Try {} of the leader lock {} failed too", failures, key, e);
        }
      }
      Thread.sleep(wait.toMillis());
    }
    return false;
  }

  /**
   * From now on the server also ends the lock session once it has been idle for {@code
   * deadPeerTimeout}, so that a frozen leader (a paused process or VM, whose kernel still answers
   * TCP keepalives) loses the lock too. Called once the engine streams: from then on the owner
   * calls {@link #stillHeld()} every poll interval, well within the timeout; before, acquiring the
   * lock and starting the engine do not use the session on a schedule. Needs PostgreSQL 14 ({@code
   * idle_session_timeout}); on an older server only a vanished host frees the lock.
   *
   * @return whether the server applies the timeout
   */
  public boolean expireWhenIdle() throws SQLException {
    Connection held = connection;
    if (held == null) {
      throw new IllegalStateException("the leader lock is not held");
    }
    if (held.getMetaData().getDatabaseMajorVersion() < 14) {
      return false;
    }
    try (PreparedStatement statement = held.prepareStatement(SET_SQL)) {
      set(statement, "idle_session_timeout", deadPeerTimeout.toMillis());
    }
    return true;
  }

  /** Whether the session holding the lock is still alive (and so still holds it). */
  public boolean stillHeld() {
    try {
      return connection != null && connection.isValid(validationSeconds());
    } catch (SQLException e) {
      log.error("Leader lock connection check failed", e);
      return false;
    }
  }

  /**
   * Gives the lock up: closes its session, which frees the lock if the server still held it for
   * this relay (a lock check can fail on a slow answer while the session lives on). Called once the
   * engine has stopped, before standing by again; the next {@link #acquire} opens a new session.
   */
  public void release() {
    closeConnection();
  }

  @Override
  public void close() {
    closeConnection();
  }

  private boolean tryLock() throws SQLException {
    if (connection == null || connection.isClosed()) {
      connection = open();
    }
    try (PreparedStatement statement = connection.prepareStatement(TRY_LOCK_SQL)) {
      statement.setLong(1, key);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getBoolean(1);
      }
    }
  }

  private Connection open() throws SQLException {
    Connection opened = DriverManager.getConnection(jdbcUrl, connectionProperties);
    try (PreparedStatement statement = opened.prepareStatement(SET_SQL)) {
      // The server ends the session (and so frees the lock) when the peer stops answering.
      long seconds = Math.max(1, deadPeerTimeout.toSeconds());
      long idle = Math.max(1, seconds / 3);
      set(statement, "tcp_keepalives_idle", idle);
      set(statement, "tcp_keepalives_interval", Math.max(1, idle / 2));
      set(statement, "tcp_keepalives_count", 3);
      set(statement, "tcp_user_timeout", deadPeerTimeout.toMillis());
    } catch (SQLException e) {
      opened.close();
      throw e;
    }
    return opened;
  }

  private static void set(PreparedStatement statement, String setting, long value)
      throws SQLException {
    statement.setString(1, setting);
    statement.setString(2, Long.toString(value));
    statement.execute();
  }

  private int validationSeconds() {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, deadPeerTimeout.toSeconds()));
  }

  private void closeConnection() {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (SQLException e) {
      log.warn(
          "Closing the leader lock connection failed; the server frees the lock when the session ends",
          e);
    }
    connection = null;
  }
}
