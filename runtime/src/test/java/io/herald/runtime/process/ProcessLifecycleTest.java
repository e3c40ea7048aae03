package io.herald.runtime.process;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcessLifecycleTest {

  @Test
  void shouldCloseInReverseOrderAndContinuePastAFailure() {
    List<String> closed = new ArrayList<>();
    ProcessLifecycle lifecycle = ProcessLifecycle.create("test");
    lifecycle.register("pool", () -> closed.add("pool"));
    lifecycle.register(
        "consumer",
        () -> {
          closed.add("consumer");
          throw new IllegalStateException("close failed");
        });
    lifecycle.register("http", () -> closed.add("http"));

    lifecycle.close();

    assertEquals(List.of("http", "consumer", "pool"), closed);
    assertEquals(ProcessLifecycle.State.STOPPED, lifecycle.state());
  }

  @Test
  void shouldCloseOnlyOnce() {
    List<String> closed = new ArrayList<>();
    ProcessLifecycle lifecycle = ProcessLifecycle.create("test");
    lifecycle.register("pool", () -> closed.add("pool"));

    lifecycle.close();
    lifecycle.close();

    assertEquals(List.of("pool"), closed);
  }

  @Test
  void shouldCloseAComponentRegisteredAfterShutdownAtOnce() {
    List<String> closed = new ArrayList<>();
    ProcessLifecycle lifecycle = ProcessLifecycle.create("test");
    lifecycle.close();

    lifecycle.register("late", () -> closed.add("late"));

    assertEquals(List.of("late"), closed);
  }
}
