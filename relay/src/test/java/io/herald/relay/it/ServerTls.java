package io.herald.relay.it;

import io.herald.devstack.SelfSignedCertificate;
import io.herald.devstack.StackContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.awaitility.Awaitility;

/**
 * TLS on the test stack's PostgreSQL with a throw-away self-signed certificate, turned off again on
 * close. The key and certificate are written into the server's data directory, so this works only
 * when that directory is on this machine (the embedded stack), not in a container.
 */
final class ServerTls implements AutoCloseable {

  private static final String CERT_FILE = "herald-test-tls.crt";
  private static final String KEY_FILE = "herald-test-tls.key";

  private final StackContext context;
  private final Path dataDirectory;

  private ServerTls(StackContext context, Path dataDirectory) {
    this.context = context;
    this.dataDirectory = dataDirectory;
  }

  /** Turns TLS on, or returns empty when the server's data directory is not on this machine. */
  static Optional<ServerTls> enable(StackContext context) throws Exception {
    Path dataDirectory;
    try (Connection admin = admin(context, new Properties());
        Statement statement = admin.createStatement();
        ResultSet rows = statement.executeQuery("SHOW data_directory")) {
      rows.next();
      dataDirectory = Path.of(rows.getString(1));
    }
    if (!Files.isWritable(dataDirectory)) {
      return Optional.empty();
    }
    writeSelfSignedPair(dataDirectory);
    ServerTls tls = new ServerTls(context, dataDirectory);
    tls.configure(
        List.of(
            "ALTER SYSTEM SET ssl_cert_file = '" + CERT_FILE + "'",
            "ALTER SYSTEM SET ssl_key_file = '" + KEY_FILE + "'",
            "ALTER SYSTEM SET ssl = on"));
    // The postmaster reloads its configuration asynchronously.
    Properties require = new Properties();
    require.setProperty("sslmode", "require");
    Awaitility.await("a connection with sslmode=require")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              try (Connection connection = admin(context, require)) {
                return true;
              }
            });
    return Optional.of(tls);
  }

  /** The server's certificate (self-signed, CN=localhost): a client's trusted root for it. */
  Path certificate() {
    return dataDirectory.resolve(CERT_FILE);
  }

  @Override
  public void close() throws Exception {
    configure(
        List.of(
            "ALTER SYSTEM RESET ssl",
            "ALTER SYSTEM RESET ssl_cert_file",
            "ALTER SYSTEM RESET ssl_key_file"));
    Files.deleteIfExists(dataDirectory.resolve(CERT_FILE));
    Files.deleteIfExists(dataDirectory.resolve(KEY_FILE));
  }

  private void configure(List<String> statements) throws SQLException {
    try (Connection admin = admin(context, new Properties());
        Statement statement = admin.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
      statement.execute("SELECT pg_reload_conf()");
    }
  }

  private static Connection admin(StackContext context, Properties extra) throws SQLException {
    Properties properties = new Properties();
    properties.putAll(extra);
    properties.setProperty("user", context.user());
    properties.setProperty("password", context.password());
    return DriverManager.getConnection(context.jdbcUrl(), properties);
  }

  /** PostgreSQL wants the key readable by its owner only. */
  private static void writeSelfSignedPair(Path dataDirectory) throws IOException {
    SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost();
    Path key = dataDirectory.resolve(KEY_FILE);
    Files.deleteIfExists(key);
    Files.createFile(
        key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(key, certificate.privateKeyPem());
    Files.writeString(dataDirectory.resolve(CERT_FILE), certificate.certificatePem());
  }
}
