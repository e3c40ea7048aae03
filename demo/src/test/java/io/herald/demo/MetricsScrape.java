package io.herald.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The metric names in one scrape of a process's {@code /metrics} (Prometheus text format). */
final class MetricsScrape {

  /** Suffixes Prometheus adds to a counter, histogram or summary sample's family name. */
  private static final List<String> SUFFIXES = List.of("_total", "_bucket", "_count", "_sum");

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private MetricsScrape() {}

  /** The sample names of one scrape of {@code metrics}; fails on any answer but 200. */
  static Set<String> names(URI metrics) throws IOException, InterruptedException {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + metrics + " answered " + response.statusCode());
    }
    Set<String> names = new TreeSet<>();
    for (String line : response.body().split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = 0;
      while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
        end++;
      }
      names.add(line.substring(0, end));
    }
    return names;
  }

  /** Whether {@code name} (as a rule names it) is a sample name or a family of {@code scraped}. */
  static boolean exports(Set<String> scraped, String name) {
    return scraped.contains(name) || SUFFIXES.stream().anyMatch(s -> scraped.contains(name + s));
  }
}
