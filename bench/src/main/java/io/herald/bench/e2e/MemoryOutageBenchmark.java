package io.herald.bench.e2e;

import static io.herald.bench.e2e.PipelineBench.format;

import io.herald.bench.suite.Bench;
import io.herald.bench.suite.Charts;
import io.herald.bench.suite.ProcessStats;
import io.herald.bench.suite.Scenario;
import io.herald.bench.suite.ScenarioResult;
import io.herald.consumer.ConsumerJvmOptions;
import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.demo.Showcase;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.writer.WriterJvmOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * B7: the relay's and the consumer's memory (RSS from {@code /proc}) over time, through three
 * phases of one pipeline on the shipped files: at full speed (closed-loop clients), through a Kafka
 * outage while the writer keeps taking intents at a steady rate (the stack's broker stopped, the
 * relay and the consumer left running to retry), and after Kafka returns until the backlog has
 * reached the destination. A sampler reads both processes' RSS and {@code /health} every interval;
 * at the end every intent written must be at the destination once (a count), and both processes
 * healthy again.
 */
public final class MemoryOutageBenchmark implements Scenario {

  private static final List<String> WATCHED = List.of("relay", "consumer");
  private static final int CLIENTS = 32;
  private static final Duration HEALTH_TIMEOUT = Duration.ofMinutes(2);
  private static final long GOAL_MIB = 300;

  @Override
  public String id() {
    return "B7";
  }

  @Override
  public String title() {
    return "relay and consumer RSS at full speed, through a Kafka outage and its drain";
  }

  @Override
  public ScenarioResult run(Bench bench) throws Exception {
    int fullSpeed = bench.pick(20_000, 300);
    Duration outage = bench.pick(Duration.ofMinutes(10), Duration.ofSeconds(3));
    double outageRate = bench.pick(100.0, 50.0);
    Duration interval = bench.pick(Duration.ofSeconds(5), Duration.ofSeconds(1));
    StackContext stack = StackContext.create(MemoryOutageBenchmark.class);
    KafkaBroker kafka = stack.stack().kafka();
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      PipelineSettings settings = PipelineBench.settings(stack, simulator, bench, "b7");
      try (Pipeline pipeline = Pipeline.start(settings);
          PublicationLoad load = new PublicationLoad("b7", pipeline.writerUri(), simulator);
          Sampler sampler = new Sampler(pipeline, interval)) {
        sampler.phase("full speed");
        bench.progress(
            id(), "full speed: " + fullSpeed + " intents, " + CLIENTS + " clients", true);
        load.closedLoop("full", fullSpeed, CLIENTS, bench, id());

        sampler.phase("outage");
        bench.progress(
            id(),
            format("Kafka stopped; %.0f intents/s for %d s", outageRate, outage.toSeconds()),
            true);
        PublicationLoad.Sent written;
        kafka.stop();
        try {
          written = load.sendOpenLoop("outage", outageRate, outage);
        } finally {
          // The stack serves the scenarios after this one too.
          kafka.start();
        }

        sampler.phase("drain");
        bench.progress(id(), "Kafka back; draining " + written.count() + " intents", true);
        PublicationLoad.Phase drain =
            load.measure(written, outage.plus(Duration.ofMinutes(10)), bench, id());
        Map<String, Integer> healthy = awaitHealthy(pipeline, sampler);
        sampler.close();

        PublicationLoad.Arrivals arrived = load.count(List.of("full", "outage"));
        int total = fullSpeed + written.count();
        return result(
            sampler.samples(),
            peaks(pipeline),
            healthy,
            total,
            arrived,
            drain,
            new Sizes(fullSpeed, outage, outageRate, interval),
            bench);
      }
    }
  }

  /** The run's sizes, for the workload line. */
  private record Sizes(int fullSpeed, Duration outage, double outageRate, Duration interval) {}

  private ScenarioResult result(
      List<Sample> samples,
      Map<String, Long> peaks,
      Map<String, Integer> healthy,
      int written,
      PublicationLoad.Arrivals arrived,
      PublicationLoad.Phase drain,
      Sizes sizes,
      Bench bench) {
    List<List<String>> rows = new ArrayList<>();
    Map<String, Double> figures = new LinkedHashMap<>();
    Map<String, List<Charts.Point>> lines = new LinkedHashMap<>();
    for (String process : WATCHED) {
      lines.put(process, new ArrayList<>());
      for (Sample sample : samples) {
        if (sample.process().equals(process) && sample.rssBytes() > 0) {
          lines.get(process).add(new Charts.Point(sample.seconds(), mib(sample.rssBytes())));
        }
      }
      byPhase(samples, process)
          .forEach(
              (phase, of) -> {
                rows.add(
                    List.of(
                        process,
                        phase,
                        Integer.toString(of.count),
                        format("%.0f", mib(of.min)),
                        format("%.0f", mib(of.max)),
                        format("%.0f", mib(of.last)),
                        format("%+.0f", mib(of.last - of.first)),
                        of.health.toString()));
                String key = process + "_" + phase.replace(' ', '_');
                figures.put(key + "_max_rss_mib", mib(of.max));
                figures.put(key + "_rss_change_mib", mib(of.last - of.first));
              });
      figures.put(process + "_peak_rss_mib", mib(peaks.get(process)));
    }
    int lost = written - arrived.distinct();
    figures.put("written", (double) written);
    figures.put("reached_destination", (double) arrived.distinct());
    figures.put("lost", (double) lost);
    figures.put("duplicates", (double) (arrived.articles() - arrived.distinct()));
    figures.put("drain_publications_per_second", drain.sustainedRate());

    List<String> notes = new ArrayList<>();
    notes.add(
        format(
            "Peak RSS (VmHWM) over the run: relay %.0f MiB, consumer %.0f MiB (goal <= %d MiB"
                + " each, flat during the outage: see the outage rows' change).",
            mib(peaks.get("relay")), mib(peaks.get("consumer")), GOAL_MIB));
    notes.add(
        format(
            "Written %d intents (%d at full speed, %d during the outage); %d reached the"
                + " destination, %d lost, %d duplicate articles.",
            written,
            sizes.fullSpeed(),
            written - sizes.fullSpeed(),
            arrived.distinct(),
            lost,
            arrived.articles() - arrived.distinct()));
    notes.add(
        format(
            "The backlog drained at %.0f publications/s once Kafka was back; healthy again (200"
                + " on /health) after the drain: relay at poll %d, consumer at poll %d.",
            drain.sustainedRate(), healthy.get("relay"), healthy.get("consumer")));
    notes.add(
        "Health is each process's /health answer at each sample: 503 while Kafka is away is the"
            + " process saying so (the relay waits for Kafka to acknowledge), not an exit; both"
            + " ran through the outage with the same pid.");
    List<Path> plots =
        Charts.lines(
                bench.reportDir().resolve("b7-rss.png"),
                "B7: RSS over time (full speed, Kafka outage, drain)",
                "seconds since the start",
                "RSS (MiB)",
                lines)
            .stream()
            .toList();
    return new ScenarioResult(
        id(),
        title(),
        format(
            "Workload: full speed = %d intents from %d closed-loop clients; outage = the stack's"
                + " Kafka broker stopped for %d s while the writer takes %.0f intents/s (open"
                + " loop); drain = until every intent has reached the destination; one intent per"
                + " article to %s (0 ms); publication topic of 3 partitions; the shipped property"
                + " files; every process with its recommended JVM options (consumer: "
                + String.join(" ", ConsumerJvmOptions.recommended())
                + "; writer: "
                + String.join(" ", WriterJvmOptions.recommended())
                + "); RSS and /health sampled every %d s; %d cores, load"
                + " average before the run %s.",
            sizes.fullSpeed(),
            CLIENTS,
            sizes.outage().toSeconds(),
            sizes.outageRate(),
            PublicationLoad.DESTINATION,
            sizes.interval().toSeconds(),
            Runtime.getRuntime().availableProcessors(),
            PipelineBench.loadAverage()),
        List.of(
            "process",
            "phase",
            "samples",
            "min RSS MiB",
            "max RSS MiB",
            "last RSS MiB",
            "change MiB",
            "/health answers"),
        rows,
        notes,
        plots,
        figures);
  }

  /** {@code process}'s samples summed up by phase, the phases in the order they were sampled. */
  static Map<String, PhaseFigures> byPhase(List<Sample> samples, String process) {
    Map<String, PhaseFigures> byPhase = new LinkedHashMap<>();
    for (Sample sample : samples) {
      if (sample.process().equals(process)) {
        byPhase.computeIfAbsent(sample.phase(), p -> new PhaseFigures()).add(sample);
      }
    }
    return byPhase;
  }

  /**
   * The min, max, first and last RSS of one process in one phase, and its health answers by answer.
   * Not thread-safe.
   */
  static final class PhaseFigures {
    int count;
    long min = Long.MAX_VALUE;
    long max;
    long first = -1;
    long last;
    final Map<String, Integer> health = new TreeMap<>();

    void add(Sample sample) {
      count++;
      min = Math.min(min, sample.rssBytes());
      max = Math.max(max, sample.rssBytes());
      first = first < 0 ? sample.rssBytes() : first;
      last = sample.rssBytes();
      health.merge(sample.health(), 1, Integer::sum);
    }
  }

  /**
   * Waits until the relay and the consumer both answer 200 on {@code /health}; the poll each first
   * did, counted from the end of the drain.
   *
   * @throws IllegalStateException if one has exited or is not healthy within {@link
   *     #HEALTH_TIMEOUT}
   */
  private static Map<String, Integer> awaitHealthy(Pipeline pipeline, Sampler sampler)
      throws InterruptedException {
    Map<String, Integer> polls = new LinkedHashMap<>();
    long deadline = System.nanoTime() + HEALTH_TIMEOUT.toNanos();
    for (int poll = 1; polls.size() < WATCHED.size(); poll++) {
      for (String name : WATCHED) {
        if (!polls.containsKey(name) && sampler.health(name).equals("200")) {
          polls.put(name, poll);
        }
      }
      if (polls.size() < WATCHED.size()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "not healthy within " + HEALTH_TIMEOUT + " of the drain: " + sampler.lastHealth());
        }
        // Recovery after Kafka's return is the processes' own; nothing else to wait on.
        Thread.sleep(500);
      }
    }
    for (String name : WATCHED) {
      if (pipeline.process(name).pid() != sampler.pid(name)) {
        throw new IllegalStateException(name + " is not the process that started the run");
      }
    }
    return polls;
  }

  private static Map<String, Long> peaks(Pipeline pipeline) {
    Map<String, Long> peaks = new LinkedHashMap<>();
    for (String name : WATCHED) {
      ChildJvm process = pipeline.process(name);
      peaks.put(
          name,
          ProcessStats.sample(process.pid(), false)
              .orElseThrow(() -> new IllegalStateException(name + " has exited: " + process))
              .peakRssBytes());
    }
    return peaks;
  }

  /** One reading of a process: when, in which phase, its RSS (0 if gone) and health answer. */
  record Sample(double seconds, String phase, String process, long rssBytes, String health) {}

  /**
   * Reads the watched processes' RSS and {@code /health} every interval on its own thread, owned
   * here and stopped by {@link #close()}; the phase is what the scenario is doing at the time.
   */
  private static final class Sampler implements AutoCloseable {

    private final Map<String, Long> pids = new LinkedHashMap<>();
    private final Map<String, URI> healthUris = new LinkedHashMap<>();
    private final Map<String, String> lastHealth = new ConcurrentHashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    private final HttpClient http =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "b7-sampler");
              t.setDaemon(true);
              return t;
            });
    private final long start = System.nanoTime();
    private volatile String phase = "full speed";
    private volatile RuntimeException failure;
    private boolean closed;

    Sampler(Pipeline pipeline, Duration interval) {
      for (String name : WATCHED) {
        pids.put(name, pipeline.process(name).pid());
        healthUris.put(name, pipeline.metricsUris().get(name).resolve("/health"));
      }
      thread.scheduleAtFixedRate(this::sample, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    void phase(String name) {
      phase = name;
    }

    long pid(String name) {
      return pids.get(name);
    }

    /** The process's {@code /health} status now ({@code "no answer"} when none). */
    String health(String name) {
      String answer;
      try {
        answer =
            Integer.toString(
                http.send(
                        HttpRequest.newBuilder(healthUris.get(name))
                            .timeout(Duration.ofSeconds(2))
                            .build(),
                        HttpResponse.BodyHandlers.discarding())
                    .statusCode());
      } catch (IOException e) {
        answer = "no answer";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        answer = "interrupted";
      }
      lastHealth.put(name, answer);
      return answer;
    }

    Map<String, String> lastHealth() {
      return Map.copyOf(lastHealth);
    }

    private void sample() {
      double seconds = (System.nanoTime() - start) / 1e9;
      String now = phase;
      try {
        for (String name : WATCHED) {
          long rss = ProcessStats.sample(pids.get(name), false).map(s -> s.rssBytes()).orElse(0L);
          String health = rss == 0 ? "exited" : health(name);
          synchronized (samples) {
            samples.add(new Sample(seconds, now, name, rss, health));
          }
        }
      } catch (RuntimeException e) {
        // A failed reading ends the sampling (the executor runs no more); samples() reports it.
        failure = e;
        throw e;
      }
    }

    /** The samples so far, oldest first. */
    List<Sample> samples() {
      if (failure != null) {
        throw new IllegalStateException("the sampler failed", failure);
      }
      synchronized (samples) {
        return List.copyOf(samples);
      }
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      thread.shutdownNow();
      try {
        if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the sampler did not stop within 10 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      http.close();
    }
  }

  private static double mib(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
