package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.ShippedConfig;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.engine.RelayEngine;
import io.herald.relay.health.RelayStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskHooksTest {

  @Test
  void shouldLetTheTaskFindTheHooksFromTheirSettingOnlyWhileTheEngineRuns() {
    List<Boolean> reported = new ArrayList<>();
    TaskHooks hooks = DebeziumPatches.ON.taskHooks(reported::add);
    String id = hooks.settings().get(TaskHooks.PROPERTY);

    assertThat(TaskHooks.lookup(id)).as("made, not yet started").isSameAs(TaskHooks.NONE);
    hooks.open();
    TaskHooks.lookup(id).confirmations().confirmed(false);
    hooks.close();
    TaskHooks.lookup(id).confirmations().confirmed(true);

    assertThat(reported).containsExactly(false);
  }

  @Test
  void shouldRegisterNoHooksForAnEngineMadeAndClosedWithoutStarting() throws Exception {
    int before = TaskHooks.registered();
    RelayEngine engine =
        new RelayEngine(
            RelayConfig.load(ShippedConfig.of("relay").file(), Map.of()).engine(),
            (records, committer) -> {},
            new RelayStatus(Clock.systemUTC()),
            readBack -> {});

    assertThat(TaskHooks.registered()).isEqualTo(before);
    engine.close();
    assertThat(engine.completion()).isCompleted();
    assertThat(TaskHooks.registered()).isEqualTo(before);
  }

  @Test
  void shouldGiveTheStockTaskNoHooksAndNoSetting() {
    TaskHooks hooks = DebeziumPatches.OFF.taskHooks(readBack -> {});
    int before = TaskHooks.registered();
    hooks.open();

    assertThat(hooks.settings()).isEmpty();
    assertThat(TaskHooks.registered()).isEqualTo(before);
    assertThat(TaskHooks.lookup(null)).isSameAs(TaskHooks.NONE);
  }
}
