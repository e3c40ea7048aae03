package io.herald.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.ShippedConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelayJvmOptionsTest {

  @Test
  void shouldUseCompactObjectHeadersOnlyWhereTheyAreAProductOption() {
    assertThat(RelayJvmOptions.recommended(25)).contains("-XX:+UseCompactObjectHeaders");
    assertThat(RelayJvmOptions.recommended(21)).doesNotContain("-XX:+UseCompactObjectHeaders");
    assertThat(RelayJvmOptions.recommended(21))
        .containsExactlyElementsOf(
            RelayJvmOptions.recommended(25).stream()
                .filter(option -> !option.equals("-XX:+UseCompactObjectHeaders"))
                .toList());
  }

  @Test
  void shouldBeWhatDockerComposeGivesTheRelay() throws IOException {
    // The images run Temurin 25.
    Path root = ShippedConfig.of("relay").file().getParent().getParent();
    List<String> javaOpts =
        Files.readAllLines(root.resolve("docker-compose.yml")).stream()
            .map(String::strip)
            .filter(line -> line.startsWith("JAVA_OPTS:"))
            .map(line -> line.substring("JAVA_OPTS:".length()).strip())
            .toList();

    assertThat(javaOpts).containsExactly(String.join(" ", RelayJvmOptions.recommended(25)));
  }
}
