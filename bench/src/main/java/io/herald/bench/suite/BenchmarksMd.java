package io.herald.bench.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a scenario's section of BENCHMARKS.md between its markers ({@code <!-- bench:B5 begin -->}
 * ... {@code <!-- bench:B5 end -->}), replacing the previous run's; a section seen for the first
 * time goes to the end of the file. Everything outside the markers is the authors' prose and is
 * left alone.
 */
public final class BenchmarksMd {

  private BenchmarksMd() {}

  public static void write(Path file, String id, String section) throws IOException {
    String begin = "<!-- bench:" + id + " begin -->";
    String end = "<!-- bench:" + id + " end -->";
    String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    String block = begin + "\n" + section.strip() + "\n" + end;
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    String updated;
    if (from >= 0 && to > from) {
      updated = text.substring(0, from) + block + text.substring(to + end.length());
    } else if (from >= 0 || to >= 0) {
      throw new IllegalStateException(
          file
              + " has only one of the markers of "
              + id
              + "; fix it by hand: "
              + begin
              + " "
              + end);
    } else {
      updated = text.stripTrailing() + "\n\n" + block + "\n";
    }
    Files.writeString(file, updated, StandardCharsets.UTF_8);
  }
}
