package io.herald.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The relay's packages depend on each other without cycles (read from the main sources' imports).
 */
class PackageDependenciesTest {

  private static final Path SOURCES = Path.of("src", "main", "java", "io", "herald", "relay");
  private static final Pattern IMPORT =
      Pattern.compile("^import (?:static )?io\\.herald\\.relay\\.([a-z]+)\\.", Pattern.MULTILINE);

  @Test
  void shouldHaveNoCycleBetweenTheRelaysPackages() throws IOException {
    Map<String, Set<String>> uses = new TreeMap<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Path dir = SOURCES.relativize(file.getParent());
        if (dir.toString().isEmpty()) {
          continue; // the root package composes everything and nothing imports it
        }
        String from = dir.toString();
        Matcher imported = IMPORT.matcher(Files.readString(file));
        while (imported.find()) {
          if (!imported.group(1).equals(from)) {
            uses.computeIfAbsent(from, k -> new TreeSet<>()).add(imported.group(1));
          }
        }
      }
    }

    List<String> cycles = new ArrayList<>();
    for (String start : uses.keySet()) {
      if (reaches(uses, start, start, new HashSet<>())) {
        cycles.add(start + " -> " + uses.get(start));
      }
    }

    assertThat(uses).containsKey("slot").containsKey("sink");
    assertThat(cycles).isEmpty();
  }

  private static boolean reaches(
      Map<String, Set<String>> uses, String from, String target, Set<String> seen) {
    for (String next : uses.getOrDefault(from, Set.of())) {
      if (next.equals(target) || (seen.add(next) && reaches(uses, next, target, seen))) {
        return true;
      }
    }
    return false;
  }
}
