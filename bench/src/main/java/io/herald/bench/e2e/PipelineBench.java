package io.herald.bench.e2e;

import io.herald.bench.suite.Bench;
import io.herald.bench.suite.ProcessGroup;
import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.simulator.DestinationSimulator;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Locale;

/** What the scenarios that run the pipeline's child JVMs (B5, B6, B7) read about them alike. */
final class PipelineBench {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private PipelineBench() {}

  /**
   * The settings of a pipeline on the shipped files with names of its own on {@code stack} (the
   * topics created), the destinations at {@code simulator}, logging to {@code <run>-logs} in the
   * report directory.
   */
  static PipelineSettings settings(
      StackContext stack, DestinationSimulator simulator, Bench bench, String run) {
    return PipelineSettings.isolated(
        stack,
        simulator.baseUri(),
        ShippedConfig.directory(),
        bench.reportDir().resolve(run + "-logs"));
  }

  /** The pipeline's processes and the stack's, by name, for CPU and memory readings. */
  static ProcessGroup processes(Pipeline pipeline, StackContext stack) {
    ProcessGroup group = new ProcessGroup();
    for (ChildJvm process : pipeline.processes()) {
      group.add(process.name(), process.pid(), false);
    }
    return group.addStack(stack);
  }

  /** {@link String#format} in the root locale: figures with a decimal point, whatever the box's. */
  static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }

  /**
   * The sum of every series of {@code name} (a counter, or a timer's {@code _sum} or {@code
   * _count}) on a process's Prometheus endpoint; 0 when it has none yet.
   */
  static double metricSum(URI metrics, String name) throws IOException, InterruptedException {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(metrics + " answered " + response.statusCode());
    }
    double sum = 0;
    for (String line : response.body().split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** The one-minute load average, for the workload line: how shared the machine was. */
  /** The machine's memory ({@code MemTotal} of /proc/meminfo), not this JVM's heap. */
  static String memory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
          return Math.round(kib / (1024.0 * 1024.0)) + " GiB";
        }
      }
      return "unknown memory";
    } catch (IOException | NumberFormatException e) {
      return "unknown memory";
    }
  }

  /** The fixed work of {@link #cpuProbeMillis}: SHA-256 over this many bytes, in 64 KiB blocks. */
  private static final int PROBE_BYTES = 64 << 20;

  /**
   * The CPU time, in ms, one thread of this JVM takes for a fixed piece of work (the best of
   * three): how fast the machine is at that moment. On a shared virtual machine it changes by a
   * quarter or more from one hour to the next, and every CPU figure of a run with it, so runs are
   * compared with their probes beside them.
   */
  static double cpuProbeMillis() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    byte[] block = new byte[64 << 10];
    double best = Double.MAX_VALUE;
    try {
      for (int round = 0; round < 3; round++) {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        long start = threads.getCurrentThreadCpuTime();
        for (int done = 0; done < PROBE_BYTES; done += block.length) {
          sha.update(block);
        }
        block[0] = sha.digest()[0]; // the result is used: the work cannot be skipped
        best = Math.min(best, (threads.getCurrentThreadCpuTime() - start) / 1e6);
      }
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    return best;
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      return "unknown";
    }
  }
}
