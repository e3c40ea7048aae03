package io.herald.faults;

import io.herald.demo.Pipeline;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Waits until every process of a pipeline answers {@code /health} with 200 again after a fault that
 * none of them was restarted for: what "recovers by itself" means in the fault table.
 */
final class SelfRecovery {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * @param millis from {@code since} until the last process was healthy, or until the timeout
   * @param unhealthy the processes still unhealthy at the timeout (empty: all recovered)
   */
  record Result(long millis, List<String> unhealthy) {}

  private SelfRecovery() {}

  /** Polls every process's {@code /health} from {@code since} (nanoTime) up to {@code timeout}. */
  static Result await(Pipeline pipeline, long since, Duration timeout) throws InterruptedException {
    long deadline = since + timeout.toNanos();
    Map<String, URI> health = new LinkedHashMap<>();
    pipeline.metricsUris().forEach((name, metrics) -> health.put(name, metrics.resolve("/health")));
    while (!health.isEmpty() && System.nanoTime() < deadline) {
      health.entrySet().removeIf(process -> healthy(process.getValue()));
      if (!health.isEmpty()) {
        // Nothing to wait on but the processes' own reconnection.
        Thread.sleep(200);
      }
    }
    return new Result(
        Duration.ofNanos(System.nanoTime() - since).toMillis(), List.copyOf(health.keySet()));
  }

  private static boolean healthy(URI health) {
    try {
      HttpRequest get = HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).GET().build();
      return HTTP.send(get, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      // Not answering (yet) is an answer here: the poll asks again until the timeout.
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
