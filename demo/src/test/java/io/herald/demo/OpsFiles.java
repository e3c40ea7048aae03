package io.herald.demo;

import io.herald.devstack.ShippedConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The checkout's shipped files ({@code connect-config/}, {@code ops/}) as the tests find them. */
final class OpsFiles {

  /**
   * A metric name of Herald's own meters or of the Kafka client meters its processes bind, as
   * PromQL writes it: Micrometer's dotted name with underscores.
   */
  private static final Pattern METRIC = Pattern.compile("\\b(?:herald|kafka)_[a-z0-9_]+");

  private OpsFiles() {}

  /** The checkout's root: the first directory above the working directory with connect-config/. */
  static Path repositoryRoot() {
    return ShippedConfig.directory().getParent();
  }

  static Path prometheusDir() {
    return repositoryRoot().resolve("ops").resolve("prometheus");
  }

  static Path dashboard() {
    return repositoryRoot().resolve("ops").resolve("grafana").resolve("herald.json");
  }

  /**
   * Every {@code herald_*} and {@code kafka_*} name in {@code file}, in expressions and prose
   * alike: an annotation that tells the operator to look at a metric must name a real one too.
   */
  static Set<String> metricNames(Path file) throws IOException {
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(Files.readString(file));
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }
}
