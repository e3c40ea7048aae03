package io.herald.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.bench.suite.Bench;
import io.herald.bench.suite.Latency;
import io.herald.bench.suite.PlainHttpClient;
import io.herald.bench.suite.PlainHttpConnections;
import io.herald.common.json.Json;
import io.herald.devstack.simulator.Article;
import io.herald.devstack.simulator.DestinationSimulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * Sends intents to the writer ({@code POST /v1/publications}, one article each, to {@code dest-a})
 * and reads their arrivals at the destination simulator: the load of the scenarios that run the
 * whole pipeline (B5, B6, B7). Article ids are {@code <run>-<phase>-<n>}, so each phase's arrivals
 * are told apart. Sending and waiting for the arrivals are separate steps, so a scenario can send
 * while the pipeline cannot deliver (B7's Kafka outage) and wait afterwards. Not thread-safe: one
 * phase at a time.
 */
final class PublicationLoad implements AutoCloseable {

  static final String DESTINATION = "dest-a";

  private static final String PATH = "/v1/publications";

  /**
   * How long one intent is sent again while the writer sheds load (503) before it counts as lost.
   */
  private static final Duration SHED_RETRY_LIMIT = Duration.ofMinutes(1);

  /** How often one intent is sent when its connection fails before the send counts as failed. */
  private static final int CONNECTION_ATTEMPTS = 3;

  /** How long {@link #measure(Sent, Bench, String)} waits for a phase's arrivals by default. */
  static final Duration ARRIVAL_TIMEOUT = Duration.ofMinutes(5);

  /**
   * The intents of one phase: when each was meant to be sent, the rate they were sent at, and when
   * the last send was answered.
   */
  record Sent(String phase, Instant[] intended, double offeredRate, Instant sendEnd) {

    int count() {
      return intended.length;
    }
  }

  /**
   * One phase's figures; latencies in microseconds ({@link Latency}).
   *
   * @param sustainedRate arrivals per second between the 10th and 90th percentile of arrivals
   * @param whileSendingRate arrivals per second while intents were still being sent (after the
   *     first tenth of the sending time): what the pipeline delivers while the writer takes load
   *     too, where {@code sustainedRate} also counts a backlog drained after the sending stopped
   * @param lastFifth the latencies of the intents scheduled in the phase's last fifth: at a rate
   *     the pipeline cannot keep up with, a backlog grows through the phase and these are the
   *     longest
   */
  record Phase(
      int count,
      double offeredRate,
      double sustainedRate,
      double whileSendingRate,
      Histogram latencies,
      Histogram lastFifth) {}

  /** One article of this run at the destination: its number within its phase, and when. */
  private record Arrival(int number, Instant at) {}

  private final String run;
  private final DestinationSimulator simulator;
  private final PlainHttpConnections http;
  private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicInteger shed = new AtomicInteger();
  private final AtomicInteger resent = new AtomicInteger();

  /**
   * The destination's articles of this run by phase, read from the simulator up to {@link
   * #readUpTo}: each article is read and parsed once, however often a phase's arrivals are counted
   * (a copy of every article every 200 ms cost the load generator's CPU, measured beside the
   * pipeline's, more as the runs' articles piled up).
   */
  private final Map<String, List<Arrival>> arrivals = new HashMap<>();

  private int readUpTo;

  /**
   * @param run the first part of every article id ({@code b5}): unique to the scenario, since the
   *     simulator may hold other scenarios' articles
   */
  PublicationLoad(String run, URI writer, DestinationSimulator simulator) {
    this.run = run;
    this.simulator = simulator;
    this.http = new PlainHttpConnections(writer.getHost(), writer.getPort());
  }

  /** {@code count} intents from {@code clients} clients, each sending its next on an answer. */
  Phase closedLoop(String phase, int count, int clients, Bench bench, String id) throws Exception {
    return measure(sendClosedLoop(phase, count, clients), bench, id);
  }

  /** Intents at {@code rate} per second for {@code duration}, each at its scheduled moment. */
  Phase openLoop(String phase, double rate, Duration duration, Bench bench, String id)
      throws Exception {
    return measure(sendOpenLoop(phase, rate, duration), bench, id);
  }

  /** Sends as {@link #closedLoop} does, without waiting for the arrivals. */
  Sent sendClosedLoop(String phase, int count, int clients) throws Exception {
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
    return new Sent(phase, intended, count / ((System.nanoTime() - start) / 1e9), Instant.now());
  }

  /** Sends as {@link #openLoop} does, without waiting for the arrivals. */
  Sent sendOpenLoop(String phase, double rate, Duration duration) throws Exception {
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
    return new Sent(phase, intended, rate, Instant.now());
  }

  /** Waits up to {@link #ARRIVAL_TIMEOUT} until every intent of {@code sent} has arrived. */
  Phase measure(Sent sent, Bench bench, String id) throws InterruptedException {
    return measure(sent, ARRIVAL_TIMEOUT, bench, id);
  }

  /**
   * Waits until every intent of {@code sent} has arrived; latencies count from the intended
   * moments; the sustained rate is the arrival rate between the 10th and 90th percentile of
   * arrivals (so neither the start nor the tail of the phase counts).
   *
   * @throws IllegalStateException if they have not all arrived within {@code timeout}
   */
  Phase measure(Sent sent, Duration timeout, Bench bench, String id) throws InterruptedException {
    String phase = sent.phase();
    Instant[] intended = sent.intended();
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Arrival> arrived;
    while (true) {
      arrived = arrivals(phase);
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
                + timeout);
      }
      bench.progress(
          id, phase + ": " + arrived.size() + "/" + intended.length + " published", false);
      // Nothing to wait on but the pipeline's work.
      Thread.sleep(200);
    }
    Histogram latencies = Latency.histogram();
    Histogram lastFifth = Latency.histogram();
    int lastFifthStart = intended.length - intended.length / 5;
    List<Instant> times = new ArrayList<>(arrived.size());
    int slowest = 0;
    long slowestNanos = 0;
    for (Arrival arrival : arrived) {
      int n = arrival.number();
      long nanos = Duration.between(intended[n], arrival.at()).toNanos();
      Latency.recordNanos(latencies, nanos);
      if (n >= lastFifthStart) {
        Latency.recordNanos(lastFifth, nanos);
      }
      if (nanos > slowestNanos) {
        slowest = n;
        slowestNanos = nanos;
      }
      times.add(arrival.at());
    }
    times.sort(null);
    int lo = times.size() / 10;
    int hi = Math.max(lo + 1, times.size() * 9 / 10);
    double seconds =
        Math.max(1e-3, Duration.between(times.get(lo), times.get(hi - 1)).toNanos() / 1e9);
    double sustained = (hi - 1 - lo) / seconds;
    Instant windowStart =
        intended[0].plus(Duration.between(intended[0], sent.sendEnd()).dividedBy(10));
    long inWindow =
        times.stream().filter(t -> !t.isBefore(windowStart) && !t.isAfter(sent.sendEnd())).count();
    double windowSeconds = Duration.between(windowStart, sent.sendEnd()).toNanos() / 1e9;
    double whileSending = windowSeconds > 0 ? inWindow / windowSeconds : sustained;
    // When the slowest intent was due: a stall's moment, to find it in the processes' logs.
    bench.progress(
        id,
        String.format(
            "%s: %d published; the slowest took %d ms, due at %s",
            phase,
            arrived.size(),
            slowestNanos / 1_000_000,
            LocalTime.ofInstant(intended[slowest], ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS)),
        true);
    return new Phase(
        intended.length, sent.offeredRate(), sustained, whileSending, latencies, lastFifth);
  }

  /**
   * How many distinct articles of this run's {@code phases} the destination holds, and how many
   * articles in all (a second article for one intent would be a duplicate publication).
   */
  record Arrivals(int distinct, int articles) {}

  /** The articles of {@code phases} at the destination, counted. */
  Arrivals count(List<String> phases) {
    Set<String> ids = new HashSet<>();
    int articles = 0;
    for (String phase : phases) {
      for (Arrival arrival : arrivals(phase)) {
        articles++;
        ids.add(phase + "-" + arrival.number());
      }
    }
    return new Arrivals(ids.size(), articles);
  }

  private void send(String phase, int n) throws IOException, InterruptedException {
    String tenant = n % 2 == 0 ? "t1" : "t2";
    String body =
        "{\"articleId\":\""
            + run
            + "-"
            + phase
            + "-"
            + n
            + "\",\"revisionId\":\"r-1\",\"destination\":\""
            + DESTINATION
            + "\",\"content\":{\"title\":\"Benchmark article "
            + n
            + "\",\"body\":\"An article of about one hundred and twenty bytes.\"}}";
    String token = "demo-token-" + tenant;
    long deadline = System.nanoTime() + SHED_RETRY_LIMIT.toNanos();
    PlainHttpClient.Response response = post(token, body);
    // A 503 is the writer shedding load (its request queue is full): a client sends the same
    // intent again after Retry-After, and its latency keeps counting from the intended moment.
    while (response.status() == 503 && System.nanoTime() < deadline) {
      shed.incrementAndGet();
      Thread.sleep(retryAfter(response).toMillis());
      response = post(token, body);
    }
    // 200: the same intent again, which a resend after a lost answer may be.
    if (response.status() != 201 && response.status() != 200) {
      throw new IllegalStateException(
          "the writer answered " + response.status() + " to " + body + ": " + response.body());
    }
  }

  /**
   * POSTs an intent, sending it again on a fresh connection when the connection fails (a reset
   * under a burst of new connections): the writer answers the same intent again with its job (200),
   * so a resend whose first answer was lost publishes nothing twice. Counted in {@link #resent}.
   */
  private PlainHttpClient.Response post(String token, String body) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return http.post(PATH, token, body);
      } catch (IOException e) {
        if (attempt == CONNECTION_ATTEMPTS) {
          throw e;
        }
        resent.incrementAndGet();
      }
    }
  }

  /** The writer's Retry-After in whole seconds, as it sends it; one second without it. */
  private static Duration retryAfter(PlainHttpClient.Response response) {
    return response.retryAfter() == null
        ? Duration.ofSeconds(1)
        : Duration.ofSeconds(Long.parseLong(response.retryAfter()));
  }

  /** How many sends the writer answered 503 (and were sent again) since this load started. */
  int shed() {
    return shed.get();
  }

  /** How many sends failed on their connection and were sent again since this load started. */
  int resent() {
    return resent.get();
  }

  /** The arrivals of {@code phase} so far (reading the articles that came since the last call). */
  private List<Arrival> arrivals(String phase) {
    List<Article> added = simulator.articlesFrom(readUpTo);
    readUpTo += added.size();
    String runPrefix = run + "-";
    for (Article article : added) {
      String articleId = articleId(article.body());
      int last = articleId.lastIndexOf('-');
      if (articleId.startsWith(runPrefix) && last > runPrefix.length()) {
        arrivals
            .computeIfAbsent(articleId.substring(runPrefix.length(), last), p -> new ArrayList<>())
            .add(new Arrival(Integer.parseInt(articleId.substring(last + 1)), article.createdAt()));
      }
    }
    return arrivals.getOrDefault(phase, List.of());
  }

  private static String articleId(String body) {
    try {
      JsonNode json = Json.mapper().readTree(body);
      return json.path("articleId").asText();
    } catch (IOException e) {
      throw new IllegalStateException("unreadable article body: " + body, e);
    }
  }

  @Override
  public void close() {
    senders.shutdownNow();
    try {
      http.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
