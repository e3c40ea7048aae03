package io.herald.devstack.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.herald.devstack.process.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PostmasterWatchIT {

  private static final String STOPPING = "herald: the JVM that started PostgreSQL is gone";

  @TempDir Path dir;

  /** The binaries the module's stack unpacked (unpacked here first otherwise). */
  private static Path binaries() {
    return Path.of(System.getProperty("herald.stack.dir", "target/herald-stack"))
        .resolve("postgres-binaries");
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void shouldStopThePostmasterWhenTheJvmThatStartedItIsKilled() throws Exception {
    Path postgres = dir.resolve("postgres");
    try (ChildJvm launcher =
        ChildJvm.builder("pg-launcher", PostgresLauncherMain.class.getName())
            .jvmOptions(List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
            .args(postgres.toString(), binaries().toAbsolutePath().toString())
            .logFile(dir.resolve("pg-launcher.log"))
            .start()) {
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> launcher.logText().contains("postmaster-pid="));
      long postmaster =
          launcher
              .logText()
              .lines()
              .filter(line -> line.startsWith("postmaster-pid="))
              .map(line -> Long.parseLong(line.substring("postmaster-pid=".length())))
              .findFirst()
              .orElseThrow();
      try {
        assertThat(alive(postmaster)).isTrue();

        launcher.kill(); // SIGKILL: the launcher runs no shutdown hook, stops nothing itself

        await().atMost(Duration.ofSeconds(30)).until(() -> !alive(postmaster));
        assertThat(Files.readString(postgres.resolve("postgres.log")))
            .contains(STOPPING + ": stopping postmaster " + postmaster);
      } finally {
        ProcessHandle.of(postmaster).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  @Test
  void shouldEndItsWatchWithoutSignallingWhenStoppedAndWatchTheNewPostmasterAfterARestart() {
    Path postgres = dir.resolve("postgres");
    EmbeddedPostgresServer server = EmbeddedPostgresServer.start(postgres, binaries());
    try {
      PostmasterWatch first = server.watch().orElseThrow();
      assertThat(alive(first.pid())).isTrue();

      server.stop();

      assertThat(alive(first.pid())).isFalse();
      assertThat(server.watch()).isEmpty();

      server.start();

      PostmasterWatch second = server.watch().orElseThrow();
      assertThat(alive(second.pid())).isTrue();
      assertThat(second.postmaster()).isNotEqualTo(first.postmaster());
      assertThat(alive(second.postmaster())).isTrue();
    } finally {
      server.stop();
    }
    assertThat(postgres.resolve("postgres.log")).content().doesNotContain(STOPPING);
  }
}
