package io.herald.devstack.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.herald.devstack.FreePort;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildJvmTest {

  @TempDir Path dir;

  @Test
  void shouldBuildCommandFromJavaOptionsLogbackConfigClassPathMainAndArgs() {
    List<String> command =
        ChildJvm.builder("x", "a.b.Main")
            .jvmOptions(List.of("-Xmx64m", "-XX:+UseSerialGC"))
            .logbackConfig(Path.of("conf", "logback-x.xml"))
            .classPath("/cp/one.jar")
            .args("file.properties", "--flag")
            .command();

    assertThat(command.getFirst())
        .isEqualTo(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    assertThat(command.subList(1, command.size()))
        .containsExactly(
            "-Xmx64m",
            "-XX:+UseSerialGC",
            "-Dlogback.configurationFile=" + Path.of("conf", "logback-x.xml").toAbsolutePath(),
            "-cp",
            "/cp/one.jar",
            "a.b.Main",
            "file.properties",
            "--flag");
  }

  @Test
  void shouldGiveEveryChildTheTestRunsOptionsAfterItsOwn() {
    String before = System.getProperty(ChildJvm.TEST_OPTIONS_PROPERTY);
    System.setProperty(ChildJvm.TEST_OPTIONS_PROPERTY, " -XX:TieredStopAtLevel=1  -Dx=y ");
    try {
      List<String> command =
          ChildJvm.builder("x", "a.b.Main").jvmOptions(List.of("-Xmx64m")).command();

      assertThat(command.subList(1, 4))
          .containsExactly("-Xmx64m", "-XX:TieredStopAtLevel=1", "-Dx=y");
    } finally {
      if (before == null) {
        System.clearProperty(ChildJvm.TEST_OPTIONS_PROPERTY);
      } else {
        System.setProperty(ChildJvm.TEST_OPTIONS_PROPERTY, before);
      }
    }
  }

  @Test
  void shouldDefaultToThisJvmsClassPathWithAbsoluteEntriesAndNoLogbackOption() {
    List<String> command = ChildJvm.builder("x", "a.b.Main").command();

    assertThat(command).noneMatch(part -> part.startsWith("-Dlogback"));
    // This class path holds ExitWithParent, so the child stops itself when this JVM is killed.
    assertThat(command.subList(command.indexOf("-cp") + 2, command.size()))
        .containsExactly(ExitWithParent.class.getName(), "a.b.Main");
    // ExitWithParent halts after the grace close() would give.
    assertThat(command).contains("-Dherald.child-jvm.grace-ms=30000");
    assertThat(ChildJvm.builder("x", "a.b.Main").grace(Duration.ofSeconds(3)).command())
        .contains("-Dherald.child-jvm.grace-ms=3000");
    assertThatThrownBy(() -> ChildJvm.builder("x", "a.b.Main").grace(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("grace must be positive");
    String classPath = command.get(command.indexOf("-cp") + 1);
    assertThat(classPath).isEqualTo(ChildJvm.currentClassPath());
    assertThat(classPath.split(java.io.File.pathSeparator))
        .allMatch(entry -> Path.of(entry).isAbsolute());
  }

  @Test
  void shouldTakeTheModulesOwnJarBesideItsClassesNotItsTestsOrSourcesJar() throws IOException {
    Path classes = Files.createDirectories(dir.resolve("target").resolve("classes"));
    Files.createFile(classes.resolveSibling("m-1.0-tests.jar"));
    Files.createFile(classes.resolveSibling("m-1.0-sources.jar"));
    assertThat(ChildJvm.packagedJar(classes)).isEmpty();
    assertThatThrownBy(() -> ChildJvm.jarsOnly(classes.toString()))
        .hasMessageContaining("no jar beside");

    Files.createFile(classes.resolveSibling("m-1.0.jar"));

    assertThat(ChildJvm.packagedJar(classes))
        .contains(classes.resolveSibling("m-1.0.jar").toAbsolutePath());
    assertThat(ChildJvm.jarsOnly(classes + java.io.File.pathSeparator + "/lib/x.jar"))
        .isEqualTo(
            classes.resolveSibling("m-1.0.jar").toAbsolutePath()
                + java.io.File.pathSeparator
                + "/lib/x.jar");
  }

  @Test
  void shouldNotTakeAClassPathWithOnlyTheDevStacksTestsJarForOneHoldingExitWithParent()
      throws Exception {
    Path location =
        Path.of(ExitWithParent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    // The test run loads it from dev-stack's target/classes, beside which its jars are packaged.
    assertThat(location).endsWith(Path.of("target", "classes"));

    assertThat(ChildJvm.holdsExitWithParent(location.toString())).isTrue();
    assertThat(
            ChildJvm.holdsExitWithParent(
                location.resolveSibling("herald-dev-stack-0.1.0-SNAPSHOT-tests.jar").toString()))
        .isFalse();
    assertThat(ChildJvm.holdsExitWithParent("/lib/x.jar")).isFalse();
  }

  @Test
  void shouldAnswerHealthyThenStopOnSigtermWithinTheGrace() throws Exception {
    int port = freePort();
    try (ChildJvm child =
        start("health", Integer.toString(port)).env(Map.of("CHILD_GREETING", "hello")).start()) {
      child.awaitHealthy(URI.create("http://127.0.0.1:" + port + "/health"), Duration.ofMinutes(1));
      assertThat(child.isAlive()).isTrue();

      OptionalInt exit = child.stop(Duration.ofSeconds(30));

      assertThat(exit).hasValue(143); // 128 + SIGTERM: the JVM's shutdown hooks ran
      assertThat(child.logText())
          .contains("logback=" + dir.resolve("logback-child.xml").toAbsolutePath())
          .contains("tmpdir=" + child.logFile().toAbsolutePath().getParent().resolve("tmp"))
          .contains("greeting=hello")
          .contains("stopping");
      assertThat(child.logFile().toAbsolutePath().getParent().resolve("tmp")).isDirectory();
    }
  }

  @Test
  void shouldLeaveAChildItStopsToItsSignalThoughThePipeClosesToo() throws Exception {
    try (ChildJvm child = start("slow-term", "1000").start()) {
      await().atMost(Duration.ofMinutes(1)).until(() -> child.logText().contains("ready"));

      OptionalInt exit = child.stop(Duration.ofSeconds(30)); // SIGTERM, then the pipe closed

      assertThat(exit).hasValue(143);
      // Its own shutdown ran to the end, not one begun again for a launcher taken for gone.
      assertThat(child.logText()).contains("exit-at=").doesNotContain("The launcher is gone");
    }
  }

  @Test
  void shouldKillAfterTheGraceWhenSigtermDoesNotStopTheChild() throws Exception {
    try (ChildJvm child = start("ignore-term").start()) {
      await().atMost(Duration.ofMinutes(1)).until(() -> child.logText().contains("ready"));

      OptionalInt exit = child.stop(Duration.ofSeconds(1));

      assertThat(exit).isEmpty();
      assertThat(child.isAlive()).isFalse();
    }
  }

  @Test
  void shouldSignalEveryChildBeforeWaitingForAnyWhenClosingThemAll() throws Exception {
    try (ChildJvm first = named("first", "slow-term", "2000").start();
        ChildJvm second = named("second", "slow-term", "2000").start()) {
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> first.logText().contains("ready") && second.logText().contains("ready"));

      ChildJvm.closeAll(List.of(first, second));

      assertThat(first.isAlive()).isFalse();
      assertThat(second.isAlive()).isFalse();
      // One after the other, the second would get its SIGTERM only once the first had exited.
      assertThat(stamp(second, "term-at")).isLessThan(stamp(first, "exit-at"));
    }
  }

  @Test
  void shouldStopItsChildrenWhenThisJvmIsStoppedWithSigterm() throws Exception {
    withAGrandchild(
        (parent, grandchild, grandchildLog) -> {
          assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive)).hasValue(true);

          OptionalInt exit = parent.stop(Duration.ofSeconds(30));

          assertThat(exit).hasValue(143); // the parent's hooks, its children's stop included, ended
          awaitGone(grandchild);
          // SIGTERM, not SIGKILL: its own shutdown hook ran to the end.
          assertThat(Files.readString(grandchildLog)).contains("term-at=").contains("exit-at=");
        });
  }

  @Test
  void shouldHaveItsChildrenStopThemselvesWhenThisJvmIsKilled() throws Exception {
    withAGrandchild(
        (parent, grandchild, grandchildLog) -> {
          parent.kill(); // SIGKILL: the parent runs no shutdown hook

          awaitGone(grandchild);
          // Stopped as SIGTERM stops it: its own shutdown hook ran to the end.
          assertThat(Files.readString(grandchildLog))
              .contains("The launcher is gone (standard input closed): stopping")
              .contains("term-at=")
              .contains("exit-at=");
        });
  }

  @Test
  void shouldHaltAChildWhoseShutdownHangsOnceTheGraceHasPassedAfterThisJvmIsKilled()
      throws Exception {
    withAGrandchild(
        new String[] {"ignore-term"},
        (parent, grandchild, grandchildLog) -> {
          parent.kill();

          await()
              .atMost(ChildMain.GRANDCHILD_GRACE.plusSeconds(30))
              .until(() -> ProcessHandle.of(grandchild).map(p -> !p.isAlive()).orElse(true));
          // Its hook never ends: only the halt after the grace can have ended it.
          assertThat(Files.readString(grandchildLog))
              .contains("The launcher is gone (standard input closed): stopping")
              .contains("Still stopping after " + ChildMain.GRANDCHILD_GRACE + ": halting");
        });
  }

  /** What a test does with a parent child JVM and that parent's own ready child. */
  private interface WithAGrandchild {
    void run(ChildJvm parent, long grandchild, Path grandchildLog) throws Exception;
  }

  /**
   * Runs {@code test} once a {@code parent} child has started its own child (logging to {@code
   * grandchild.log}) and that child is ready; the grandchild is killed at the end whatever
   * happened, so a failing test leaves nothing running.
   */
  private void withAGrandchild(WithAGrandchild test) throws Exception {
    withAGrandchild(new String[0], test);
  }

  /** As above, the grandchild in {@code mode} (ChildMain's arguments; its default if empty). */
  private void withAGrandchild(String[] mode, WithAGrandchild test) throws Exception {
    Path grandchildLog = dir.resolve("grandchild.log");
    List<String> args = new ArrayList<>(List.of("parent", grandchildLog.toString()));
    args.addAll(List.of(mode));
    try (ChildJvm parent = start(args.toArray(String[]::new)).start()) {
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> parent.logText().contains("child-pid=") && ready(grandchildLog));
      long grandchild = stamp(parent, "child-pid");
      try {
        test.run(parent, grandchild, grandchildLog);
      } finally {
        ProcessHandle.of(grandchild).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  private static void awaitGone(long pid) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
  }

  @Test
  void shouldRefuseToStartAChildOnceThisJvmsExitHasBegun() throws Exception {
    Path grandchildLog = dir.resolve("grandchild.log");
    try (ChildJvm parent = start("late-start", grandchildLog.toString()).start()) {
      OptionalInt exit = parent.awaitExit(Duration.ofMinutes(1));

      assertThat(exit).hasValue(0);
      assertThat(parent.logText())
          .contains("late-refused=this JVM is exiting: child grandchild not started")
          .doesNotContain("late-pid=");
      assertThat(dir.resolve("grandchild.log.late")).doesNotExist();
      assertThat(Files.readString(grandchildLog)).contains("exit-at=");
    }
  }

  private static boolean ready(Path log) throws IOException {
    return Files.exists(log) && Files.readString(log).contains("ready");
  }

  private static long stamp(ChildJvm child, String name) throws Exception {
    return child
        .logText()
        .lines()
        .filter(line -> line.startsWith(name + "="))
        .map(line -> Long.parseLong(line.substring(name.length() + 1)))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + " not in the log of " + child));
  }

  @Test
  void shouldFailTheHealthWaitNamingExitCodeAndLogWhenTheChildExits() throws Exception {
    try (ChildJvm child = start("exit", "3").start()) {
      assertThatThrownBy(
              () ->
                  child.awaitHealthy(
                      URI.create("http://127.0.0.1:" + freePort() + "/health"),
                      Duration.ofMinutes(1)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("exited with code 3")
          .hasMessageContaining(child.logFile().toString());
      assertThat(child.awaitExit(Duration.ofSeconds(5))).hasValue(3);
    }
  }

  @Test
  void shouldRequireAliveQuietlyWhileTheChildRunsAndThenNameItsExitCodeAndTheEndOfItsLog()
      throws Exception {
    int port = freePort();
    try (ChildJvm child =
        start("health", Integer.toString(port)).env(Map.of("CHILD_GREETING", "hi")).start()) {
      child.awaitHealthy(URI.create("http://127.0.0.1:" + port + "/health"), Duration.ofMinutes(1));
      child.requireAlive();

      child.kill();

      assertThatThrownBy(child::requireAlive)
          .isInstanceOf(ChildJvm.Exited.class)
          .hasMessageStartingWith(child + " has exited with code 137")
          .hasMessageContaining("the last lines of its log:\n")
          .hasMessageContaining("    greeting=hi");
    }
  }

  private ChildJvm.Builder start(String... args) {
    return named("child", args);
  }

  /** A child logging to {@code <name>.log}, for tests that run several. */
  private ChildJvm.Builder named(String name, String... args) {
    return ChildJvm.builder(name, ChildMain.class.getName())
        .jvmOptions(ChildMain.SMALL_JVM)
        .logbackConfig(dir.resolve("logback-child.xml"))
        .args(args)
        .logFile(dir.resolve(name + ".log"));
  }

  private static int freePort() throws IOException {
    return FreePort.find();
  }
}
