package io.herald.devstack.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassArchivesTest {

  /** A layout option a JVM refuses an archive made without: the dump must use it too. */
  private static final List<String> OPTIONS =
      Runtime.version().feature() >= 25
          ? List.of("-Xmx64m", "-XX:+UseCompactObjectHeaders")
          : List.of("-Xmx64m");

  @TempDir Path dir;

  @Test
  void shouldLeaveTheLaunchAsItIsWhenNoDirectoryIsSet() {
    String classPath = ChildJvm.currentClassPath();

    ClassArchives.Plan plan =
        new ClassArchives(null).plan(ChildMain.class.getName(), classPath, List.of());

    assertThat(plan.classPath()).isEqualTo(classPath);
    assertThat(plan.options()).isEmpty();
  }

  @Test
  void shouldPutTheJarsFirstAndTheDirectoriesAfterThemEachInTheirOrder() throws IOException {
    Path one = Files.writeString(dir.resolve("one.jar"), "1");
    Path two = Files.writeString(dir.resolve("two.jar"), "2");
    Path classes = Files.createDirectories(dir.resolve("classes"));
    Path tests = Files.createDirectories(dir.resolve("test-classes"));

    ClassArchives.Plan plan =
        new ClassArchives(dir.resolve("archives"))
            .plan("a.b.Main", join(classes, one, tests, two), List.of());

    assertThat(plan.classPath()).isEqualTo(join(one, two, classes, tests));
  }

  @Test
  void shouldRecordTheFirstChildThenGiveLaterChildrenAnArchiveTheirJvmMaps() throws Exception {
    ClassArchives archives = new ClassArchives(dir);
    String main = ChildMain.class.getName();
    String classPath = ChildJvm.currentClassPath();

    ClassArchives.Plan recording = archives.plan(main, classPath, OPTIONS);
    assertThat(recording.options())
        .singleElement()
        .asString()
        .startsWith("-XX:DumpLoadedClassList=");
    assertThat(archives.plan(main, classPath, OPTIONS).options())
        .as("while the first child records, the next starts without an archive")
        .isEmpty();
    assertThat(run(recording, List.of())).isZero();

    await()
        .atMost(Duration.ofMinutes(2))
        .until(
            () ->
                archives.plan(main, classPath, OPTIONS).options().stream()
                    .anyMatch(o -> o.startsWith("-XX:SharedArchiveFile=")));
    ClassArchives.Plan mapped = archives.plan(main, classPath, OPTIONS);
    String archive = mapped.options().getFirst().substring("-XX:SharedArchiveFile=".length());
    // -Xshare:on after the plan's -Xshare:auto: the JVM refuses to start unless it maps one.
    assertThat(run(mapped, List.of("-Xshare:on"))).isZero();
    assertThat(output(mapped, List.of("-Xshare:on", "-Xlog:cds=info")))
        .as("the JVM maps the dumped archive, not the JDK's own")
        .contains("Opened shared archive file " + archive);
  }

  @Test
  void shouldKeepApartTheArchivesOfChildrenWithOtherJvmOptions() {
    ClassArchives archives = new ClassArchives(dir);
    String classPath = ChildJvm.currentClassPath();

    String plain = recordingFile(archives.plan("a.b.Main", classPath, List.of()));

    assertThat(recordingFile(archives.plan("a.b.Main", classPath, OPTIONS))).isNotEqualTo(plain);
  }

  @Test
  void shouldRecordAgainForAJarThatWasRebuilt() throws Exception {
    Path jar = Files.writeString(dir.resolve("lib.jar"), "old");
    ClassArchives archives = new ClassArchives(dir.resolve("archives"));
    String before = recordingFile(archives.plan("a.b.Main", jar.toString(), List.of()));

    Files.setLastModifiedTime(
        jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));

    assertThat(recordingFile(archives.plan("a.b.Main", jar.toString(), List.of())))
        .isNotEqualTo(before);
  }

  private static String recordingFile(ClassArchives.Plan plan) {
    assertThat(plan.options()).singleElement().asString().startsWith("-XX:DumpLoadedClassList=");
    return plan.options().getFirst();
  }

  /** Runs ChildMain's {@code exit 0} under {@code plan}, {@code extra} options last. */
  private int run(ClassArchives.Plan plan, List<String> extra) throws Exception {
    Path log = dir.resolve("child-" + System.nanoTime() + ".log");
    int exit = start(plan, extra, log);
    assertThat(Files.readString(log, StandardCharsets.UTF_8))
        .as("child output: no JVM warning or error, which would corrupt a command's output")
        .doesNotContain("[warning]", "[error");
    return exit;
  }

  /** What ChildMain's {@code exit 0} printed under {@code plan}, {@code extra} options last. */
  private String output(ClassArchives.Plan plan, List<String> extra) throws Exception {
    Path log = dir.resolve("child-" + System.nanoTime() + ".log");
    start(plan, extra, log);
    return Files.readString(log, StandardCharsets.UTF_8);
  }

  private static int start(ClassArchives.Plan plan, List<String> extra, Path log) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(OPTIONS);
    command.addAll(plan.options());
    command.addAll(extra);
    command.addAll(List.of("-cp", plan.classPath(), ChildMain.class.getName(), "exit", "0"));
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    plan.started().accept(process);
    assertThat(process.waitFor(1, TimeUnit.MINUTES)).as("child exited").isTrue();
    return process.exitValue();
  }

  private static String join(Path... entries) {
    List<String> parts = new ArrayList<>();
    for (Path entry : entries) {
      parts.add(entry.toString());
    }
    return String.join(File.pathSeparator, parts);
  }
}
