package io.herald.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Herald process (writer, relay or consumer) in a child JVM on this JVM's class path,
 * configured by its shipped property file plus environment overrides, its output in a log file.
 */
final class ChildProcess implements AutoCloseable {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final String name;
  private final Process process;
  private final Path log;
  private final URI health;

  private ChildProcess(String name, Process process, Path log, URI health) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.health = health;
  }

  static ChildProcess start(
      String name,
      String mainClass,
      Path configFile,
      Map<String, String> env,
      int opsPort,
      Path logDir,
      List<String> jvmOptions)
      throws IOException {
    Files.createDirectories(logDir);
    Path log = logDir.resolve(name + ".log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.add(configFile.toAbsolutePath().toString());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(env);
    Process process = builder.start();
    return new ChildProcess(
        name, process, log, URI.create("http://127.0.0.1:" + opsPort + "/health"));
  }

  String name() {
    return name;
  }

  Path log() {
    return log;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Waits until {@code /health} answers 200; fails early if the process exits. */
  void awaitHealthy(Duration timeout) throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    String lastAnswer = "no answer";
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            name + " exited with code " + process.exitValue() + " while starting; see " + log);
      }
      try {
        HttpResponse<String> response =
            HTTP.send(
                HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
        lastAnswer = response.statusCode() + " " + response.body();
      } catch (IOException e) {
        lastAnswer = e.toString();
      }
      Thread.sleep(250); // polling a child's health endpoint: nothing to wait on but time
    }
    throw new IllegalStateException(
        name
            + " was not healthy within "
            + timeout
            + " (last answer: "
            + lastAnswer
            + "); see "
            + log);
  }

  /** SIGTERM, then SIGKILL if the process has not stopped within the grace period. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
