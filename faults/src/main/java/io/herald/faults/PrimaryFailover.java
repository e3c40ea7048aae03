package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.devstack.HeraldStack;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import io.herald.devstack.embedded.EmbeddedPostgresPair;
import io.herald.devstack.proxy.TcpProxy;
import io.herald.devstack.simulator.DestinationSimulator;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.sql.DataSource;

/**
 * F14: a PostgreSQL failover under load. The pipeline runs on a primary with a physical standby of
 * its own (not the stack's server: {@link EmbeddedPostgresPair}), set up as docs/design.md's
 * "PostgreSQL failover" asks: the relay's slot a failover slot ({@code relay.slot.failover}),
 * {@code synchronized_standby_slots} on the primary, and the standby synchronous ({@code
 * synchronous_standby_names}), so a write acknowledged to a client is on the standby too. Every
 * process and the herald command reach the database through one address that moves (a {@link
 * TcpProxy} standing for a virtual IP).
 *
 * <p>Each injection waits until the standby streams in sync and holds the slot's synchronized copy,
 * then stops the primary immediately, promotes the standby and moves the address to it. None of the
 * three processes is restarted. The new primary runs alone (neither setting names a standby it does
 * not have, or its commits and its logical decoding would wait) until a new standby, made from it,
 * is in sync again: that is the heal, and the next failover comes no earlier.
 *
 * <p>Its own invariant, beside the runner's: no phantom event, an event in Kafka whose job the
 * database no longer holds (what a failover without {@code synchronized_standby_slots} risks).
 */
final class PrimaryFailover implements FaultClass {

  private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(90);

  private final List<String> violations = new ArrayList<>();
  private EmbeddedPostgresPair pair;
  private TcpProxy address;
  private Observations observations;
  private String database;
  private String slot;
  private int failovers;
  private long maxPromotionMillis;
  private long maxRecoveryMillis;
  private long maxResyncMillis;

  @Override
  public String id() {
    return "F14";
  }

  @Override
  public String description() {
    return "PostgreSQL failover under load (primary stopped immediately, synchronous standby with"
        + " the synchronized failover slot promoted, the address moved): 0 lost, 0 phantom events;"
        + " the processes recover without being restarted";
  }

  @Override
  public Map<String, String> overrides() {
    return Map.of(
        "HERALD_RELAY_SLOT_FAILOVER",
        "true",
        // A new standby copies the slot only once the slot's restart point has passed the
        // standby's start; after the load only the relay's heartbeat moves the slot (10 s in the
        // shipped file), so the heal would wait two of them.
        "HERALD_DEBEZIUM_SOURCE_HEARTBEAT_INTERVAL_MS",
        "1000");
  }

  @Override
  public PipelineSettings links(StackContext stack, PipelineSettings direct) {
    database = direct.database();
    slot = direct.slot();
    pair =
        EmbeddedPostgresPair.start(
            Path.of("target", "faults", "f14", "pair-" + System.nanoTime()),
            HeraldStack.postgresBinaries());
    pair.primary().createDatabase(database);
    address = TcpProxy.start("postgres-address", addressOf(pair.primary()));
    pair.startStandby(database);
    pair.synchronizeStandbySlots(true);
    pair.synchronousStandby(true);
    PostgresServer moving = new MovingAddress();
    DataSource observed = moving.dataSource(database);
    observations = new Observations(observed, direct.bootstrapServers(), direct.publicationTopic());
    return direct.withPostgres(moving);
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    if (pair == null) {
      throw new IllegalStateException("F14: links() was not called before inject()");
    }
    // The slot exists once the pipeline's set-up made it; before that there is nothing to keep.
    pair.awaitSynchronized(slot, SYNC_TIMEOUT);
    int from = pair.primary().port();
    long start = System.nanoTime();
    pair.primary().stopImmediately();
    pair.promote();
    address.retarget(addressOf(pair.primary()));
    pair.synchronousStandby(false);
    pair.synchronizeStandbySlots(false);
    long promoted = System.nanoTime();
    long promotionMillis = (promoted - start) / 1_000_000;
    SelfRecovery.Result recovery = SelfRecovery.await(pipeline, promoted, RECOVERY_TIMEOUT);
    if (!recovery.unhealthy().isEmpty()) {
      violations.add(
          "not healthy by itself within "
              + RECOVERY_TIMEOUT
              + " of the promotion: "
              + recovery.unhealthy());
    }
    long resyncStart = System.nanoTime();
    pair.startStandby(database);
    pair.synchronizeStandbySlots(true);
    pair.synchronousStandby(true);
    pair.awaitSynchronized(slot, SYNC_TIMEOUT);
    long resyncMillis = (System.nanoTime() - resyncStart) / 1_000_000;
    failovers++;
    maxPromotionMillis = Math.max(maxPromotionMillis, promotionMillis);
    maxRecoveryMillis = Math.max(maxRecoveryMillis, recovery.millis());
    maxResyncMillis = Math.max(maxResyncMillis, resyncMillis);
    return String.format(
        "failover from port %d to %d (promoted %d ms after the stop; all processes healthy %d ms"
            + " after the promotion, none restarted; a new standby in sync %d ms later)",
        from, pair.primary().port(), promotionMillis, recovery.millis(), resyncMillis);
  }

  @Override
  public RoundChecks endRound() {
    List<String> found = new ArrayList<>(violations);
    Map<String, Long> figures = new LinkedHashMap<>();
    try {
      List<Checker.Event> phantoms = observations.phantomEvents();
      figures.put("phantom_events", (long) phantoms.size());
      if (!phantoms.isEmpty()) {
        found.add(
            phantoms.size()
                + " events in Kafka whose job the new primary lacks, e.g. "
                + phantoms.subList(0, Math.min(5, phantoms.size())));
      }
    } catch (Exception e) {
      found.add("could not look for phantom events: " + e);
    }
    figures.put("failovers", (long) failovers);
    figures.put("max_promotion_ms", maxPromotionMillis);
    figures.put("max_self_recovery_ms", maxRecoveryMillis);
    figures.put("max_resync_ms", maxResyncMillis);
    violations.clear();
    failovers = 0;
    maxPromotionMillis = 0;
    maxRecoveryMillis = 0;
    maxResyncMillis = 0;
    return new RoundChecks(figures, found);
  }

  @Override
  public void close() {
    try {
      if (address != null) {
        address.close();
      }
    } finally {
      if (pair != null) {
        pair.close();
      }
    }
  }

  private static InetSocketAddress addressOf(PostgresServer server) {
    return new InetSocketAddress(server.host(), server.port());
  }

  /**
   * The database as its clients see it: the moving address, with the credentials of whichever
   * server is primary (the same on both: the standby is a copy). Stopping and starting it acts on
   * the current primary.
   */
  private final class MovingAddress implements PostgresServer {

    @Override
    public String host() {
      return "127.0.0.1";
    }

    @Override
    public int port() {
      return address.port();
    }

    @Override
    public String user() {
      return pair.primary().user();
    }

    @Override
    public String password() {
      return pair.primary().password();
    }

    @Override
    public void stop() {
      pair.primary().stop();
    }

    @Override
    public void stopImmediately() {
      pair.primary().stopImmediately();
    }

    @Override
    public void start() {
      pair.primary().start();
    }
  }
}
