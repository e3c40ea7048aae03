package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
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
  void shouldGiveTheStockTaskNoHooksAndNoSetting() {
    TaskHooks hooks = DebeziumPatches.OFF.taskHooks(readBack -> {});
    int before = TaskHooks.registered();
    hooks.open();

    assertThat(hooks.settings()).isEmpty();
    assertThat(TaskHooks.registered()).isEqualTo(before);
    assertThat(TaskHooks.lookup(null)).isSameAs(TaskHooks.NONE);
  }
}
