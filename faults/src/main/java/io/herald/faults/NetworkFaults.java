package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import io.herald.devstack.proxy.TcpProxy;
import io.herald.devstack.simulator.DestinationSimulator;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

/**
 * F8: network faults on the processes' links, through a {@link TcpProxy} on each: process ↔
 * PostgreSQL, process ↔ Kafka (the broker's proxied listener, so metadata names the proxy),
 * consumer ↔ destinations. Each injection picks a link and a kind (seeded): added latency for a few
 * seconds, a reset of every open connection, or a freeze just longer than the clients' timeouts on
 * that link; then it heals the link. The herald command, the checker and the set-up keep the direct
 * addresses.
 *
 * <p>The freezes, and the timeouts each outlasts:
 *
 * <ul>
 *   <li>PostgreSQL, 11 to 13 s: the pools' connect timeout (5 s, {@code *.db.connect-timeout}), the
 *       relay's own connections' (10 s) and its leader lock's dead-peer timeout (10 s: {@code
 *       idle_session_timeout} on the lock session, so the server ends it and the relay must stand
 *       by and take the lock again). Not the driver's {@code socketTimeout} (300 s, fixed in {@code
 *       Databases.pool}): a statement in flight waits the freeze out.
 *   <li>Kafka, 11 to 13 s: with {@link #overrides()}, the consumers' group session (6 s) and
 *       request timeout (5 s), the relay producer's request (5 s) and delivery timeout (10 s).
 *   <li>Destinations, 2.5 to 3.5 s: the showcase's read timeout (2 s: the call becomes uncertain)
 *       but not its read timeout plus reconcile grace (4 s). A request the freeze held reaches the
 *       destination at the heal; a lookup sent later than that sees it. A network that holds a
 *       request longer than the grace defeats any lookup (that is what the grace is for: 1 min in
 *       the shipped file).
 * </ul>
 *
 * <p>Not thread-safe: the runner calls it from one thread.
 */
final class NetworkFaults implements FaultClass {

  /** The links of the pipeline, each with its proxy's freeze. */
  enum Link {
    POSTGRES("process-postgres", 11_000, 13_000),
    KAFKA("process-kafka", 11_000, 13_000),
    DESTINATIONS("consumer-destinations", 2_500, 3_500);

    private final String label;
    private final int minFreezeMillis;
    private final int maxFreezeMillis;

    Link(String label, int minFreezeMillis, int maxFreezeMillis) {
      this.label = label;
      this.minFreezeMillis = minFreezeMillis;
      this.maxFreezeMillis = maxFreezeMillis;
    }
  }

  private static final int MIN_DELAY_MILLIS = 100;
  private static final int MAX_DELAY_MILLIS = 800;
  private static final int MIN_SLOW_MILLIS = 2_000;
  private static final int MAX_SLOW_MILLIS = 5_000;

  private final Map<Link, TcpProxy> proxies = new EnumMap<>(Link.class);

  @Override
  public String id() {
    return "F8";
  }

  @Override
  public String description() {
    return "latency, connection resets and freezes longer than the clients' timeouts on the links"
        + " process-PostgreSQL, process-Kafka and consumer-destinations: 0 lost, 0 duplicate"
        + " remote articles";
  }

  @Override
  public Map<String, String> overrides() {
    return Map.of(
        // Kafka clients' defaults (30 s requests, 45 s sessions, 2 min deliveries) outlast any
        // freeze a short round can hold; these let an 11-13 s freeze outlast every one of them.
        "HERALD_KAFKA_CONSUMER_SESSION_TIMEOUT_MS", "6000",
        "HERALD_KAFKA_CONSUMER_REQUEST_TIMEOUT_MS", "5000",
        "HERALD_WRITER_KAFKA_CONSUMER_SESSION_TIMEOUT_MS", "6000",
        "HERALD_WRITER_KAFKA_CONSUMER_REQUEST_TIMEOUT_MS", "5000",
        "HERALD_DEBEZIUM_SINK_KAFKA_PRODUCER_REQUEST_TIMEOUT_MS", "5000",
        "HERALD_DEBEZIUM_SINK_KAFKA_PRODUCER_DELIVERY_TIMEOUT_MS", "10000");
  }

  @Override
  public PipelineSettings links(StackContext stack, PipelineSettings direct) {
    PostgresServer postgres = direct.postgres();
    KafkaBroker.ProxiedListener kafka =
        stack
            .stack()
            .kafka()
            .proxiedListener()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "F8 needs a broker with a proxied listener (the embedded one, not"
                            + " -Dherald.stack=containers)"));
    URI destinations = URI.create(direct.destinationsBaseUrl());
    TcpProxy database =
        proxy(Link.POSTGRES, 0, new InetSocketAddress(postgres.host(), postgres.port()));
    proxy(Link.KAFKA, kafka.advertisedPort(), kafka.target());
    TcpProxy simulator =
        proxy(
            Link.DESTINATIONS,
            0,
            new InetSocketAddress(destinations.getHost(), destinations.getPort()));
    return direct.withProcessLinks(
        new PipelineSettings.ProcessLinks(
            "127.0.0.1",
            database.port(),
            kafka.bootstrapServers(),
            "http://" + simulator.address() + destinations.getRawPath()));
  }

  private TcpProxy proxy(Link link, int port, InetSocketAddress target) {
    TcpProxy proxy = TcpProxy.start(link.label, port, target);
    proxies.put(link, proxy);
    return proxy;
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    Link link = Link.values()[random.nextInt(Link.values().length)];
    TcpProxy proxy = proxies.get(link);
    if (proxy == null) {
      throw new IllegalStateException("F8: links() was not called before inject()");
    }
    String injected;
    switch (random.nextInt(3)) {
      case 0 -> {
        int delay = between(random, MIN_DELAY_MILLIS, MAX_DELAY_MILLIS);
        int lasting = between(random, MIN_SLOW_MILLIS, MAX_SLOW_MILLIS);
        proxy.delay(Duration.ofMillis(delay));
        Thread.sleep(lasting);
        injected = String.format("latency %d ms on %s for %d ms", delay, link.label, lasting);
      }
      case 1 -> {
        int open = proxy.counters().open();
        proxy.resetAll();
        injected = String.format("reset %d connections on %s", open, link.label);
      }
      default -> {
        int lasting = between(random, link.minFreezeMillis, link.maxFreezeMillis);
        proxy.freeze();
        Thread.sleep(lasting);
        injected = String.format("freeze %s for %d ms", link.label, lasting);
      }
    }
    proxy.heal();
    return injected + " (" + proxy.counters() + ")";
  }

  private static int between(Random random, int min, int max) {
    return min + random.nextInt(max - min + 1);
  }

  @Override
  public void close() {
    // TcpProxy.close() logs its own failures and does not throw: one proxy cannot keep the next
    // open.
    for (TcpProxy proxy : proxies.values()) {
      proxy.close();
    }
    proxies.clear();
  }
}
