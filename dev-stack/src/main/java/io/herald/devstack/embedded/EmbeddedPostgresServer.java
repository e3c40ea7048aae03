package io.herald.devstack.embedded;

import io.herald.devstack.FreePort;
import io.herald.devstack.PostgresServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL 17 from the zonky binaries. Restart works by closing the zonky instance without
 * deleting its data and building a new one on the same data directory and port: zonky skips {@code
 * initdb} when the directory already holds a cluster.
 */
final class EmbeddedPostgresServer implements PostgresServer {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
  private static final String USER = "postgres";
  // initdb runs with trust authentication; the password is what clients may send, not checked.
  private static final String PASSWORD = "postgres";
  private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

  /** Server settings; each line says why it differs from the PostgreSQL default. */
  private static final Map<String, String> SETTINGS = settings();

  private final Path dataDirectory;
  private final Path binariesDirectory;
  private final Path logFile;
  private final int port;
  private final Map<String, String> settings;
  private EmbeddedPostgres server;

  /** Stops the running server should this JVM end without stopping it; null while stopped. */
  private PostmasterWatch watch;

  private EmbeddedPostgresServer(
      Path directory, Path binariesDirectory, int port, Map<String, String> extraSettings) {
    this.dataDirectory = directory.resolve("data");
    this.binariesDirectory = binariesDirectory;
    this.logFile = directory.resolve("postgres.log");
    this.port = port;
    Map<String, String> all = new LinkedHashMap<>(SETTINGS);
    all.putAll(extraSettings);
    this.settings = Map.copyOf(all);
  }

  static EmbeddedPostgresServer start(Path directory, Path binariesDirectory) {
    return start(directory, binariesDirectory, Map.of());
  }

  /**
   * A server whose settings are the stack's plus {@code extraSettings}; a {@code directory} whose
   * {@code data} already holds a cluster (a base backup) is started as it is, without {@code
   * initdb}.
   */
  static EmbeddedPostgresServer start(
      Path directory, Path binariesDirectory, Map<String, String> extraSettings) {
    try {
      Files.createDirectories(directory);
      Files.createDirectories(binariesDirectory);
    } catch (IOException e) {
      throw new UncheckedIOException("creating " + directory + " failed", e);
    }
    EmbeddedPostgresServer server =
        new EmbeddedPostgresServer(directory, binariesDirectory, FreePort.find(), extraSettings);
    server.start();
    return server;
  }

  private static Map<String, String> settings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("wal_level", "logical"); // Debezium reads the WAL through pgoutput
    settings.put("max_replication_slots", "64"); // a slot per test class that runs a relay
    settings.put("max_wal_senders", "64");
    settings.put("max_connections", "300"); // a pool per process per test class
    // zonky turns synchronous_commit off; outage tests need a commit to mean durable.
    settings.put("synchronous_commit", "on");
    // Safe while the machine stays up (a killed postmaster loses nothing the OS already holds).
    settings.put("fsync", "off");
    settings.put("full_page_writes", "off");
    // TCP only: a socket path under target/ may exceed the 107-byte limit of Unix sockets.
    settings.put("unix_socket_directories", "");
    settings.put("timezone", "UTC");
    return Map.copyOf(settings);
  }

  @Override
  public String host() {
    return "localhost";
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public String user() {
    return USER;
  }

  @Override
  public String password() {
    return PASSWORD;
  }

  @Override
  public synchronized void start() {
    if (server != null) {
      return;
    }
    long started = System.nanoTime();
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setOverrideWorkingDirectory(binariesDirectory.toFile())
            .setDataDirectory(dataDirectory)
            .setCleanDataDirectory(false)
            .setRegisterShutdownHook(false)
            .setPort(port)
            .setPGStartupWait(STARTUP_WAIT)
            .setOutputRedirector(Redirect.appendTo(logFile.toFile()))
            .setErrorRedirector(Redirect.appendTo(logFile.toFile()));
    settings.forEach(builder::setServerConfig);
    try {
      server = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "starting PostgreSQL on port "
              + port
              + " with data in "
              + dataDirectory
              + " failed"
              + " (server log: "
              + logFile
              + ")",
          e);
    }
    try {
      watch = PostmasterWatch.start(dataDirectory, logFile);
    } catch (RuntimeException e) {
      stop();
      throw e;
    }
    StartupReport.print(
        LOG,
        "PostgreSQL %s ready on %s:%d in %d ms (data %s)",
        version(),
        host(),
        port,
        Duration.ofNanos(System.nanoTime() - started).toMillis(),
        dataDirectory);
  }

  @Override
  public synchronized void stopImmediately() {
    if (server == null) {
      return;
    }
    long started = System.nanoTime();
    closeWatch();
    Path pgCtl = pgCtl();
    List<String> command = new ArrayList<>();
    if (LinuxUtils.isUnshareAvailable()) {
      // pg_ctl refuses to run as root; zonky runs its own pg_ctl in a user namespace the same way.
      command.addAll(List.of("unshare", "-U"));
    }
    command.addAll(
        List.of(pgCtl.toString(), "-D", dataDirectory.toString(), "stop", "-m", "immediate", "-w"));
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(Redirect.appendTo(logFile.toFile()))
              .start();
      if (!process.waitFor(STARTUP_WAIT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            pgCtl
                + " stop -m immediate did not finish within "
                + STARTUP_WAIT
                + " (log: "
                + logFile
                + ")");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            pgCtl
                + " stop -m immediate exited with "
                + process.exitValue()
                + " (log: "
                + logFile
                + ")");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("running " + pgCtl + " stop -m immediate failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping PostgreSQL immediately", e);
    }
    LOG.info(
        "PostgreSQL on port {} stopped immediately (SIGQUIT) in {} ms; zonky's own stop, which"
            + " releases its lock on the data directory, now finds no server and logs that",
        port,
        Duration.ofNanos(System.nanoTime() - started).toMillis());
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "releasing the stopped PostgreSQL on port " + port + " failed", e);
    } finally {
      server = null;
    }
  }

  private void closeWatch() {
    if (watch != null) {
      watch.close();
      watch = null;
    }
  }

  /** The watch of the running server's postmaster, empty while stopped. */
  synchronized Optional<PostmasterWatch> watch() {
    return Optional.ofNullable(watch);
  }

  /** The cluster's data directory. */
  Path dataDirectory() {
    return dataDirectory;
  }

  /** zonky's {@code pg_ctl}: it unpacks the binaries into one {@code PG-<hash>} directory. */
  private Path pgCtl() {
    try (Stream<Path> unpacked = Files.list(binariesDirectory)) {
      return unpacked
          .map(dir -> dir.resolve("bin").resolve("pg_ctl"))
          .filter(Files::isExecutable)
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("no bin/pg_ctl under " + binariesDirectory));
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + binariesDirectory + " failed", e);
    }
  }

  @Override
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    long started = System.nanoTime();
    closeWatch();
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("stopping PostgreSQL on port " + port + " failed", e);
    } finally {
      server = null;
    }
    LOG.info(
        "PostgreSQL on port {} stopped in {} ms",
        port,
        Duration.ofNanos(System.nanoTime() - started).toMillis());
  }
}
