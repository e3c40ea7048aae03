package io.herald.demo;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.devstack.FreePort;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's {@code prometheus} binary, from the PATH) scraping given
 * {@code /metrics} endpoints every second under the job names {@code ops/prometheus/prometheus.yml}
 * uses, with {@code ops/prometheus/alerts.yml} loaded, evaluated every second.
 */
final class RealPrometheus implements AutoCloseable {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Process process;
  private final URI base;

  private RealPrometheus(Process process, URI base) {
    this.process = process;
    this.base = base;
  }

  /** The prometheus binary on the PATH, or empty where there is none. */
  static Optional<Path> binary() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "prometheus");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Starts {@code binary} in {@code workDir} (its config, data and log), scraping each of {@code
   * targets} (process name to its {@code /metrics}) as job {@code herald-<name>}, and waits until
   * it is ready.
   */
  static RealPrometheus start(Path binary, Map<String, URI> targets, Path rules, Path workDir)
      throws IOException {
    Files.createDirectories(workDir);
    List<String> config = new ArrayList<>();
    config.add("global: {scrape_interval: 1s, evaluation_interval: 1s}");
    config.add("rule_files: [" + Json.mapper().writeValueAsString(rules.toString()) + "]");
    config.add("scrape_configs:");
    for (Map.Entry<String, URI> target : targets.entrySet()) {
      URI metrics = target.getValue();
      config.add("  - job_name: herald-" + target.getKey());
      config.add("    metrics_path: " + metrics.getPath());
      config.add("    static_configs: [{targets: ['" + metrics.getAuthority() + "']}]");
    }
    Path configFile = workDir.resolve("prometheus.yml");
    Files.write(configFile, config);
    int port = freePort();
    Process process =
        new ProcessBuilder(
                binary.toString(),
                "--config.file=" + configFile,
                "--storage.tsdb.path=" + workDir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
            .redirectErrorStream(true)
            .redirectOutput(workDir.resolve("prometheus.log").toFile())
            .start();
    RealPrometheus prometheus = new RealPrometheus(process, URI.create("http://127.0.0.1:" + port));
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> !process.isAlive() || prometheus.get("/-/ready").statusCode() == 200);
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "prometheus exited with "
                + process.exitValue()
                + ": "
                + Files.readString(workDir.resolve("prometheus.log")));
      }
    } catch (RuntimeException e) {
      prometheus.close();
      throw e;
    }
    return prometheus;
  }

  /** The {@code data.result} array of an instant query. */
  JsonNode query(String promql) throws IOException, InterruptedException {
    return api("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
        .path("result");
  }

  /** The {@code data} of {@code /api/v1/rules}: every group with each rule's health. */
  JsonNode rules() throws IOException, InterruptedException {
    return api("/api/v1/rules");
  }

  private JsonNode api(String pathAndQuery) throws IOException, InterruptedException {
    HttpResponse<String> response = get(pathAndQuery);
    if (response.statusCode() != 200) {
      throw new IOException("GET " + pathAndQuery + " answered " + response.statusCode());
    }
    return Json.mapper().readTree(response.body()).path("data");
  }

  private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int freePort() throws IOException {
    return FreePort.find();
  }

  /** SIGTERM, then a forced stop if it has not exited within 10 seconds. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
