package io.herald.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The writer's packages form no cycle (the job <-> outbox one was untied): each depends only on
 * packages below it, so each can be read, and changed, without the ones above. Reads the compiled
 * main classes with the JDK's jdeps.
 */
class PackageCyclesTest {

  private static final String WRITER = "io.herald.writer";

  @Test
  void shouldHaveNoCycleBetweenWriterPackages() throws Exception {
    Map<String, Set<String>> dependencies = writerPackageDependencies();
    assertThat(dependencies).containsKeys(WRITER + ".job", WRITER + ".outbox");

    List<String> cycles = new ArrayList<>();
    for (String from : dependencies.keySet()) {
      for (String to : dependencies.get(from)) {
        if (reaches(dependencies, to, from)) {
          cycles.add(from + " -> " + to + " -> ... -> " + from);
        }
      }
    }

    assertThat(cycles).isEmpty();
  }

  private static Map<String, Set<String>> writerPackageDependencies() throws Exception {
    Path classes =
        Path.of(WriterProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "-verbose:package",
            "-filter:none",
            classes.toString());
    assertThat(exit).as(err.toString()).isZero();
    Map<String, Set<String>> dependencies = new TreeMap<>();
    for (String line : out.toString().split("\\R")) {
      String[] parts = line.trim().split("\\s+");
      if (parts.length >= 3
          && parts[1].equals("->")
          && isWriter(parts[0])
          && isWriter(parts[2])
          && !parts[0].equals(parts[2])) {
        dependencies.computeIfAbsent(parts[0], p -> new TreeSet<>()).add(parts[2]);
        dependencies.computeIfAbsent(parts[2], p -> new TreeSet<>());
      }
    }
    return dependencies;
  }

  private static boolean isWriter(String pkg) {
    return pkg.equals(WRITER) || pkg.startsWith(WRITER + ".");
  }

  private static boolean reaches(Map<String, Set<String>> graph, String from, String target) {
    Set<String> seen = new HashSet<>();
    Deque<String> todo = new ArrayDeque<>(List.of(from));
    while (!todo.isEmpty()) {
      String next = todo.pop();
      if (next.equals(target)) {
        return true;
      }
      if (seen.add(next)) {
        todo.addAll(graph.getOrDefault(next, Set.of()));
      }
    }
    return false;
  }
}
