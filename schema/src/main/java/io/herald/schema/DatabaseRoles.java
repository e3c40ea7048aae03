package io.herald.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * Herald's least-privilege database roles: the administrator's one-time set-up step before the
 * first migration ({@code db/roles/herald-roles.sql}, documented in docs/design.md, "Database
 * roles"). The grants on the tables come with the migrations, which must then run as {@link
 * Role#MIGRATOR} ({@code *.db.migration-user}).
 *
 * <pre>{@code
 * DatabaseRoles.setUp(adminDataSource, Map.of(Role.WRITER, writerPassword, ...));
 * }</pre>
 *
 * <p>Thread-safety: stateless. Idempotent: roles that exist are kept (roles are cluster-wide, so
 * the set-up of a second database reuses them) and their attributes reset.
 */
public final class DatabaseRoles {

  /** The script, on the class path and at {@code schema/src/main/resources/} in the repository. */
  public static final String SCRIPT = "db/roles/herald-roles.sql";

  /** A Herald role and what it may do. */
  public enum Role {
    /** Owns the schemas and runs the migrations (CREATE on the database, REPLICATION). */
    MIGRATOR("herald_migrator"),
    /** The writer's schema only. */
    WRITER("herald_writer"),
    /** The consumer's schema only. */
    CONSUMER("herald_consumer"),
    /** REPLICATION, the outbox tables read, the heartbeat written. */
    RELAY("herald_relay");

    private final String roleName;

    Role(String roleName) {
      this.roleName = roleName;
    }

    /** The PostgreSQL role name. */
    public String roleName() {
      return roleName;
    }
  }

  private DatabaseRoles() {}

  /**
   * Runs the set-up script on {@code admin}'s database, then sets the given passwords. The password
   * is hashed here (SCRAM-SHA-256), so it reaches neither the server's logs nor {@code
   * pg_stat_activity} in clear text; a role left out keeps the password it has (none when new).
   *
   * @param admin a superuser's connections to the database holding (or about to hold) the schemas
   * @throws IllegalStateException naming the step and the SQLState when the server refuses
   */
  public static void setUp(DataSource admin, Map<Role, String> passwords) {
    Objects.requireNonNull(admin, "admin");
    Objects.requireNonNull(passwords, "passwords");
    String script = script();
    try (Connection connection = admin.getConnection()) {
      connection.setAutoCommit(true);
      try (Statement statement = connection.createStatement()) {
        statement.execute(script);
      } catch (SQLException e) {
        throw failure("running " + SCRIPT, e);
      }
      PGConnection postgres = connection.unwrap(PGConnection.class);
      for (Map.Entry<Role, String> password : passwords.entrySet()) {
        try {
          postgres.alterUserPassword(
              password.getKey().roleName(), password.getValue().toCharArray(), "scram-sha-256");
        } catch (SQLException e) {
          throw failure("setting the password of " + password.getKey().roleName(), e);
        }
      }
    } catch (SQLException e) {
      throw failure("connecting as the administrator", e);
    }
  }

  private static IllegalStateException failure(String step, SQLException e) {
    return new IllegalStateException(
        "Setting up Herald's database roles failed " + step + " (SQLState " + e.getSQLState() + ")",
        e);
  }

  private static String script() {
    try (InputStream in = DatabaseRoles.class.getClassLoader().getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(SCRIPT + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + SCRIPT, e);
    }
  }
}
