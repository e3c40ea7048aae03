package io.herald.devstack;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server with {@code wal_level=logical}, reachable over TCP.
 *
 * <p>Thread-safe. {@link #stop()} and {@link #start()} keep the port, the data and the credentials,
 * so outage tests can take the database away and bring it back.
 */
public interface PostgresServer {

  /** Database names {@link #createDatabase} accepts: plain lower-case identifiers. */
  Pattern DATABASE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /** The host name clients connect to. */
  String host();

  /** The TCP port; the same across {@link #stop()} and {@link #start()}. */
  int port();

  /** A superuser name (it may create databases, publications and replication slots). */
  String user();

  /** The password of {@link #user()}. */
  String password();

  /** A JDBC URL for the given database on this server. */
  default String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
  }

  /** A non-pooling data source on {@code database} as {@link #user()}; each call a new one. */
  default DataSource dataSource(String database) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(jdbcUrl(database));
    dataSource.setUser(user());
    dataSource.setPassword(password());
    return dataSource;
  }

  /**
   * Creates an empty database.
   *
   * @throws IllegalArgumentException if the name is not a plain lower-case identifier
   * @throws IllegalStateException if the database exists or the server refuses
   */
  default void createDatabase(String name) {
    if (name == null || !DATABASE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "database name must match " + DATABASE_NAME + ", was '" + name + "'");
    }
    try (Connection connection =
            DriverManager.getConnection(jdbcUrl("postgres"), user(), password());
        Statement statement = connection.createStatement()) {
      // Identifiers cannot be bind parameters; the name was validated above.
      statement.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "creating database '" + name + "' on " + jdbcUrl("postgres") + " failed", e);
    }
  }

  /**
   * Drops a database {@link #createDatabase} made, with its replication slots (their readers are
   * ended first) and the sessions still open on it; returns how many slots it had. No-op for a
   * database that does not exist.
   *
   * @throws IllegalArgumentException if the name is not a plain lower-case identifier, or is {@code
   *     postgres}
   * @throws IllegalStateException if the server refuses, or a slot's reader keeps it active
   */
  default int dropDatabase(String name) {
    if (name == null || !DATABASE_NAME.matcher(name).matches() || name.equals("postgres")) {
      throw new IllegalArgumentException(
          "not a database createDatabase makes: '" + name + "' (" + DATABASE_NAME + ")");
    }
    try (Connection connection =
        DriverManager.getConnection(jdbcUrl("postgres"), user(), password())) {
      return DatabaseSlots.dropDatabase(connection, name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "dropping database '" + name + "' on " + jdbcUrl("postgres") + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while dropping database '" + name + "'", e);
    }
  }

  /** The server version as PostgreSQL reports it (e.g. {@code 17.7}). */
  default String version() {
    try (Connection connection =
            DriverManager.getConnection(jdbcUrl("postgres"), user(), password());
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SHOW server_version")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "reading the version of " + jdbcUrl("postgres") + " failed", e);
    }
  }

  /** Stops the server (fast shutdown: open sessions are ended). No-op when stopped. */
  void stop();

  /**
   * Stops the server as a crash would: an immediate shutdown (SIGQUIT to the postmaster, what
   * {@code pg_ctl stop -m immediate} sends). Sessions are cut without a checkpoint, so the next
   * {@link #start()} runs crash recovery; committed transactions survive. No-op when stopped.
   */
  void stopImmediately();

  /** Starts the server again on the same port and data. No-op when running. */
  void start();
}
