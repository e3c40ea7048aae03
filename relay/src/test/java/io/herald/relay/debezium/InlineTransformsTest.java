package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.herald.devstack.ShippedConfig;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.engine.EngineProperties;
import io.herald.relay.engine.RelayEngine;
import io.herald.relay.health.RelayStatus;
import java.lang.reflect.Field;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * The engine as the relay builds it, before it runs: where its transforms would run, both for an
 * engine patched here and for the one {@link RelayEngine} builds (the wiring).
 */
class InlineTransformsTest {

  private static DebeziumEngine<RecordChangeEvent<SourceRecord>> engine(
      Map<String, String> settings) {
    Properties properties = new Properties();
    properties.putAll(settings);
    return DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
        .using(properties)
        .notifying((records, committer) -> {})
        .build();
  }

  private static Map<String, String> settings() {
    Map<String, String> settings = new HashMap<>();
    settings.put("name", "inline-transforms-test");
    settings.put("connector.class", DebeziumPatches.STOCK_CONNECTOR);
    settings.put("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    return settings;
  }

  /** The pool of an engine built with {@code settings} once {@code patches} patched it. */
  private static ThreadPoolExecutor patchedPool(
      DebeziumPatches patches, Map<String, String> settings) throws ReflectiveOperationException {
    var engine = engine(settings);
    patches.patchEngine(engine, settings::get);
    return InlineTransforms.pool(engine);
  }

  private static void assertRunsOnItsOwnThread(ThreadPoolExecutor pool) throws Exception {
    try {
      assertThat(pool.isShutdown()).isFalse();
      assertThat(pool.submit(Thread::currentThread).get()).isNotSameAs(Thread.currentThread());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void withThePatchesEachTransformRunsOnTheThreadThatSubmitsIt() throws Exception {
    ThreadPoolExecutor pool = patchedPool(DebeziumPatches.ON, settings());

    assertThat(pool.submit(Thread::currentThread).get()).isSameAs(Thread.currentThread());
    assertThat(pool.getPoolSize()).isZero();
    assertThatThrownBy(
            () ->
                pool.submit(
                        () -> {
                          throw new IllegalStateException("transform failed");
                        })
                    .get())
        .isInstanceOf(ExecutionException.class)
        .hasRootCauseMessage("transform failed");
  }

  /** The engine a {@link RelayEngine} built from {@code properties} runs. */
  private static ThreadPoolExecutor relayEnginesPool(EngineProperties properties)
      throws ReflectiveOperationException {
    RelayEngine relayEngine =
        new RelayEngine(
            properties,
            (records, committer) -> {},
            new RelayStatus(Clock.systemUTC()),
            SlotConfirmations.NONE);
    Field engine = RelayEngine.class.getDeclaredField("engine");
    engine.setAccessible(true);
    return InlineTransforms.pool((DebeziumEngine<?>) engine.get(relayEngine));
  }

  /** The engine settings of the shipped relay.properties, the patches on or off. */
  private static EngineProperties shippedProperties(boolean patches) {
    return RelayConfig.load(
            ShippedConfig.of("relay").file(),
            Map.of("HERALD_RELAY_ENGINE_DEBEZIUM_PATCHES", Boolean.toString(patches)))
        .engine();
  }

  @Test
  void theRelaysEngineTransformsOnItsPollingThread() throws Exception {
    ThreadPoolExecutor pool = relayEnginesPool(shippedProperties(true));

    assertThat(pool.isShutdown()).isTrue();
    assertThat(pool.submit(Thread::currentThread).get()).isSameAs(Thread.currentThread());
  }

  @Test
  void theRelaysEngineWithoutThePatchesKeepsDebeziumsPool() throws Exception {
    assertRunsOnItsOwnThread(relayEnginesPool(shippedProperties(false)));
  }

  @Test
  void aDeploymentThatSizesThePoolKeepsIt() throws Exception {
    Map<String, String> settings = settings();
    settings.put(InlineTransforms.POOL_SIZE_PROPERTY, "1");

    assertRunsOnItsOwnThread(patchedPool(DebeziumPatches.ON, settings));
  }

  @Test
  void stockDebeziumTransformsOnItsPool() throws Exception {
    assertRunsOnItsOwnThread(patchedPool(DebeziumPatches.OFF, settings()));
  }
}
