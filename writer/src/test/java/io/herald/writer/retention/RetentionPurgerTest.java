package io.herald.writer.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class RetentionPurgerTest {

  /** A database any use of which fails the test. */
  private static final DataSource UNTOUCHABLE =
      (DataSource)
          Proxy.newProxyInstance(
              DataSource.class.getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                throw new AssertionError("database used: " + method.getName());
              });

  @Test
  void shouldTouchNoTableAndStartNoThreadWhenNothingIsRetained() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (RetentionPurger purger =
        new RetentionPurger(
            UNTOUCHABLE,
            new RetentionSettings(Optional.empty(), Optional.empty()),
            Clock.systemUTC(),
            registry)) {
      purger.start();

      assertThat(purger.purgeOnce()).isZero();
      assertThat(purger.healthy(Duration.ofMillis(1))).isTrue();
      assertThat(purger.lastSuccess()).isEmpty();
    }
    assertThat(registry.getMeters()).isEmpty();
  }

  @Test
  void shouldRegisterEachTablesMetersUnderItsOwnName() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RetentionSettings.Purge purge =
        new RetentionSettings.Purge(Duration.ofDays(1), Duration.ofMinutes(1), 10, 10);

    try (RetentionPurger purger =
        new RetentionPurger(
            UNTOUCHABLE,
            new RetentionSettings(Optional.of(purge), Optional.of(purge)),
            Clock.systemUTC(),
            registry)) {
      assertThat(registry.get("herald.writer.outbox.purged").counter().count()).isZero();
      assertThat(registry.get("herald.writer.outbox.purge.failures").counter().count()).isZero();
      assertThat(registry.get("herald.writer.status.inbox.purged").counter().count()).isZero();
      assertThat(registry.get("herald.writer.status.inbox.purge.failures").counter().count())
          .isZero();
    }
  }
}
