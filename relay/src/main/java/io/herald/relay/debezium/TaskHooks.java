package io.herald.relay.debezium;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What the relay hands to the connector task of one engine: where it reports its slot
 * confirmations.
 *
 * <p>Debezium makes the task itself, by class name, and passes it only the engine's settings, which
 * are strings; nothing of the relay's can be handed to its constructor. So the relay registers the
 * hooks here under a fresh id, puts the id into the connector settings ({@link #settings()}), and
 * the task looks them up as it starts (again after each restart Debezium makes of it). The hooks
 * are registered from {@link #open()}, as the engine starts, to {@link #close()}, once it has
 * stopped, so the registry holds one entry per engine that runs; an engine made and never started
 * leaves none.
 *
 * <p>Thread-safe.
 */
public final class TaskHooks implements AutoCloseable {

  /** The connector setting that carries the id; absent, the task reports to nobody. */
  static final String PROPERTY = "herald.task.hooks";

  /** The hooks of engines that have not stopped, by id. */
  private static final ConcurrentMap<String, TaskHooks> REGISTERED = new ConcurrentHashMap<>();

  /** No hooks and no setting: the stock task, or a task nobody observes. */
  static final TaskHooks NONE = new TaskHooks(null, SlotConfirmations.NONE);

  private final String id;
  private final SlotConfirmations confirmations;

  private TaskHooks(String id, SlotConfirmations confirmations) {
    this.id = id;
    this.confirmations = confirmations;
  }

  /** Hooks for the task of one engine, registered once {@link #open()} is called. */
  static TaskHooks of(SlotConfirmations confirmations) {
    return new TaskHooks(UUID.randomUUID().toString(), confirmations);
  }

  /** Registers these hooks, for a task to find; call as the engine starts. */
  public void open() {
    if (id != null) {
      REGISTERED.put(id, this);
    }
  }

  /**
   * The hooks registered under {@code id}; {@link #NONE} when it is null or no longer registered.
   */
  static TaskHooks lookup(String id) {
    return id == null ? NONE : REGISTERED.getOrDefault(id, NONE);
  }

  /** The connector settings that let the task find these hooks; none for {@link #NONE}. */
  public Map<String, String> settings() {
    return id == null ? Map.of() : Map.of(PROPERTY, id);
  }

  SlotConfirmations confirmations() {
    return confirmations;
  }

  /**
   * How many engines' hooks are registered: one per engine of this process that has started and not
   * yet stopped; for checks that none is left behind.
   */
  public static int registered() {
    return REGISTERED.size();
  }

  @Override
  public void close() {
    if (id != null) {
      REGISTERED.remove(id, this);
    }
  }
}
