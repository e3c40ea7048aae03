package io.herald.devstack.embedded;

import io.herald.devstack.PostgresServer;
import io.herald.devstack.proxy.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL 17 primary and a physical standby of it, for failover tests (not the shared stack's
 * server). The bundled binaries have no {@code pg_basebackup}, so the standby is made from a
 * low-level base backup: {@code pg_backup_start}, a copy of the data directory, {@code
 * pg_backup_stop} and its label file. The standby streams from the primary through a physical slot
 * ({@link #STANDBY_SLOT}) with {@code hot_standby_feedback} and {@code sync_replication_slots} on,
 * so logical slots created with {@code failover = true} are synchronized to it and usable once it
 * is promoted. The standby reaches the primary through a {@link TcpProxy} ({@link
 * #replicationLink()}), so a test can hold it back. {@link #promote()} makes the standby the
 * primary; {@link #startStandby} then makes a new standby of it, so a test can fail over again and
 * again.
 *
 * <pre>{@code
 * try (EmbeddedPostgresPair pair = EmbeddedPostgresPair.start(dir, binaries)) {
 *   pair.primary().createDatabase("app");
 *   pair.startStandby("app");          // the database slot synchronization connects to
 *   pair.synchronizeStandbySlots(true); // synchronized_standby_slots on the primary
 *   pair.primary().stopImmediately();
 *   pair.promote();
 * }
 * }</pre>
 *
 * <p>Not thread-safe; one test owns it and closes it (both servers stop, the data stays).
 */
public final class EmbeddedPostgresPair implements AutoCloseable {

  /** The physical slot on the primary the standby streams from. */
  public static final String STANDBY_SLOT = "herald_standby";

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresPair.class);
  private static final Duration PROMOTE_WAIT = Duration.ofSeconds(60);

  /** Directories whose contents a base backup leaves out (PostgreSQL's own list, in part). */
  private static final Set<String> EMPTIED =
      Set.of(
          "pg_wal",
          "pg_replslot",
          "pg_stat_tmp",
          "pg_dynshmem",
          "pg_notify",
          "pg_serial",
          "pg_snapshots",
          "pg_subtrans");

  /** Files a base backup leaves out: the running server's own, and zonky's lock. */
  private static final Set<String> SKIPPED =
      Set.of("postmaster.pid", "postmaster.opts", "epg-lock", "backup_label", "standby.signal");

  private final Path directory;
  private final Path binaries;
  private final List<EmbeddedPostgresServer> former = new ArrayList<>();
  private EmbeddedPostgresServer primary;
  private EmbeddedPostgresServer standby;
  private TcpProxy replication;
  private int standbys;

  private EmbeddedPostgresPair(Path directory, Path binaries, EmbeddedPostgresServer primary) {
    this.directory = directory;
    this.binaries = binaries;
    this.primary = primary;
  }

  /** Starts the primary in {@code directory/primary}; {@code binaries} as the stack's. */
  public static EmbeddedPostgresPair start(Path directory, Path binaries) {
    EmbeddedPostgresServer primary =
        EmbeddedPostgresServer.start(
            directory.resolve("primary"),
            binaries,
            // A standby that has been away may need WAL the slot holds; keep it bounded anyway.
            Map.of("max_slot_wal_keep_size", "1GB", "wal_keep_size", "64MB"));
    return new EmbeddedPostgresPair(directory, binaries, primary);
  }

  public PostgresServer primary() {
    return primary;
  }

  /** The standby, once {@link #startStandby} has made it. */
  public PostgresServer standby() {
    if (standby == null) {
      throw new IllegalStateException("no standby: call startStandby first");
    }
    return standby;
  }

  /**
   * Makes the standby from a base backup of the running primary and starts it; returns once it
   * accepts (read-only) connections.
   *
   * @param database the database the standby's slot synchronization connects to (PostgreSQL
   *     requires one in {@code primary_conninfo} for {@code sync_replication_slots})
   */
  public void startStandby(String database) {
    if (standby != null) {
      throw new IllegalStateException("a standby runs already, on port " + standby.port());
    }
    Path standbyDirectory = directory.resolve("standby-" + ++standbys);
    Path target = standbyDirectory.resolve("data");
    replication =
        TcpProxy.start(
            "replication-" + standbys, new InetSocketAddress(primary.host(), primary.port()));
    try (Connection connection = primaryConnection("postgres")) {
      try (PreparedStatement slot =
          connection.prepareStatement(
              "SELECT pg_create_physical_replication_slot(?, true)"
                  + " WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = ?)")) {
        slot.setString(1, STANDBY_SLOT);
        slot.setString(2, STANDBY_SLOT);
        slot.execute();
      }
      try (Statement start = connection.createStatement()) {
        start.execute("SELECT pg_backup_start('herald standby', true)");
      }
      copyDataDirectory(primary.dataDirectory(), target);
      String label;
      try (Statement stop = connection.createStatement();
          ResultSet result = stop.executeQuery("SELECT labelfile FROM pg_backup_stop(false)")) {
        result.next();
        label = result.getString(1);
      }
      Files.writeString(target.resolve("backup_label"), label, StandardCharsets.UTF_8);
      Files.writeString(target.resolve("standby.signal"), "", StandardCharsets.UTF_8);
      // In the configuration file, not on the command line: zonky splits -c values at spaces.
      String conninfo =
          String.format(
              "host=%s port=%d user=%s password=%s dbname=%s application_name=%s",
              "127.0.0.1",
              replication.port(),
              primary.user(),
              primary.password(),
              database,
              STANDBY_SLOT);
      Files.writeString(
          target.resolve("postgresql.auto.conf"),
          "primary_conninfo = '" + conninfo + "'\nprimary_slot_name = '" + STANDBY_SLOT + "'\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.APPEND);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "base backup of " + primary.jdbcUrl("postgres") + " failed", e);
    } catch (IOException e) {
      throw new UncheckedIOException("copying the primary's data to " + target + " failed", e);
    }
    standby =
        EmbeddedPostgresServer.start(
            standbyDirectory,
            binaries,
            Map.of(
                "hot_standby", "on",
                "hot_standby_feedback", "on",
                "sync_replication_slots", "on"));
    LOG.info(
        "PostgreSQL standby of port {} ready on port {} (physical slot {})",
        primary.port(),
        standby.port(),
        STANDBY_SLOT);
  }

  /**
   * Sets {@code synchronized_standby_slots} on the primary to {@link #STANDBY_SLOT} (or clears it):
   * with it, logical walsenders send nothing the standby has not received, so a failover never
   * leaves events in Kafka for commits the new primary lacks.
   */
  public void synchronizeStandbySlots(boolean on) {
    try (Connection connection = primaryConnection("postgres");
        Statement statement = connection.createStatement()) {
      // ALTER SYSTEM takes no bind parameters; the value is this class's constant.
      statement.execute(
          "ALTER SYSTEM SET synchronized_standby_slots = '" + (on ? STANDBY_SLOT : "") + "'");
      statement.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new IllegalStateException("setting synchronized_standby_slots failed", e);
    }
  }

  /**
   * The standby's link to the primary: {@link TcpProxy#freeze()} holds the standby back (the
   * primary's WAL stays with the primary), as a slow or cut replication network would.
   */
  public TcpProxy replicationLink() {
    if (replication == null) {
      throw new IllegalStateException("no standby: call startStandby first");
    }
    return replication;
  }

  /**
   * Sets {@code synchronous_standby_names} on the primary to the standby (or clears it): with it, a
   * commit is acknowledged only once the standby has flushed it, so a failover loses no
   * acknowledged write. A primary with it and no standby acknowledges nothing.
   */
  public void synchronousStandby(boolean on) {
    try (Connection connection = primaryConnection("postgres");
        Statement statement = connection.createStatement()) {
      // As above: the value is this class's constant (the standby's application_name).
      statement.execute(
          "ALTER SYSTEM SET synchronous_standby_names = '" + (on ? STANDBY_SLOT : "") + "'");
      statement.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new IllegalStateException("setting synchronous_standby_names failed", e);
    }
  }

  /**
   * Waits until the standby streams from the primary (in synchronous mode when {@link
   * #synchronousStandby} is on) and holds a persistent synchronized copy of the logical slot {@code
   * slot}: from then on a failover keeps the slot.
   *
   * @throws IllegalStateException if that does not happen within {@code timeout}
   */
  public void awaitSynchronized(String slot, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String state = "not checked";
    while (System.nanoTime() < deadline) {
      try {
        state = synchronization(slot);
        if (state.isEmpty()) {
          return;
        }
        wakeSlotSyncWorker();
      } catch (SQLException e) {
        state = "unreadable: " + e.getMessage();
      }
      try {
        // Nothing to wait on but the slot sync worker's next cycle.
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for the standby to synchronize", e);
      }
    }
    throw new IllegalStateException(
        "the standby on port "
            + standby().port()
            + " did not synchronize slot "
            + slot
            + " within "
            + timeout
            + ": "
            + state);
  }

  /**
   * Starts the standby's slot sync worker's next cycle now. The worker doubles its nap after every
   * cycle that updates no slot, up to 30 s, and a slot that cannot be synchronized yet (its catalog
   * xmin behind the standby's) updates none: without this, a test waits out naps it did not cause.
   * A configuration reload sets the worker's latch, which ends its nap; nothing it reads changes,
   * so it goes on as it was.
   */
  private void wakeSlotSyncWorker() throws SQLException {
    try (Connection connection = standbyConnection();
        Statement reload = connection.createStatement()) {
      reload.execute("SELECT pg_reload_conf()");
    }
  }

  /** What the standby still lacks for {@link #awaitSynchronized}; empty when nothing. */
  private String synchronization(String slot) throws SQLException {
    try (Connection connection = primaryConnection("postgres");
        Statement snapshot = connection.createStatement()) {
      // A new standby syncs the slot only once the slot's restart point passed the standby's
      // start, and that point moves on running-transactions records, which the primary logs every
      // 15 s by itself: log one now.
      snapshot.execute("SELECT pg_log_standby_snapshot()");
    }
    try (Connection connection = primaryConnection("postgres");
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT r.sync_state, current_setting('synchronous_standby_names')"
                    + " FROM pg_stat_replication r WHERE r.application_name = ?"
                    + " AND r.state = 'streaming'")) {
      statement.setString(1, STANDBY_SLOT);
      try (ResultSet result = statement.executeQuery()) {
        if (!result.next()) {
          return "not streaming from the primary";
        }
        if (!result.getString(2).isEmpty() && !result.getString(1).equals("sync")) {
          return "streaming, but " + result.getString(1) + ", not sync";
        }
      }
    }
    try (Connection connection = standbyConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_replication_slots"
                    + " WHERE slot_name = ? AND synced AND NOT temporary")) {
      statement.setString(1, slot);
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getLong(1) == 1 ? "" : "no persistent synchronized copy of the slot yet";
      }
    }
  }

  /**
   * Promotes the standby ({@code pg_promote}, waiting): it becomes {@link #primary()}, on its own
   * port, and the pair has no standby until {@link #startStandby} makes one. The former primary is
   * not touched (stop it first: two primaries of one cluster are a split brain).
   */
  public void promote() {
    // Cut first: WAL a frozen link still holds must not reach the standby once it is promoted.
    replicationLink().close();
    replication = null;
    try (Connection connection = standbyConnection();
        PreparedStatement statement = connection.prepareStatement("SELECT pg_promote(true, ?)")) {
      statement.setInt(1, (int) PROMOTE_WAIT.toSeconds());
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        if (!result.getBoolean(1)) {
          throw new IllegalStateException(
              "the standby on port " + standby.port() + " was not promoted within " + PROMOTE_WAIT);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("promoting the standby failed", e);
    }
    LOG.info("PostgreSQL standby on port {} promoted", standby.port());
    former.add(primary);
    primary = standby;
    standby = null;
  }

  @Override
  public void close() {
    if (replication != null) {
      replication.close();
    }
    List<EmbeddedPostgresServer> servers = new ArrayList<>(former);
    servers.add(primary);
    if (standby != null) {
      servers.add(standby);
    }
    RuntimeException failure = null;
    for (EmbeddedPostgresServer server : servers.reversed()) {
      try {
        server.stop();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private Connection standbyConnection() throws SQLException {
    return DriverManager.getConnection(
        standby().jdbcUrl("postgres"), standby.user(), standby.password());
  }

  private Connection primaryConnection(String database) throws SQLException {
    return DriverManager.getConnection(
        primary.jdbcUrl(database), primary.user(), primary.password());
  }

  /**
   * Copies a running cluster's directory as a base backup does: files may change or vanish while it
   * runs (WAL replay from the backup's start repairs the former; the latter are skipped).
   */
  private static void copyDataDirectory(Path source, Path target) throws IOException {
    Files.createDirectories(target);
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
    Files.walkFileTree(
        source,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes)
              throws IOException {
            Path copy = target.resolve(source.relativize(dir).toString());
            Files.createDirectories(copy);
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwx------"));
            Path parent = dir.getParent();
            boolean emptied =
                !dir.equals(source)
                    && parent != null
                    && parent.equals(source)
                    && EMPTIED.contains(dir.getFileName().toString());
            if (emptied) {
              if (dir.getFileName().toString().equals("pg_wal")) {
                Files.createDirectories(copy.resolve("archive_status"));
              }
              return FileVisitResult.SKIP_SUBTREE;
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
              throws IOException {
            if (file.getParent().equals(source)
                && SKIPPED.contains(file.getFileName().toString())) {
              return FileVisitResult.CONTINUE;
            }
            try {
              Files.copy(
                  file,
                  target.resolve(source.relativize(file).toString()),
                  StandardCopyOption.REPLACE_EXISTING);
            } catch (NoSuchFileException e) {
              // Removed by the running server since the directory was listed: not needed.
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }
        });
  }
}
