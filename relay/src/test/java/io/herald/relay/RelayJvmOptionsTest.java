package io.herald.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.ShippedConfig;
import java.io.IOException;
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
    assertThat(ShippedConfig.of("relay").composeJavaOpts())
        .containsExactlyElementsOf(RelayJvmOptions.recommended(25));
  }
}
