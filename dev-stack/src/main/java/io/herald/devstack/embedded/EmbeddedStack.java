package io.herald.devstack.embedded;

import io.herald.devstack.HeraldStack;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL and Kafka started from the build's own dependencies, with no Docker: PostgreSQL from
 * the zonky binaries, Kafka as a child JVM running the broker from the {@code kafka_2.13} artifact
 * on this JVM's class path.
 *
 * <p>Each JVM gets its own directory {@code <dir>/run-<pid>} (data, logs, configs), so two JVMs
 * never share data; directories of JVMs that are no longer alive are deleted at start. Thread-safe.
 */
public final class EmbeddedStack implements HeraldStack, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedStack.class);

  private final EmbeddedPostgresServer postgres;
  private final EmbeddedKafkaBroker kafka;

  private EmbeddedStack(EmbeddedPostgresServer postgres, EmbeddedKafkaBroker kafka) {
    this.postgres = postgres;
    this.kafka = kafka;
  }

  /**
   * Starts PostgreSQL and Kafka (in parallel) under {@code dir} and returns when both accept
   * connections.
   */
  public static EmbeddedStack start(Path dir) {
    return start(dir, Map.of());
  }

  /**
   * As {@link #start(Path)}, PostgreSQL with {@code postgresSettings} beside (or over) the stack's
   * own settings.
   */
  public static EmbeddedStack start(Path dir, Map<String, String> postgresSettings) {
    Path runDir = dir.resolve("run-" + ProcessHandle.current().pid());
    try {
      deleteRunsOfDeadJvms(dir);
      Files.createDirectories(runDir);
      // Zonky and Kafka write temporary files; a java.io.tmpdir given on the command line may not
      // exist yet.
      Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    } catch (IOException e) {
      throw new UncheckedIOException("preparing the stack directory " + runDir + " failed", e);
    }
    CompletableFuture<EmbeddedKafkaBroker> kafka =
        CompletableFuture.supplyAsync(
            () -> EmbeddedKafkaBroker.start(runDir.resolve("kafka")),
            task -> new Thread(task, "herald-kafka-start").start());
    EmbeddedPostgresServer postgres;
    try {
      postgres =
          EmbeddedPostgresServer.start(
              runDir.resolve("postgres"), dir.resolve("postgres-binaries"), postgresSettings);
    } catch (RuntimeException e) {
      kafka.thenAccept(EmbeddedKafkaBroker::stop);
      throw e;
    }
    try {
      return new EmbeddedStack(postgres, kafka.join());
    } catch (CompletionException e) {
      postgres.stop();
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  @Override
  public PostgresServer postgres() {
    return postgres;
  }

  @Override
  public KafkaBroker kafka() {
    return kafka;
  }

  /** Stops both servers; the data stays on disk for post-mortems until the next run. */
  @Override
  public void close() {
    try {
      kafka.stop();
    } finally {
      postgres.stop();
    }
  }

  private static void deleteRunsOfDeadJvms(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    List<Path> stale;
    try (Stream<Path> children = Files.list(dir)) {
      stale = children.filter(EmbeddedStack::isRunOfDeadJvm).toList();
    }
    for (Path run : stale) {
      LOG.info("deleting {} left by a JVM that is no longer running", run);
      stopOrphanedPostmaster(run.resolve("postgres").resolve("data").resolve("postmaster.pid"));
      try (Stream<Path> tree = Files.walk(run)) {
        for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(path);
        }
      }
    }
  }

  /**
   * A postmaster left running by a JVM that is gone: its {@link PostmasterWatch} stops it when that
   * JVM ends, so this finds one only when the watch was killed too (a whole process group killed)
   * or the run predates the watch. Its clients died with the JVM, so a fast shutdown (SIGINT would
   * be ideal; Java sends SIGTERM, a smart shutdown) completes at once.
   */
  private static void stopOrphanedPostmaster(Path pidFile) {
    OptionalLong found = PostmasterWatch.postmasterPid(pidFile);
    if (found.isEmpty()) {
      return;
    }
    long pid = found.getAsLong();
    ProcessHandle.of(pid)
        .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false))
        .ifPresent(
            postmaster -> {
              LOG.warn("stopping orphaned PostgreSQL postmaster (pid {}) of {}", pid, pidFile);
              postmaster.destroy();
              try {
                postmaster.onExit().get(10, TimeUnit.SECONDS);
              } catch (TimeoutException | ExecutionException e) {
                LOG.warn("orphaned postmaster {} ignored SIGTERM; killing it", pid, e);
                postmaster.destroyForcibly();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stopping postmaster " + pid, e);
              }
            });
  }

  private static boolean isRunOfDeadJvm(Path path) {
    String name = path.getFileName().toString();
    if (!name.matches("run-\\d{1,18}")) {
      return false;
    }
    long pid = Long.parseLong(name.substring(4));
    return ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
  }
}
