package io.herald.relay.it;

import io.herald.devstack.StackContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * TLS on the test stack's PostgreSQL with a throw-away self-signed certificate, turned off again on
 * close. The key and certificate are written into the server's data directory, so this works only
 * when that directory is on this machine (the embedded stack), not in a container.
 */
final class ServerTls implements AutoCloseable {

  private static final String CERT_FILE = "herald-test-tls.crt";
  private static final String KEY_FILE = "herald-test-tls.key";
  private static final char[] STORE_PASSWORD = "herald-test".toCharArray();

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

  /**
   * keytool (in every JDK) makes the pair; PostgreSQL wants them as PEM, the key readable by it
   * only.
   */
  private static void writeSelfSignedPair(Path dataDirectory)
      throws IOException, InterruptedException, GeneralSecurityException {
    Path work = Files.createTempDirectory("herald-tls");
    try {
      Path store = work.resolve("server.p12");
      Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
      Process process =
          new ProcessBuilder(
                  keytool.toString(),
                  "-genkeypair",
                  "-alias",
                  "server",
                  "-keyalg",
                  "RSA",
                  "-keysize",
                  "2048",
                  "-validity",
                  "2",
                  "-dname",
                  "CN=localhost",
                  "-storetype",
                  "PKCS12",
                  "-keystore",
                  store.toString(),
                  "-storepass",
                  new String(STORE_PASSWORD))
              .redirectErrorStream(true)
              .start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException("keytool failed: " + output);
      }
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        keyStore.load(in, STORE_PASSWORD);
      }
      Path key = dataDirectory.resolve(KEY_FILE);
      Files.deleteIfExists(key);
      Files.createFile(
          key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(
          key, pem("PRIVATE KEY", keyStore.getKey("server", STORE_PASSWORD).getEncoded()));
      Files.writeString(
          dataDirectory.resolve(CERT_FILE),
          pem("CERTIFICATE", keyStore.getCertificate("server").getEncoded()));
    } finally {
      try (var files = Files.list(work)) {
        for (Path file : files.toList()) {
          Files.delete(file);
        }
      }
      Files.delete(work);
    }
  }

  private static String pem(String type, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }
}
