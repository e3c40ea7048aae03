package io.herald.relay.debezium;

import io.debezium.embedded.async.AsyncEmbeddedEngine;
import io.debezium.engine.DebeziumEngine;
import java.lang.reflect.Field;
import java.util.concurrent.ThreadPoolExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes Debezium's embedded engine transform each batch on the thread that polls the connector task
 * instead of on its record-processing pool.
 *
 * <p><b>Works around</b> (Debezium 3.6.1): the async engine submits every record of a batch to that
 * pool (one thread unless {@code record.processing.threads} is set) and then waits on each record's
 * future before the batch reaches the sink. The polling thread has nothing else to do meanwhile, so
 * the hop buys no parallelism; it costs a wake-up of the pool thread per batch and, through a
 * backlog, a park and an unpark of the polling thread for most records as the two threads take
 * turns.
 *
 * <p>The engine builds the pool itself and offers no setting for another, so {@link #apply} reaches
 * it by reflection before the engine runs (the pool has no thread yet), shuts it down and gives it
 * a rejection handler that runs the rejected task on the submitting thread (the JDK's {@code
 * CallerRunsPolicy} would discard it, the pool being shut down). A shut-down pool rejects every
 * task, so each record is transformed on the polling thread, in batch order, and its future is
 * complete when {@code submit} returns; a failing transform surfaces through that future as before.
 * The engine's own shutdown of the pool, when it stops, finds it terminated; a batch polled
 * meanwhile is still transformed and handed to the sink (stock, its {@code submit} would be
 * refused), which settles it or is interrupted as the engine stops, as with any batch in hand. If
 * an upgrade moves the pool, {@link #apply} logs a warning and leaves the engine's pool (and {@code
 * InlineTransformsTest} fails, so the build says so first).
 *
 * <p><b>Would let it go</b>: an engine setting that transforms on the polling thread (none in
 * 3.6.1). A deployment that sets {@code record.processing.threads} keeps its pool; with {@code
 * relay.engine.debezium-patches=false} the pool is Debezium's own.
 */
final class InlineTransforms {

  private static final Logger log = LoggerFactory.getLogger(InlineTransforms.class);

  /** The engine setting that sizes the pool. */
  static final String POOL_SIZE_PROPERTY = "record.processing.threads";

  private InlineTransforms() {}

  /**
   * Makes every later transform of {@code engine} run on the submitting thread; call before the
   * engine runs.
   *
   * @return whether it does
   */
  static boolean apply(DebeziumEngine<?> engine) {
    ThreadPoolExecutor pool;
    try {
      pool = pool(engine);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Cannot reach the engine's record-processing pool; transforms run on it", e);
      return false;
    }
    if (pool == null) {
      log.warn(
          "The engine ({}) has no record-processing pool of the kind this relay knows; transforms"
              + " run on it",
          engine.getClass().getName());
      return false;
    }
    pool.setRejectedExecutionHandler((task, rejecting) -> task.run());
    pool.shutdown();
    return true;
  }

  /** The engine's record-processing pool, or null when it is not one this class knows. */
  static ThreadPoolExecutor pool(DebeziumEngine<?> engine) throws ReflectiveOperationException {
    if (!(engine instanceof AsyncEmbeddedEngine<?>)) {
      return null;
    }
    Field field = AsyncEmbeddedEngine.class.getDeclaredField("recordService");
    field.setAccessible(true);
    return field.get(engine) instanceof ThreadPoolExecutor pool ? pool : null;
  }
}
