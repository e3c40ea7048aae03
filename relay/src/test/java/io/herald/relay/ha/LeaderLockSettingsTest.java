package io.herald.relay.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaderLockSettingsTest {

  private final LeaderLock.Settings settings =
      new LeaderLock.Settings(1, Duration.ofSeconds(2), Duration.ofSeconds(10));

  @Test
  void shouldDoubleTheBackoffFromThePollIntervalWhileTheDatabaseIsUnreachable() {
    assertThat(settings.backoff(1)).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.backoff(2)).isEqualTo(Duration.ofSeconds(4));
    assertThat(settings.backoff(3)).isEqualTo(Duration.ofSeconds(8));
  }

  @Test
  void shouldCapTheBackoffAtTheDeadPeerTimeout() {
    assertThat(settings.backoff(4)).isEqualTo(Duration.ofSeconds(10));
    assertThat(settings.backoff(1_000)).isEqualTo(Duration.ofSeconds(10));
  }
}
