package io.herald.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.ShippedConfig;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class WriterJvmOptionsTest {

  @Test
  void shouldFixTheHeapAndUseCompactObjectHeadersOnlyWhereTheyAreAProductOption() {
    assertThat(WriterJvmOptions.recommended(25))
        .contains("-Xms160m", "-Xmx160m", "-XX:+UseCompactObjectHeaders");
    assertThat(WriterJvmOptions.recommended(21)).doesNotContain("-XX:+UseCompactObjectHeaders");
  }

  @Test
  void shouldBeWhatDockerComposeGivesTheWriter() throws IOException {
    // The images run Temurin 25.
    assertThat(ShippedConfig.of("writer").composeJavaOpts())
        .containsExactlyElementsOf(WriterJvmOptions.recommended(25));
  }
}
