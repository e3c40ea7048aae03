package io.herald.bench.consumer;

import static org.awaitility.Awaitility.await;

import io.herald.bench.suite.Pgbench;
import io.herald.common.event.PublicationKey;
import io.herald.consumer.HeraldConsumer;
import io.herald.consumer.TestKit;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Consumer throughput figures (printed, never asserted): docs/benchmarks-history.md, "Consumer".
 * Run on demand: {@code ./mvnw -B -pl bench -am -Pbenchmark verify -DskipTests
 * -Dbench.main=io.herald.bench.consumer.ConsumerThroughputBenchmark}. System properties: {@code
 * herald.bench.records} (default 5000) and {@code herald.bench.slow-records} (default 1000).
 *
 * <p>With {@code herald.bench.ab=<key>=<v1>,<v2>,...} it runs only an A/B of that consumer setting
 * instead: one warm-up, then {@code herald.bench.ab-rounds} (default 4) rounds, each the values in
 * turn, each value on its own pre-loaded topic of {@code herald.bench.records} records to the
 * zero-latency simulator, so the machine's drift hits every value alike; per round and value the
 * rate, this JVM's CPU (the consumer, with the load generator idle) and PostgreSQL's CPU
 * (postmaster and backends) per delivery. Example: {@code
 * -Dherald.bench.ab=consumer.dispatch.record-batch-size=1,64}.
 */
public final class ConsumerThroughputBenchmark {

  private static final int POOL = 10;

  private ConsumerThroughputBenchmark() {}

  public static void main(String[] args) throws Exception {
    StackContext stack = StackContext.create(ConsumerThroughputBenchmark.class);
    String ab = System.getProperty("herald.bench.ab");
    if (ab != null) {
      settingAtoB(stack, ab);
      System.exit(0);
    }
    // In this order: the first also warms the JIT up for the second.
    deliveriesPerSecondFromAPreloadedTopicAgainstPgbenchOfTheSameSql(stack);
    oneVersusTwoInstancesAtFiftyMillisecondsOfDestinationLatency(stack);
    // The stack's shutdown hook stops PostgreSQL and Kafka; client threads must not keep us up.
    System.exit(0);
  }

  static void deliveriesPerSecondFromAPreloadedTopicAgainstPgbenchOfTheSameSql(StackContext stack)
      throws Exception {
    int records = Integer.getInteger("herald.bench.records", 5000);
    try (TestKit warmUp = new TestKit(stack, "bench-warm", 8)) {
      // An unreported first pass, so the JIT has compiled the hot paths before we measure.
      TestKit.Destination destination = warmUp.destination("bench-warm", Behaviour.cooperative());
      preload(warmUp, "bench-warm", 2000);
      warmUp.start(
          tuned(warmUp.properties(stack.groupId("bench-warm"), destination), "bench-warm", 32));
      awaitPublished(warmUp, "bench-warm", 2000);
    }
    try (TestKit kit = new TestKit(stack, "bench-zero", 8)) {
      TestKit.Destination destination = kit.destination("bench-zero", Behaviour.cooperative());
      preload(kit, "bench-zero", records);
      Map<String, String> properties =
          tuned(kit.properties(stack.groupId("bench-zero"), destination), "bench-zero", 32);

      long start = System.nanoTime();
      kit.start(properties);
      awaitPublished(kit, "bench-zero", records);
      double seconds = (System.nanoTime() - start) / 1e9;
      double busy = busySeconds(kit, "bench-zero");
      double consumerRate = records / busy;
      System.out.printf(
          "BENCH   from consumer start (incl. group join): %.1f s = %.0f deliveries/s%n",
          seconds, records / seconds);

      double pgbenchRate = pgbench(stack, POOL, 20);
      System.out.printf(
          "%nBENCH consumer: %d deliveries from a pre-loaded topic (8 partitions) to a zero-latency"
              + " simulator, 1 instance, %d connections: first intake to last PUBLISHED %.1f s ="
              + " %.0f deliveries/s%n"
              + "BENCH pgbench: the same intake + claim + completion SQL, %d connections, 20 s:"
              + " %.0f deliveries/s%nBENCH ratio consumer/pgbench: %.2f (load average %s)%n",
          records,
          POOL,
          busy,
          consumerRate,
          POOL,
          pgbenchRate,
          consumerRate / pgbenchRate,
          loadAverage());
    }
  }

  /** The A/B of one setting ({@code herald.bench.ab}); see the class comment. */
  static void settingAtoB(StackContext stack, String ab) throws Exception {
    int eq = ab.indexOf('=');
    String key = ab.substring(0, eq);
    List<String> values = List.of(ab.substring(eq + 1).split(","));
    int records = Integer.getInteger("herald.bench.records", 5000);
    int rounds = Integer.getInteger("herald.bench.ab-rounds", 4);
    long postmaster = postmaster(stack);
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    com.sun.management.OperatingSystemMXBean jvm = (com.sun.management.OperatingSystemMXBean) os;
    Map<String, List<String>> lines = new java.util.LinkedHashMap<>();
    for (int run = -1; run < rounds; run++) {
      for (int v = 0; v < values.size(); v++) {
        String name = "bench-ab-" + (run + 1) + "-" + v;
        try (TestKit kit = new TestKit(stack, name, 8)) {
          TestKit.Destination destination = kit.destination(name, Behaviour.cooperative());
          int count = run < 0 ? 1000 : records;
          preload(kit, name, count);
          Map<String, String> properties =
              tuned(kit.properties(stack.groupId(name), destination), name, 32);
          properties.put(key, values.get(v));
          double jvmBefore = jvm.getProcessCpuTime() / 1e9;
          double pgBefore =
              io.herald.bench.suite.ProcessStats.sample(postmaster, true)
                  .orElseThrow()
                  .cpuSeconds();
          long start = System.nanoTime();
          kit.start(properties);
          awaitPublished(kit, name, count);
          double seconds = (System.nanoTime() - start) / 1e9;
          double jvmMs = (jvm.getProcessCpuTime() / 1e9 - jvmBefore) * 1000 / count;
          double pgMs =
              (io.herald.bench.suite.ProcessStats.sample(postmaster, true)
                          .orElseThrow()
                          .cpuSeconds()
                      - pgBefore)
                  * 1000
                  / count;
          double busy = busySeconds(kit, name);
          if (run >= 0) {
            String line =
                String.format(
                    "round %d: %.0f deliveries/s (first intake to last PUBLISHED), %.1f s from"
                        + " start, consumer JVM %.3f ms + PostgreSQL %.3f ms CPU per delivery"
                        + " (load average %s)",
                    run + 1, count / busy, seconds, jvmMs, pgMs, loadAverage());
            lines.computeIfAbsent(values.get(v), x -> new java.util.ArrayList<>()).add(line);
            System.out.printf("BENCH %s=%s %s%n", key, values.get(v), line);
          }
        }
      }
    }
    System.out.printf("%nBENCH A/B of %s, %d records per round, concurrency 32:%n", key, records);
    lines.forEach(
        (value, of) ->
            of.forEach(line -> System.out.printf("BENCH   %s=%s %s%n", key, value, line)));
  }

  /** The postmaster: the parent of any backend. */
  private static long postmaster(StackContext stack) throws Exception {
    try (java.sql.Connection connection = stack.dataSource().getConnection();
        java.sql.Statement statement = connection.createStatement();
        java.sql.ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
      row.next();
      long backend = row.getLong(1);
      return io.herald.bench.suite.ProcessStats.parent(backend).orElseThrow();
    }
  }

  static void oneVersusTwoInstancesAtFiftyMillisecondsOfDestinationLatency(StackContext stack) {
    int records = Integer.getInteger("herald.bench.slow-records", 1000);
    double[] rates = new double[2];
    // 1, 2, 1, 2: the machine is shared, so each figure is the better of two runs.
    for (int run = 0; run < 4; run++) {
      int instances = run % 2 + 1;
      String name = "bench-slow-" + run;
      try (TestKit kit = new TestKit(stack, name, 8)) {
        TestKit.Destination destination =
            kit.destination(name, Behaviour.cooperative().withLatency(Duration.ofMillis(50)));
        preload(kit, name, records);
        Map<String, String> properties =
            tuned(kit.properties(stack.groupId(name), destination), name, 8);
        long start = System.nanoTime();
        List<HeraldConsumer> started = new java.util.ArrayList<>();
        for (int i = 0; i < instances; i++) {
          started.add(kit.start(properties));
        }
        awaitPublished(kit, name, records);
        double seconds = (System.nanoTime() - start) / 1e9;
        for (HeraldConsumer consumer : started) {
          var timer = consumer.metrics().registry().find("herald.consumer.dispatch").timer();
          System.out.printf(
              "BENCH   instance: %d calls, mean call %.1f ms, max %.1f ms%n",
              timer == null ? 0 : timer.count(),
              timer == null ? 0 : timer.mean(java.util.concurrent.TimeUnit.MILLISECONDS),
              timer == null ? 0 : timer.max(java.util.concurrent.TimeUnit.MILLISECONDS));
        }
        rates[instances - 1] = Math.max(rates[instances - 1], records / seconds);
        System.out.printf(
            "%nBENCH %d instance(s), 50 ms destination latency, concurrency 8 per instance: %d"
                + " deliveries in %.1f s = %.0f deliveries/s (load average %s)%n",
            instances, records, seconds, records / seconds, loadAverage());
      }
    }
    System.out.printf(
        "BENCH scale-out 2 vs 1 instances (best of two runs each): %.0f vs %.0f deliveries/s ="
            + " %.2fx%n",
        rates[1], rates[0], rates[1] / rates[0]);
  }

  /** From the first delivery row created to the last one published, by the database's clock. */
  private static double busySeconds(TestKit kit, String destination) {
    return Double.parseDouble(
        kit.query(
                "SELECT extract(epoch FROM max(updated_at) - min(created_at))"
                    + " FROM consumer.delivery WHERE destination = ?",
                destination)
            .getFirst());
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static Map<String, String> tuned(
      Map<String, String> properties, String destination, int concurrency) {
    properties.put("consumer.db.pool-size", Integer.toString(POOL));
    properties.put("consumer.dispatch.pool-size", Integer.toString(concurrency));
    properties.put(
        "consumer.destinations." + destination + ".concurrency", Integer.toString(concurrency));
    properties.put("consumer.destinations." + destination + ".read-timeout", "2s");
    properties.put("consumer.dispatch.lease", "10s");
    properties.put("consumer.reconcile.interval", "5s");
    properties.put("kafka.consumer.max.poll.records", "500");
    return properties;
  }

  private static void preload(TestKit kit, String destination, int records) {
    for (int i = 0; i < records; i++) {
      kit.sendAsync(
          TestKit.request(new PublicationKey("t1", "a-" + i, "r-1", destination), "Bench " + i));
    }
    kit.flush();
  }

  private static void awaitPublished(TestKit kit, String destination, int records) {
    long start = System.nanoTime();
    await()
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                kit.query(
                        "SELECT count(*) FROM consumer.delivery WHERE destination = ?", destination)
                    .equals(List.of(Integer.toString(records))));
    System.out.printf(
        "BENCH   all %d deliveries taken in from Kafka after %.1f s%n",
        records, (System.nanoTime() - start) / 1e9);
    await()
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                kit.query(
                        "SELECT count(*) FROM consumer.delivery WHERE destination = ? AND state = 'PUBLISHED'",
                        destination)
                    .equals(List.of(Integer.toString(records))));
  }

  private static double pgbench(StackContext stack, int clients, int seconds)
      throws IOException, InterruptedException {
    Path script = Files.createTempFile("pgbench-delivery", ".sql");
    try (var in = ConsumerThroughputBenchmark.class.getResourceAsStream("pgbench-delivery.sql")) {
      Files.write(script, in.readAllBytes());
    }
    Pgbench.Run run = Pgbench.run(stack, script, clients, seconds, List.of());
    System.out.println(run.output());
    return run.tps();
  }
}
