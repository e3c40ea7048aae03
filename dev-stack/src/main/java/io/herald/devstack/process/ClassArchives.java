package io.herald.devstack.process;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Class data sharing archives (AppCDS) for the child JVMs a test run starts, one per main class and
 * set of jars: a suite starts hundreds of relays, consumers, writers and {@code herald} commands,
 * and each spends most of its start loading and verifying the same few thousand classes. The first
 * child of a kind records the classes it loads ({@code -XX:DumpLoadedClassList}); once it has
 * exited, a background JVM dumps them ({@code -Xshare:dump}) and every later child of that kind
 * maps the archive ({@code -XX:SharedArchiveFile}) instead of loading them.
 *
 * <p>On only where {@value #DIRECTORY_PROPERTY} names a directory (the build sets it for its tests;
 * the demo and the benchmarks leave it unset, so their figures are a plain JVM's). A child's class
 * path is then its jars first and its directories after them (an archive covers jars only, and only
 * as a prefix of the class path; Herald's classes are all under {@code io.herald}, so the order
 * changes no lookup). The key covers the JDK, the main class and every jar's path, size and
 * modification time, so a rebuilt jar gets a new archive. An archive the JVM refuses is ignored
 * silently (its {@code cds} and {@code aot} logging off: a warning on standard output would corrupt
 * a command's {@code --json}); a failed dump is logged and not retried.
 */
final class ClassArchives {

  /** The system property naming the directory archives are kept in. */
  static final String DIRECTORY_PROPERTY = "herald.child-jvm.class-archives";

  private static final Logger LOG = LoggerFactory.getLogger(ClassArchives.class);
  private static final long DUMP_TIMEOUT_MINUTES = 10;
  private static final Path NICE = Path.of("/usr/bin/nice");
  private static final ClassArchives CONFIGURED = fromSystemProperty();

  /** What a launch adds: its class path, JVM options, and what to do once the child started. */
  record Plan(String classPath, List<String> options, Consumer<Process> started) {}

  private enum State {
    RECORDING,
    READY,
    FAILED
  }

  private final Path directory;
  private final ConcurrentMap<String, State> states = new ConcurrentHashMap<>();

  /** One dump at a time, on a daemon thread: a test run must not wait for it. */
  private final ExecutorService dumps =
      Executors.newSingleThreadExecutor(
          runnable -> Thread.ofPlatform().name("class-archive-dump").daemon().unstarted(runnable));

  /** Archives kept in {@code directory}; off when it is null. */
  ClassArchives(Path directory) {
    this.directory = directory;
  }

  /** The archives of this JVM's configuration; off when {@value #DIRECTORY_PROPERTY} is unset. */
  static ClassArchives configured() {
    return CONFIGURED;
  }

  private static ClassArchives fromSystemProperty() {
    String directory = System.getProperty(DIRECTORY_PROPERTY, "");
    return new ClassArchives(directory.isBlank() ? null : Path.of(directory).toAbsolutePath());
  }

  /**
   * How to launch {@code mainClass} on {@code classPath} with {@code jvmOptions}: unchanged when
   * archives are off. The options are part of the key and the dump runs with them: some change the
   * layout an archive is made for ({@code -XX:+UseCompactObjectHeaders}, the heap size that decides
   * compressed pointers), and a JVM refuses an archive made for another.
   */
  Plan plan(String mainClass, String classPath, List<String> jvmOptions) {
    Plan unchanged = new Plan(classPath, List.of(), process -> {});
    if (directory == null) {
      return unchanged;
    }
    List<String> jars = new ArrayList<>();
    List<String> others = new ArrayList<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        (Files.isRegularFile(Path.of(entry)) ? jars : others).add(entry);
      }
    }
    if (jars.isEmpty()) {
      return unchanged;
    }
    String jarPath = String.join(File.pathSeparator, jars);
    List<String> ordered = new ArrayList<>(jars);
    ordered.addAll(others);
    String orderedPath = String.join(File.pathSeparator, ordered);
    String name =
        mainClass.substring(mainClass.lastIndexOf('.') + 1)
            + "-"
            + key(mainClass, jars, jvmOptions);
    Path archive = directory.resolve(name + ".jsa");
    if (states.get(name) == State.READY || Files.isRegularFile(archive)) {
      return new Plan(orderedPath, useArchive(archive), process -> {});
    }
    if (states.putIfAbsent(name, State.RECORDING) != null) {
      return new Plan(orderedPath, List.of(), process -> {});
    }
    Path classList = directory.resolve(name + ".classlist");
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + directory, e);
    }
    return new Plan(
        orderedPath,
        List.of("-XX:DumpLoadedClassList=" + classList),
        process ->
            process
                .onExit()
                .thenRunAsync(() -> dump(name, classList, archive, jarPath, jvmOptions), dumps));
  }

  private static List<String> useArchive(Path archive) {
    List<String> options = new ArrayList<>();
    options.add("-XX:SharedArchiveFile=" + archive);
    options.add("-Xshare:auto");
    options.add("-Xlog:cds=off");
    if (Runtime.version().feature() >= 25) {
      options.add("-Xlog:aot=off");
    }
    return options;
  }

  /** Dumps what the recording child loaded; the archive appears whole or not at all. */
  private void dump(
      String name, Path classList, Path archive, String jarPath, List<String> jvmOptions) {
    Path partial = directory.resolve(name + ".jsa.partial");
    Path log = directory.resolve(name + ".dump.log");
    long start = System.nanoTime();
    try {
      List<String> command = new ArrayList<>();
      if (Files.isExecutable(NICE)) {
        // A dump takes 10-30 s of CPU; the tests it would slow come first.
        command.addAll(List.of(NICE.toString(), "-n", "19"));
      }
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmOptions);
      command.addAll(
          List.of(
              "-Xshare:dump",
              "-XX:SharedClassListFile=" + classList,
              "-XX:SharedArchiveFile=" + partial,
              "-cp",
              jarPath));
      Process dump =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!dump.waitFor(DUMP_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        dump.destroyForcibly();
        failed(name, "did not finish within " + DUMP_TIMEOUT_MINUTES + " minutes", log);
      } else if (dump.exitValue() != 0 || !Files.isRegularFile(partial)) {
        failed(name, "exited with code " + dump.exitValue(), log);
      } else {
        Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
        states.put(name, State.READY);
        LOG.info(
            "class archive {} ready in {} ms ({} classes): later children map it",
            archive,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
            Files.readAllLines(classList, StandardCharsets.UTF_8).size());
      }
    } catch (IOException e) {
      failed(name, e.toString(), log);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failed(name, "interrupted", log);
    }
  }

  private void failed(String name, String why, Path log) {
    states.put(name, State.FAILED);
    LOG.warn(
        "class archive {}: the dump {}; children of its kind start without one (see {})",
        name,
        why,
        log);
  }

  private static String key(String mainClass, List<String> jars, List<String> jvmOptions) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      update(digest, System.getProperty("java.home"));
      update(digest, Runtime.version().toString());
      update(digest, mainClass);
      for (String option : jvmOptions) {
        update(digest, option);
      }
      for (String jar : jars) {
        Path path = Path.of(jar);
        update(digest, jar);
        update(digest, Files.size(path) + "/" + Files.getLastModifiedTime(path).toMillis());
      }
      return HexFormat.of().formatHex(digest.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the jars of " + mainClass, e);
    }
  }

  private static void update(MessageDigest digest, String text) {
    digest.update(text.getBytes(StandardCharsets.UTF_8));
    digest.update((byte) 0);
  }
}
