package io.herald.bench.relay;

import io.herald.bench.suite.Bench;
import io.herald.bench.suite.Charts;
import io.herald.bench.suite.ProcessGroup;
import io.herald.bench.suite.ProcessStats;
import io.herald.bench.suite.Scenario;
import io.herald.bench.suite.ScenarioResult;
import io.herald.devstack.StackContext;
import io.herald.relay.RelayJvmOptions;
import io.herald.relay.it.RelayFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * B1: the relay's drain of a backlog into Kafka beside the server's own limit, a bare pgoutput
 * reader that only counts messages ({@link BareReader}), and beside {@code pg_recvlogical} to
 * /dev/null ({@link PgRecvLogical}), at 100 rows and at 1 row per transaction. Before each backlog
 * is loaded, one pgoutput slot per reader is created, so each reads the same WAL; the readers then
 * drain one after another, in an order that rotates with the round because the shared box's speed
 * drifts. The relay runs as in production: the shipped relay.properties (its transactional sink)
 * and {@link RelayJvmOptions#recommended()}, on its own fresh slot and offsets topic. Before the
 * first round a relay drains a backlog that is not counted ({@link #warmUpBroker}).
 */
public final class RelayServerLimitBenchmark implements Scenario {

  private static final String TITLE =
      "relay drain of a backlog at 100 and 1 rows/tx, beside a bare pgoutput reader (the server's"
          + " own limit) and pg_recvlogical to /dev/null";
  private static final String RELAY = "relay";
  private static final String BARE = "bare reader";
  private static final String RECV = "pg_recvlogical";
  private static final List<String> READERS = List.of(RELAY, BARE, RECV);
  private static final List<Integer> ROWS_PER_TX = List.of(100, 1);
  private static final Duration FIRST_EVENT = Duration.ofMinutes(5);
  private static final List<String> BARE_READER_JVM = List.of("-Xmx256m");

  /** Rows of the uncounted drain before the first round, at full size ({@link #warmUpBroker}). */
  private static final int BROKER_WARM_UP_ROWS = 300_000;

  private static final List<String> HEADER =
      List.of(
          "rows/tx",
          "reader",
          "events/s per round",
          "median events/s",
          "ratio to the bare reader",
          "CPU s per 1,000 events",
          "postgres CPU s per 1,000 events",
          "peak RSS MiB");

  /**
   * What one reader's drain of one backlog took.
   *
   * @param seconds the relay's from its first record on the topic to its last, the bare reader's
   *     from its first message to the last commit, pg_recvlogical's whole run
   * @param cpuSeconds the reader's own user + system time over the same span
   */
  record Reader(double seconds, double cpuSeconds, long peakRssBytes) {}

  /**
   * One reader's drain of one backlog.
   *
   * @param postgresCpuSeconds the postmaster's and its backends' (the walsender decoding the WAL)
   *     over the reader's whole run, start-up included: the walsender decodes ahead of the relay's
   *     first record while the relay starts
   */
  record Drain(Reader reader, double postgresCpuSeconds) {
    double seconds() {
      return reader.seconds();
    }
  }

  @Override
  public String id() {
    return "B1";
  }

  @Override
  public String title() {
    return TITLE;
  }

  @Override
  public ScenarioResult run(Bench bench) throws Exception {
    PgRecvLogical.locate(); // before anything starts: a missing one fails naming the package
    int rows = bench.pick(1_000_000, 5_000);
    int rounds = bench.pick(3, 1);
    Duration timeout = bench.pick(Duration.ofMinutes(30), Duration.ofMinutes(5));
    StackContext context = StackContext.create(RelayServerLimitBenchmark.class);
    RelayFixture fixture = new RelayFixture(context, "b1");
    DataSource db = fixture.dataSource();
    // The schema's slot has no reader here (each drain has its own): it would only hold WAL.
    Backlog.dropSlot(db, context.slot());
    ProcessGroup postgres =
        new ProcessGroup().add("postgres", ProcessGroup.postmaster(context), true);
    int warmUpRows = warmUpBroker(bench, id(), fixture, timeout);
    // By rows/tx, then reader: one drain per round.
    Map<Integer, Map<String, List<Drain>>> drains = new LinkedHashMap<>();
    int backlog = 0;
    for (int round = 1; round <= rounds; round++) {
      for (int rowsPerTx : ROWS_PER_TX) {
        backlog++;
        Map<String, String> slots = new LinkedHashMap<>();
        for (String reader : READERS) {
          String slot = context.slot() + "_" + backlog + "_" + reader.replaceAll("[^a-z]", "");
          slots.put(reader, slot);
          Backlog.createSlot(db, slot);
        }
        bench.progress(
            id(),
            String.format(
                Locale.ROOT,
                "round %d/%d: loading %,d rows at %d rows/tx",
                round,
                rounds,
                rows,
                rowsPerTx),
            true);
        Backlog.load(db, rows, rowsPerTx);
        String endLsn = Backlog.markEnd(db);
        List<String> order = new ArrayList<>(READERS);
        Collections.rotate(order, -(round - 1));
        for (String reader : order) {
          bench.progress(
              id(),
              "round " + round + ", " + rowsPerTx + " rows/tx: draining with " + reader,
              true);
          String slot = slots.get(reader);
          Map<String, ProcessStats.Sample> before = postgres.sample();
          Reader run =
              switch (reader) {
                case RELAY -> relayDrain(fixture, slot, rows, timeout);
                case BARE -> bareDrain(context, slot, rows, timeout);
                default -> recvDrain(context, slot, endLsn, timeout);
              };
          Backlog.awaitReleased(db, slot, FIRST_EVENT);
          Drain drain =
              new Drain(
                  run,
                  postgres.sample().get("postgres").cpuSeconds()
                      - before.get("postgres").cpuSeconds());
          Backlog.dropSlot(db, slot);
          drains
              .computeIfAbsent(rowsPerTx, k -> new LinkedHashMap<>())
              .computeIfAbsent(reader, k -> new ArrayList<>())
              .add(drain);
          bench.progress(
              id(),
              String.format(Locale.ROOT, "  %s: %.0f events/s", reader, rows / drain.seconds()),
              true);
        }
      }
    }
    return result(bench, drains, rows, rounds, warmUpRows);
  }

  /**
   * At full size, drains {@link #BROKER_WARM_UP_ROWS} outbox rows (100 per transaction) into the
   * topic with a relay on a slot of its own, and counts nothing of it; quick runs skip it. The
   * broker is started for the run, and without this the relay's first round met it fresh from its
   * start: the relay's rounds rose from the first to the last (64, 85 and 98 thousand events/s in
   * B1, 70, 99 and 115 in B2, on 2026-12-04), where a deployment's broker has long been warm.
   *
   * @return the rows drained, 0 when skipped
   */
  static int warmUpBroker(Bench bench, String id, RelayFixture fixture, Duration timeout)
      throws Exception {
    int rows = bench.pick(BROKER_WARM_UP_ROWS, 0);
    if (rows == 0) {
      return 0;
    }
    DataSource db = fixture.dataSource();
    String slot = fixture.context().slot() + "_warm_up";
    Backlog.createSlot(db, slot);
    bench.progress(
        id,
        String.format(Locale.ROOT, "warming the broker up: a drain of %,d rows, not counted", rows),
        true);
    Reader warmUp;
    try {
      Backlog.load(db, rows, 100);
      Backlog.markEnd(db);
      warmUp = relayDrain(fixture, slot, rows, timeout);
    } catch (Exception e) {
      // A slot left behind would hold the WAL of every run on this stack after it.
      try {
        Backlog.dropWhenReleased(db, slot, FIRST_EVENT);
      } catch (Exception cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    Backlog.dropWhenReleased(db, slot, FIRST_EVENT);
    bench.progress(
        id,
        String.format(Locale.ROOT, "  %.0f events/s (not counted)", rows / warmUp.seconds()),
        true);
    return rows;
  }

  /** What a workload line says of {@link #warmUpBroker}'s drain of {@code rows}: none when 0. */
  static String warmUpClause(int rows) {
    return rows == 0
        ? ""
        : String.format(
            Locale.ROOT,
            ", after a relay's drain of %,d rows that warms the broker up, not counted",
            rows);
  }

  /**
   * The relay on a fresh slot and offsets topic, from its first record on the topic to its last.
   */
  private static Reader relayDrain(RelayFixture fixture, String slot, int rows, Duration timeout)
      throws Exception {
    String bootstrap = fixture.context().bootstrapServers();
    String topic = fixture.publicationEvents;
    long onTopic = Backlog.records(bootstrap, topic);
    try (RelayFixture.Relay relay = startRelay(fixture, slot)) {
      Reader drain = intoTopic(bootstrap, topic, onTopic, rows, relay.pid(), timeout);
      relay.terminate();
      return drain;
    }
  }

  /**
   * A relay as in production (the shipped relay.properties, {@link RelayJvmOptions#recommended()})
   * on {@code slot}, with an offsets topic of its own, so it starts as on a first deployment.
   */
  static RelayFixture.Relay startRelay(RelayFixture fixture, String slot) throws Exception {
    Map<String, String> overrides =
        Map.of(
            "debezium.source.slot.name",
            slot,
            "debezium.source.offset.storage.topic",
            fixture.context().topic("offsets-" + slot));
    return fixture.start(overrides, RelayJvmOptions.recommended());
  }

  /**
   * A drain into Kafka by process {@code pid}, started when {@code topic} held {@code onTopic}
   * records: from its first record to its {@code rows}th, and its CPU over that span.
   */
  static Reader intoTopic(
      String bootstrap, String topic, long onTopic, int rows, long pid, Duration timeout)
      throws Exception {
    Backlog.awaitRecords(bootstrap, topic, onTopic + 1, FIRST_EVENT);
    long first = System.nanoTime();
    ProcessStats.Sample atFirst = sample(pid);
    Backlog.awaitRecords(bootstrap, topic, onTopic + rows, timeout);
    long done = System.nanoTime();
    ProcessStats.Sample atDone = sample(pid);
    return new Reader(
        (done - first) / 1e9, atDone.cpuSeconds() - atFirst.cpuSeconds(), atDone.peakRssBytes());
  }

  private static Reader bareDrain(StackContext context, String slot, int rows, Duration timeout)
      throws Exception {
    BareReader.Source source =
        new BareReader.Source(
            context.jdbcUrl(), context.user(), context.password(), slot, context.publication());
    Path log = Path.of("target", "bench-logs", "b1-" + slot + ".log");
    BareReader.ChildRun run = BareReader.inChildJvm(source, rows, BARE_READER_JVM, log, timeout);
    return new Reader(run.count().seconds(), run.cpuSeconds(), run.peakRssBytes());
  }

  private static Reader recvDrain(
      StackContext context, String slot, String endLsn, Duration timeout) throws Exception {
    ProcessStats.Finished run = PgRecvLogical.drain(context, slot, endLsn, timeout);
    return new Reader(run.seconds(), run.cpuSeconds(), run.peakRssBytes());
  }

  static ProcessStats.Sample sample(long pid) {
    return ProcessStats.sample(pid, false)
        .orElseThrow(() -> new IllegalStateException("process " + pid + " is gone"));
  }

  private ScenarioResult result(
      Bench bench,
      Map<Integer, Map<String, List<Drain>>> drains,
      int rows,
      int rounds,
      int warmUpRows) {
    List<List<String>> table = new ArrayList<>();
    Map<String, Double> figures = new LinkedHashMap<>();
    Map<String, Double> bars = new LinkedHashMap<>();
    List<String> notes = new ArrayList<>();
    drains.forEach(
        (rowsPerTx, byReader) -> {
          List<Drain> bare = byReader.get(BARE);
          for (String reader : READERS) {
            List<Drain> runs = byReader.get(reader);
            List<Double> rates = runs.stream().map(d -> rows / d.seconds()).toList();
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
              ratios.add(bare.get(i).seconds() / runs.get(i).seconds());
            }
            double median = median(rates);
            double ratio = median(ratios);
            long events = (long) rows * runs.size();
            double cpu =
                runs.stream().mapToDouble(d -> d.reader().cpuSeconds()).sum() * 1000 / events;
            double pgCpu =
                runs.stream().mapToDouble(Drain::postgresCpuSeconds).sum() * 1000 / events;
            long peak = runs.stream().mapToLong(d -> d.reader().peakRssBytes()).max().orElse(0);
            table.add(
                List.of(
                    Integer.toString(rowsPerTx),
                    reader,
                    String.join(
                        ", ",
                        rates.stream().map(r -> String.format(Locale.ROOT, "%,.0f", r)).toList()),
                    String.format(Locale.ROOT, "%,.0f", median),
                    String.format(Locale.ROOT, "%.2f", ratio),
                    String.format(Locale.ROOT, "%.3f", cpu),
                    String.format(Locale.ROOT, "%.3f", pgCpu),
                    Long.toString(peak >> 20)));
            String key = reader.replaceAll("[^a-z]+", "_") + "_" + rowsPerTx;
            figures.put("events_per_second_" + key, median);
            figures.put("ratio_to_bare_" + key, ratio);
            figures.put("cpu_s_per_1000_" + key, cpu);
            figures.put("postgres_cpu_s_per_1000_" + key, pgCpu);
            figures.put("peak_rss_mib_" + key, (double) (peak >> 20));
            bars.put(reader + ", " + rowsPerTx + " rows/tx", median);
            if (reader.equals(RELAY)) {
              notes.add(
                  String.format(
                      Locale.ROOT,
                      "Relay / bare reader at %d rows/tx: %.2f (goal >= 0.9): %s.",
                      rowsPerTx,
                      ratio,
                      ratio >= 0.9 ? "met" : "missed"));
            }
          }
        });
    notes.add(
        "Events/s: the relay's from its first record on the topic to its last (start-up left"
            + " out), the bare reader's from its first message to the backlog's last commit,"
            + " pg_recvlogical's over its whole run; ratios are of the same round's drains.");
    notes.add(
        "CPU s per 1,000 events: the reader's own user + system time over that span; postgres:"
            + " the postmaster and its backends (the walsender decoding the WAL) over the"
            + " reader's whole run. Peak RSS: VmHWM, the highest of the rounds.");
    String workload =
        String.format(
            Locale.ROOT,
            "Workload: a backlog of %,d writer.outbox rows (a ~60-byte JSON payload, 50 keys)"
                + " loaded server-side at 100 and at 1 rows/tx; before each backlog one pgoutput"
                + " slot per reader (proto_version 1, the same publication), so each reads the"
                + " same WAL; %d round(s), the readers' order rotating%s; the relay with the shipped"
                + " relay.properties (transactional sink) and RelayJvmOptions.recommended() into a"
                + " topic of 3 partitions; the bare reader a child JVM (%s); pg_recvlogical to"
                + " /dev/null; %d cores.",
            rows,
            rounds,
            warmUpClause(warmUpRows),
            String.join(" ", BARE_READER_JVM),
            Runtime.getRuntime().availableProcessors());
    Path chart = bench.reportDir().resolve("b1-drain.png");
    List<Path> plots =
        Charts.bars(chart, "B1: backlog drain, events/s (median of rounds)", "events/s", bars)
            .stream()
            .toList();
    return new ScenarioResult(id(), title(), workload, HEADER, table, notes, plots, figures);
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
