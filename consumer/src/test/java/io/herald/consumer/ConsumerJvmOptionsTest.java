package io.herald.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.ShippedConfig;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class ConsumerJvmOptionsTest {

  @Test
  void shouldFixTheHeapAndUseCompactObjectHeadersOnlyWhereTheyAreAProductOption() {
    assertThat(ConsumerJvmOptions.recommended(25))
        .contains("-Xms160m", "-Xmx160m", "-XX:+UseCompactObjectHeaders");
    assertThat(ConsumerJvmOptions.recommended(21)).doesNotContain("-XX:+UseCompactObjectHeaders");
  }

  @Test
  void shouldBeWhatDockerComposeGivesTheConsumer() throws IOException {
    // The images run Temurin 25.
    assertThat(ShippedConfig.of("consumer").composeJavaOpts())
        .containsExactlyElementsOf(ConsumerJvmOptions.recommended(25));
  }
}
