package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.devstack.simulator.DestinationSimulator;
import java.util.Map;
import java.util.Random;

/**
 * One class of fault of RELIABILITY.md's table: what one injection does to the running pipeline,
 * and how it heals. The runner calls {@link #inject} at random moments while the load runs; each
 * call injects one fault, heals it (restarts what it killed) and returns what it did.
 */
interface FaultClass {

  /** The table's id, {@code F1}... */
  String id();

  /** One line: the fault and the invariant it tests. */
  String description();

  /** {@code HERALD_*} settings this class needs on top of the showcase's. */
  default Map<String, String> overrides() {
    return Map.of();
  }

  /**
   * Figures of the injections since the last call (name to value, e.g. {@code peak_rss_relay_mib}),
   * printed in the round's report; the runner calls it once per round, after the load.
   */
  default Map<String, String> figures() {
    return Map.of();
  }

  /**
   * Injects one fault and heals it before returning.
   *
   * @return a short description of the injection for the report, e.g. {@code "kill relay (down 1.2
   *     s)"}
   */
  String inject(Pipeline pipeline, DestinationSimulator simulator, Random random) throws Exception;
}
