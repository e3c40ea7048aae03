package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class ProcessStatsTest {

  @Test
  void shouldCountAChildsCpuWhenItExits() throws Exception {
    // A shell loop that burns CPU for a while, then exits with a code of its own.
    Process busy =
        new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; exit 3")
            .start();

    ProcessStats.Finished finished = ProcessStats.watch(busy, Duration.ofMinutes(2));

    assertThat(finished.exitCode()).isEqualTo(3);
    assertThat(finished.cpuSeconds()).isPositive();
    assertThat(finished.seconds()).isPositive();
  }

  @Test
  void shouldCountWhatALiveDescendantHasReapedOfItsOwn() throws Exception {
    // The child runs `timeout 2 yes` to its end and lives on: its CPU is then in the
    // child's reaped-children time only, not yet in its parent's.
    Process parent =
        new ProcessBuilder(
                "perl",
                "-e",
                "if (!fork) { open STDOUT, '>/dev/null'; system 'timeout', '2', 'yes'; sleep 30;"
                    + " exit } sleep 30")
            .start();
    ProcessHandle handle = parent.toHandle();
    try {
      // `timeout` and `yes` seen below the child, then gone: the child has reaped them.
      AtomicBoolean grandchildrenSeen = new AtomicBoolean();
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                long below = handle.descendants().count();
                grandchildrenSeen.compareAndSet(false, below > 1);
                return grandchildrenSeen.get() && below == 1;
              });

      ProcessStats.Sample reading = ProcessStats.sample(parent.pid(), true).orElseThrow();

      assertThat(reading.cpuSeconds()).as("yes's CPU, reaped by the child").isGreaterThan(0.2);
    } finally {
      handle.descendants().forEach(ProcessHandle::destroyForcibly);
      parent.destroyForcibly().waitFor();
    }
  }

  @Test
  void shouldKillTheChildWhenItOutlivesTheTimeout() throws Exception {
    Process sleeper = new ProcessBuilder("sleep", "600").start();

    assertThatThrownBy(() -> ProcessStats.watch(sleeper, Duration.ofMillis(300)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ran longer than");
    assertThat(sleeper.isAlive()).isFalse();
  }

  @Test
  void shouldDivideEachProcesssCpuByTheEventsWhenComparingTwoReadings() {
    Map<String, ProcessStats.Sample> before = new LinkedHashMap<>();
    before.put("writer", new ProcessStats.Sample(10.0, 0, 0, 0));
    before.put("postgres", new ProcessStats.Sample(4.0, 0, 0, 0));
    Map<String, ProcessStats.Sample> after = new LinkedHashMap<>();
    after.put("writer", new ProcessStats.Sample(13.0, 0, 0, 0));
    after.put("postgres", new ProcessStats.Sample(5.5, 0, 0, 0));

    Map<String, Double> perThousand = ProcessGroup.cpuSecondsPer1000(before, after, 2_000);

    assertThat(perThousand).containsExactly(Map.entry("writer", 1.5), Map.entry("postgres", 0.75));
    assertThat(ProcessGroup.describeCpu(perThousand)).isEqualTo("writer 1.50, postgres 0.75");
  }

  @Test
  void shouldDivideEachProcesssJitCpuByTheEventsWhenComparingTwoReadings() {
    assertThat(relayJitPer1000(2.0, 2.5)).containsExactly(Map.entry("relay", 0.5));
  }

  @Test
  void shouldCountNoJitCpuWhenACompilerThreadWasRetiredBetweenTheReadings() {
    assertThat(relayJitPer1000(2.0, 1.2)).containsExactly(Map.entry("relay", 0.0));
  }

  /** A relay's JIT seconds per 1,000 of 1,000 events, its compilers at the two readings given. */
  private static Map<String, Double> relayJitPer1000(double jitBefore, double jitAfter) {
    return ProcessGroup.jitSecondsPer1000(
        Map.of("relay", new ProcessStats.Sample(10.0, jitBefore, 0, 0)),
        Map.of("relay", new ProcessStats.Sample(14.0, jitAfter, 0, 0)),
        1_000);
  }

  @Test
  void shouldReadTheShareOfThisJvmsCpuItsJitCompilersUsed() {
    ProcessStats.Sample self =
        ProcessStats.sample(ProcessHandle.current().pid(), false).orElseThrow();

    // The test JVM compiled its way through JUnit's start: its compiler threads have used CPU.
    assertThat(self.jitCpuSeconds()).isPositive().isLessThanOrEqualTo(self.cpuSeconds());
    assertThat(ProcessStats.jitCpuSeconds(Long.MAX_VALUE)).as("a process that is gone").isZero();
  }

  @Test
  void shouldReadEachThreadsNameAndCpu() throws InterruptedException {
    long self = ProcessHandle.current().pid();
    AtomicBoolean stop = new AtomicBoolean();
    Thread busy =
        new Thread(
            () -> {
              while (!stop.get()) {
                Thread.onSpinWait();
              }
            },
            "stats (busy) 1");
    busy.start();
    try {
      // A name with a space and parentheses: read to the last ')' of the stat line.
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  ProcessStats.threads(self).values().stream()
                      .anyMatch(t -> t.name().equals("stats (busy) 1") && t.cpuSeconds() >= 0.05));
    } finally {
      stop.set(true);
      busy.join();
    }
    assertThat(ProcessStats.threads(Long.MAX_VALUE)).as("a process that is gone").isEmpty();
  }

  @Test
  void shouldReadThisJvmsOwnCpuAndMemory() {
    ProcessStats.Sample self =
        ProcessStats.sample(ProcessHandle.current().pid(), false).orElseThrow();

    assertThat(self.cpuSeconds()).isPositive();
    assertThat(self.peakRssBytes()).isGreaterThanOrEqualTo(self.rssBytes()).isPositive();
    assertThat(ProcessGroup.describePeakRss(Map.of("bench", self))).matches("bench [0-9]+ MiB");
  }

  @Test
  void shouldReadAThreadThatEndsWhileItIsReadAsGone() throws Exception {
    // Threads of this JVM start and end without pause; a thread that ends between the opening and
    // the reading of one of its /proc files fails the read with "No such process" (what failed a
    // quick run of the suite mid-scenario). The plain read below shows the race was run into; the
    // readings through ProcessStats beside it meet it as often, and one that threw fails the test.
    AtomicBoolean churning = new AtomicBoolean(true);
    Thread churn =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (churning.get()) {
                    try {
                      Thread.ofPlatform().start(() -> {}).join();
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
    long self = ProcessHandle.current().pid();
    Path tasks = Path.of("/proc", Long.toString(self), "task");
    AtomicInteger raced = new AtomicInteger();
    try {
      Awaitility.await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(1))
          .until(
              () -> {
                try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
                  for (Path thread : threads) {
                    try {
                      Files.readString(thread.resolve("comm"));
                    } catch (NoSuchFileException e) {
                      // Gone before the opening: not the race.
                    } catch (IOException e) {
                      raced.incrementAndGet();
                    }
                    ProcessStats.read(thread.resolve("stat"));
                  }
                }
                ProcessStats.jitCpuSeconds(self);
                return raced.get() >= 3;
              });
    } finally {
      churning.set(false);
      churn.join();
    }
  }
}
