package io.herald.faults;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.demo.Showcase.Request;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The showcase's requests sent at a steady rate by concurrent clients while faults land: request
 * {@code i} leaves at {@code start + i * spread / n}. A client whose request fails without an
 * answer (the writer is down or the connection broke), or with 503 (the writer cannot reach its
 * database: try again), sends it again after a pause (the answer's {@code Retry-After}, if any), as
 * a real client does; the writer's answer to the replay is 201 or 200, both acknowledging the
 * intent. Owned by one runner: {@link #start()} once, then {@link #await(Duration)}.
 */
final class SteadyLoad {

  /** The writer's answer to one request; {@code jobId} is set for a 2xx. */
  record Answer(Request request, int status, UUID jobId, String key) {}

  private static final int ATTEMPTS = 60;
  private static final Duration PAUSE = Duration.ofMillis(500);

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final URI writer;
  private final List<Request> requests;
  private final int clients;
  private final Duration spread;
  private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();
  private final AtomicInteger resent = new AtomicInteger();
  private final AtomicInteger unavailable = new AtomicInteger();
  private final AtomicInteger timedOut = new AtomicInteger();
  private volatile Thread pacer;
  private final List<Future<?>> sends = new ArrayList<>();
  private volatile ExecutorService pool;

  SteadyLoad(URI writer, List<Request> requests, int clients, Duration spread) {
    this.writer = writer;
    this.requests = List.copyOf(requests);
    this.clients = clients;
    this.spread = spread;
  }

  void start() {
    pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    long step = spread.toNanos() / Math.max(1, requests.size());
    pacer =
        Thread.ofPlatform()
            .name("faults-load")
            .start(
                () -> {
                  for (int i = 0; i < requests.size(); i++) {
                    long wait = start + i * step - System.nanoTime();
                    try {
                      if (wait > 0) {
                        // Pacing: the next request's moment has not come yet.
                        TimeUnit.NANOSECONDS.sleep(wait);
                      }
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      return;
                    }
                    Request request = requests.get(i);
                    synchronized (sends) {
                      sends.add(pool.submit(() -> send(request)));
                    }
                  }
                });
  }

  /** Whether every request has left (answers may still be coming). */
  boolean allSent() {
    return pacer != null && !pacer.isAlive();
  }

  /** Waits for every answer; throws if a request failed for good. */
  List<Answer> await(Duration timeout) throws Exception {
    pacer.join(timeout.toMillis());
    List<Future<?>> all;
    synchronized (sends) {
      all = List.copyOf(sends);
    }
    for (Future<?> send : all) {
      send.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    pool.shutdown();
    return List.copyOf(answers);
  }

  /**
   * Stops sending: requests not yet sent are dropped and those in flight interrupted. For a round
   * that ends before its load (a process died); after {@link #await} there is nothing left to stop.
   */
  void stop() {
    if (pacer != null) {
      pacer.interrupt();
    }
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  /**
   * Answers no right request could get: a 409 for the same content, a 200 for other content, or a
   * second 201 for one intent.
   */
  int unexpected() {
    return unexpected(List.copyOf(answers));
  }

  /**
   * The answers no right writer could give. Requests for one intent race when the writer is slow (a
   * frozen database): whichever commits first is created (201) and decides the intent's content;
   * every other request is a replay (200) if it carries that content, a conflict (409) if not. So
   * an exact replay may be the 201 and its original the 200, and a conflicting payload may win and
   * the original get the 409. Wrong: a second 201 for one intent, a 200 or 201 whose content
   * differs from another acknowledged one's, a 409 for the acknowledged content, any other status.
   */
  static int unexpected(List<Answer> answers) {
    Map<String, List<Answer>> byIntent = new HashMap<>();
    for (Answer answer : answers) {
      byIntent.computeIfAbsent(intentKey(answer.request()), k -> new ArrayList<>()).add(answer);
    }
    int wrong = 0;
    for (List<Answer> intent : byIntent.values()) {
      Set<String> acknowledged = new HashSet<>();
      int created = 0;
      for (Answer answer : intent) {
        if (answer.status() == 201 || answer.status() == 200) {
          acknowledged.add(answer.request().body());
          created += answer.status() == 201 ? 1 : 0;
        }
      }
      wrong += Math.max(0, created - 1) + Math.max(0, acknowledged.size() - 1);
      for (Answer answer : intent) {
        boolean conflict = answer.status() == 409;
        if (conflict && acknowledged.contains(answer.request().body())) {
          wrong++;
        } else if (!conflict && answer.status() != 200 && answer.status() != 201) {
          wrong++;
        }
      }
    }
    return wrong;
  }

  /** Requests sent again after a failure without an answer or a 503. */
  int resent() {
    return resent.get();
  }

  /** 503 answers (the writer could not reach its database, or was overloaded); each was resent. */
  int unavailable() {
    return unavailable.get();
  }

  /** Requests that got no answer within the client's timeout (10 s); each was resent. */
  int timedOut() {
    return timedOut.get();
  }

  private Void send(Request request) throws IOException, InterruptedException {
    HttpRequest post =
        HttpRequest.newBuilder(writer.resolve("/v1/publications"))
            .header("Authorization", "Bearer demo-token-" + request.tenant())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(request.body(), StandardCharsets.UTF_8))
            .timeout(Duration.ofSeconds(10))
            .build();
    IOException last = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        HttpResponse<String> response = http.send(post, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 503 && attempt < ATTEMPTS) {
          // The writer says "not now" (its database is unreachable, or it is overloaded): a real
          // client waits (Retry-After) and sends the same intent again.
          unavailable.incrementAndGet();
          resent.incrementAndGet();
          last = new IOException("503 from the writer: " + response.body());
          Thread.sleep(retryAfter(response).toMillis());
          continue;
        }
        record(request, response);
        return null;
      } catch (IOException e) {
        last = e;
        if (e instanceof HttpTimeoutException) {
          timedOut.incrementAndGet();
        }
        resent.incrementAndGet();
        // The writer is down or restarting: a real client backs off and sends the same intent.
        Thread.sleep(PAUSE.toMillis());
      }
    }
    throw new IOException(
        "no 2xx/4xx answer from the writer after " + ATTEMPTS + " attempts", last);
  }

  private static Duration retryAfter(HttpResponse<String> response) {
    return response
        .headers()
        .firstValue("Retry-After")
        .filter(v -> v.matches("\\d{1,3}"))
        .map(v -> Duration.ofSeconds(Long.parseLong(v)))
        .orElse(PAUSE);
  }

  /** The intent a request is for: tenant, article, revision and destination of its body. */
  private static String intentKey(Request request) {
    JsonNode body;
    try {
      body = Json.mapper().readTree(request.body());
    } catch (IOException e) {
      throw new IllegalStateException("a request of the load is not JSON: " + request.body(), e);
    }
    return request.tenant()
        + "/"
        + body.path("articleId").asText()
        + "/"
        + body.path("revisionId").asText()
        + "/"
        + body.path("destination").asText();
  }

  private void record(Request request, HttpResponse<String> response) throws IOException {
    int status = response.statusCode();
    UUID jobId = null;
    String key = null;
    if (status / 100 == 2) {
      JsonNode job = Json.mapper().readTree(response.body());
      jobId = UUID.fromString(job.path("jobId").asText());
      key =
          job.path("tenant").asText()
              + "/"
              + job.path("articleId").asText()
              + "/"
              + job.path("revisionId").asText()
              + "/"
              + job.path("destination").asText();
    }
    answers.add(new Answer(request, status, jobId, key));
  }
}
