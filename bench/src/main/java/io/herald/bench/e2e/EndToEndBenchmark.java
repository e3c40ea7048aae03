package io.herald.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.bench.suite.Bench;
import io.herald.bench.suite.Charts;
import io.herald.bench.suite.ProcessGroup;
import io.herald.bench.suite.ProcessStats;
import io.herald.bench.suite.Scenario;
import io.herald.bench.suite.ScenarioResult;
import io.herald.common.json.Json;
import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.demo.Showcase;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.simulator.Article;
import io.herald.devstack.simulator.DestinationSimulator;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * B5: the whole pipeline a user runs, POST to the writer until the article reaches the destination
 * simulator (0 ms latency, the idempotent {@code dest-a}): the three processes as child JVMs with
 * the shipped files, on the embedded stack, everything on this machine.
 *
 * <ol>
 *   <li>Saturation: {@code clients} closed-loop clients send intents as fast as the writer answers;
 *       the highest sustainable rate is the destination's arrival rate between the 10th and 90th
 *       percentile of arrivals, and each process's CPU per publication is measured over it.
 *   <li>Latency at 25, 50 and 75 % of that rate, open loop: each intent is sent at its scheduled
 *       moment, and its latency counts from that moment, not from when a busy client got round to
 *       it, so coordinated omission cannot flatter the percentiles (HdrHistogram).
 *   <li>The CPU-bound estimate: the machine's cores divided by the CPU all processes together spend
 *       per publication, the rate the pipeline would reach if CPU were the only limit.
 * </ol>
 */
public final class EndToEndBenchmark implements Scenario {

  private static final String DESTINATION = "dest-a";
  private static final int CLIENTS = 32;
  private static final Duration ARRIVAL_TIMEOUT = Duration.ofMinutes(5);
  private static final double[] LOAD_FRACTIONS = {0.25, 0.50, 0.75};

  @Override
  public String id() {
    return "B5";
  }

  @Override
  public String title() {
    return "end to end, POST to the destination simulator at 0 ms latency, beside the CPU-bound"
        + " estimate";
  }

  @Override
  public ScenarioResult run(Bench bench) throws Exception {
    int warmUp = bench.pick(2_000, 200);
    int saturation = bench.pick(20_000, 600);
    Duration latencyPhase = bench.pick(Duration.ofSeconds(60), Duration.ofSeconds(5));
    StackContext stack = bench.stack();
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      Path logs = bench.reportDir().resolve("b5-logs");
      PipelineSettings settings =
          PipelineSettings.isolated(stack, simulator.baseUri(), configDir(), logs);
      try (Pipeline pipeline = Pipeline.start(settings, overrides());
          Load load = new Load(pipeline.writerUri(), simulator)) {
        ProcessGroup processes = processes(pipeline, stack);
        bench.progress(id(), "pipeline up; warming up with " + warmUp + " intents", true);
        load.closedLoop("warm", warmUp, CLIENTS, bench, id());

        bench.progress(
            id(), "saturation: " + saturation + " intents, " + CLIENTS + " clients", true);
        Map<String, ProcessStats.Sample> before = processes.sample();
        Load.Phase max = load.closedLoop("sat", saturation, CLIENTS, bench, id());
        Map<String, ProcessStats.Sample> after = processes.sample();
        double maxRate = max.sustainedRate();
        Map<String, Double> cpuMsPerPublication = new LinkedHashMap<>();
        double totalCpuMs = 0;
        for (String name : processes.names()) {
          double ms =
              (after.get(name).cpuSeconds() - before.get(name).cpuSeconds()) * 1000 / saturation;
          cpuMsPerPublication.put(name, ms);
          totalCpuMs += ms;
        }
        int cores = Runtime.getRuntime().availableProcessors();
        double cpuBound = cores * 1000 / totalCpuMs;

        List<List<String>> rows = new ArrayList<>();
        rows.add(
            List.of(
                "saturation (" + CLIENTS + " clients, closed loop)",
                String.format("%.0f", max.offeredRate()),
                String.format("%.0f", maxRate),
                "-",
                "-",
                "-",
                "-"));
        Map<String, List<Charts.Point>> lines = new LinkedHashMap<>();
        for (String p : List.of("p50", "p90", "p99", "p99.9")) {
          lines.put(p, new ArrayList<>());
        }
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("max_publications_per_second", maxRate);
        figures.put("cpu_ms_per_publication_all", totalCpuMs);
        figures.put("cpu_bound_publications_per_second", cpuBound);
        for (double fraction : LOAD_FRACTIONS) {
          double rate = Math.max(1, maxRate * fraction);
          bench.progress(
              id(),
              String.format(
                  "open loop at %.0f %% of the maximum: %.0f intents/s for %d s",
                  fraction * 100, rate, latencyPhase.toSeconds()),
              true);
          Load.Phase phase =
              load.openLoop("o" + (int) (fraction * 100), rate, latencyPhase, bench, id());
          Histogram h = phase.latencies();
          rows.add(
              List.of(
                  String.format("open loop, %.0f %%", fraction * 100),
                  String.format("%.0f", rate),
                  String.format("%.0f", phase.sustainedRate()),
                  ms(h.getValueAtPercentile(50)),
                  ms(h.getValueAtPercentile(99)),
                  ms(h.getValueAtPercentile(99.9)),
                  ms(h.getMaxValue())));
          lines.get("p50").add(new Charts.Point(rate, h.getValueAtPercentile(50) / 1000.0));
          lines.get("p90").add(new Charts.Point(rate, h.getValueAtPercentile(90) / 1000.0));
          lines.get("p99").add(new Charts.Point(rate, h.getValueAtPercentile(99) / 1000.0));
          lines.get("p99.9").add(new Charts.Point(rate, h.getValueAtPercentile(99.9) / 1000.0));
          figures.put("p99_ms_at_" + (int) (fraction * 100), h.getValueAtPercentile(99) / 1000.0);
        }
        Map<String, ProcessStats.Sample> end = processes.sample();

        List<String> notes = new ArrayList<>();
        StringBuilder cpu = new StringBuilder("CPU per publication over the saturation phase:");
        cpuMsPerPublication.forEach(
            (name, ms) -> cpu.append(String.format(" %s %.2f ms,", name, ms)));
        notes.add(cpu.append(String.format(" all %.2f ms (goal <= 2 ms)", totalCpuMs)).toString());
        notes.add(
            String.format(
                "CPU-bound estimate: %d cores / %.2f ms = %.0f publications/s; measured %.0f (%.2f of"
                    + " it; goal >= 1,000 publications/s)",
                cores, totalCpuMs, cpuBound, maxRate, maxRate / cpuBound));
        StringBuilder rss = new StringBuilder("Peak RSS:");
        end.forEach(
            (name, sample) ->
                rss.append(String.format(" %s %d MiB,", name, sample.peakRssBytes() >> 20)));
        notes.add(rss.substring(0, rss.length() - 1));
        notes.add("p99 POST to destination at 50 %: goal <= 100 ms.");
        List<Path> plots = new ArrayList<>();
        Charts.lines(
                bench.reportDir().resolve("b5-latency.png"),
                "B5: POST to destination latency against offered load (open loop)",
                "offered load (publications/s)",
                "latency (ms)",
                lines)
            .ifPresent(plots::add);
        Map<String, Double> bars = new LinkedHashMap<>();
        bars.put("measured maximum", maxRate);
        bars.put("CPU-bound estimate", cpuBound);
        bars.put("goal", 1000.0);
        Charts.bars(
                bench.reportDir().resolve("b5-throughput.png"),
                "B5: publications/s end to end",
                "publications/s",
                bars)
            .ifPresent(plots::add);
        return new ScenarioResult(
            id(),
            title(),
            String.format(
                "Workload: one intent per article (tenants t1 and t2), revision r-1, to %s (0 ms,"
                    + " honours the key); ~120-byte content; publication topic of 3 partitions;"
                    + " the shipped property files%s; %d cores, %d GiB, load average before the run"
                    + " %s.",
                DESTINATION,
                overrides().isEmpty() ? "" : " with " + overrides(),
                cores,
                Runtime.getRuntime().maxMemory() >> 30,
                loadAverage()),
            List.of("phase", "offered/s", "published/s", "p50 ms", "p99 ms", "p99.9 ms", "max ms"),
            rows,
            notes,
            plots,
            figures);
      }
    }
  }

  /**
   * {@code -Dherald.bench.b5.env=NAME=VALUE,...}: environment overrides for the processes (the
   * documented {@code HERALD_*} variables, each to the process it configures), to compare a setting
   * with its default run by run; none by default (the shipped files as they are).
   */
  static Map<String, String> overrides() {
    Map<String, String> overrides = new LinkedHashMap<>();
    String spec = System.getProperty("herald.bench.b5.env", "");
    for (String pair : spec.split(",")) {
      if (!pair.isBlank()) {
        int eq = pair.indexOf('=');
        overrides.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    return overrides;
  }

  private static String ms(long micros) {
    return String.format("%.1f", micros / 1000.0);
  }

  private static String loadAverage() {
    try {
      return java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** The checkout's shipped files: connect-config/ in the first directory above that has one. */
  private static Path configDir() {
    return ShippedConfig.directory();
  }

  /** The pipeline's processes and the stack's, by name, for CPU and memory readings. */
  private static ProcessGroup processes(Pipeline pipeline, StackContext stack) {
    ProcessGroup group = new ProcessGroup();
    for (ChildJvm process : pipeline.processes()) {
      group.add(process.name(), process.pid(), false);
    }
    return group.addStack(stack);
  }

  /** Sends intents to the writer and reads their arrivals at the simulator. */
  static final class Load implements AutoCloseable {

    /** One phase's figures. */
    record Phase(double offeredRate, double sustainedRate, Histogram latencies) {}

    private final URI writer;
    private final DestinationSimulator simulator;
    private final HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();

    Load(URI writer, DestinationSimulator simulator) {
      this.writer = writer;
      this.simulator = simulator;
    }

    /** {@code count} intents from {@code clients} clients, each sending its next on an answer. */
    Phase closedLoop(String phase, int count, int clients, Bench bench, String id)
        throws Exception {
      Instant[] intended = new Instant[count];
      AtomicInteger next = new AtomicInteger();
      long start = System.nanoTime();
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        running.add(
            senders.submit(
                () -> {
                  for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    intended[i] = Instant.now();
                    send(phase, i);
                  }
                  return null;
                }));
      }
      for (Future<?> client : running) {
        client.get(ARRIVAL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
      double offered = count / ((System.nanoTime() - start) / 1e9);
      return measure(phase, intended, offered, bench, id);
    }

    /** Intents at {@code rate} per second for {@code duration}, each at its scheduled moment. */
    Phase openLoop(String phase, double rate, Duration duration, Bench bench, String id)
        throws Exception {
      int count = (int) Math.max(1, rate * duration.toNanos() / 1e9);
      Instant[] intended = new Instant[count];
      Instant base = Instant.now();
      long startNanos = System.nanoTime();
      long stepNanos = (long) (1e9 / rate);
      List<Future<?>> sends = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        long due = startNanos + i * stepNanos;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          // Pacing: the schedule is the point of an open loop.
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        intended[i] = base.plusNanos(i * stepNanos);
        int n = i;
        sends.add(
            senders.submit(
                () -> {
                  send(phase, n);
                  return null;
                }));
      }
      for (Future<?> send : sends) {
        send.get(ARRIVAL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
      return measure(phase, intended, rate, bench, id);
    }

    private void send(String phase, int n) throws IOException, InterruptedException {
      String tenant = n % 2 == 0 ? "t1" : "t2";
      String body =
          "{\"articleId\":\"b5-"
              + phase
              + "-"
              + n
              + "\",\"revisionId\":\"r-1\",\"destination\":\""
              + DESTINATION
              + "\",\"content\":{\"title\":\"Benchmark article "
              + n
              + "\",\"body\":\"An article of about one hundred and twenty bytes.\"}}";
      HttpRequest post =
          HttpRequest.newBuilder(writer.resolve("/v1/publications"))
              .header("Authorization", "Bearer demo-token-" + tenant)
              .header("Content-Type", "application/json")
              .timeout(Duration.ofSeconds(30))
              .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
              .build();
      HttpResponse<String> response = http.send(post, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 201) {
        throw new IllegalStateException(
            "the writer answered "
                + response.statusCode()
                + " to "
                + body
                + ": "
                + response.body());
      }
    }

    /** Waits until every intent of {@code phase} has arrived; latencies from intended moments. */
    private Phase measure(String phase, Instant[] intended, double offered, Bench bench, String id)
        throws InterruptedException {
      String prefix = "\"articleId\":\"b5-" + phase + "-";
      long deadline = System.nanoTime() + ARRIVAL_TIMEOUT.toNanos();
      List<Article> arrived;
      while (true) {
        arrived = arrivals(prefix);
        if (arrived.size() >= intended.length) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              phase
                  + ": "
                  + arrived.size()
                  + " of "
                  + intended.length
                  + " arrived within "
                  + ARRIVAL_TIMEOUT);
        }
        bench.progress(
            id, phase + ": " + arrived.size() + "/" + intended.length + " published", false);
        // Nothing to wait on but the pipeline's work.
        Thread.sleep(200);
      }
      Histogram latencies = new Histogram(3_600_000_000L, 3);
      List<Instant> times = new ArrayList<>(arrived.size());
      for (Article article : arrived) {
        int n = number(article.body(), prefix);
        long micros = Duration.between(intended[n], article.createdAt()).toNanos() / 1000;
        latencies.recordValue(Math.max(0, micros));
        times.add(article.createdAt());
      }
      times.sort(null);
      int lo = times.size() / 10;
      int hi = Math.max(lo + 1, times.size() * 9 / 10);
      double seconds =
          Math.max(1e-3, Duration.between(times.get(lo), times.get(hi - 1)).toNanos() / 1e9);
      double sustained = (hi - 1 - lo) / seconds;
      bench.progress(id, phase + ": " + arrived.size() + " published", true);
      return new Phase(offered, sustained, latencies);
    }

    private List<Article> arrivals(String prefix) {
      List<Article> of = new ArrayList<>();
      for (Article article : simulator.articles()) {
        if (article.body().contains(prefix)) {
          of.add(article);
        }
      }
      return of;
    }

    private static int number(String body, String prefix) {
      try {
        JsonNode json = Json.mapper().readTree(body);
        String articleId = json.path("articleId").asText();
        return Integer.parseInt(articleId.substring(articleId.lastIndexOf('-') + 1));
      } catch (IOException e) {
        throw new IllegalStateException("unreadable article body: " + body, e);
      }
    }

    @Override
    public void close() {
      senders.shutdownNow();
      http.close();
    }
  }
}
