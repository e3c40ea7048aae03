package io.herald.runtime.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class JvmOptionsTest {

  @Test
  void shouldPutTheHeapFirstThenTheCommonOptionsThenTheProcesssOwnAndExitOnOutOfMemoryLast() {
    assertThat(JvmOptions.recommended(25, List.of("-Xmx64m"), List.of("-XX:Own")))
        .containsExactly(
            "-Xmx64m",
            "-XX:+UseSerialGC",
            "-XX:+UseCompactObjectHeaders",
            "-XX:Own",
            "-XX:+ExitOnOutOfMemoryError");
  }

  @Test
  void shouldLeaveCompactObjectHeadersOutBeforeJava25() {
    assertThat(JvmOptions.recommended(24, List.of("-Xmx64m"), List.of()))
        .containsExactly("-Xmx64m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError");
  }
}
