package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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
   * The addresses the pipeline's processes get, from the direct ones: a class that cuts links puts
   * its proxies on them here. The runner calls it once, before the pipeline starts, and {@link
   * #close()} after the pipeline has stopped.
   */
  default PipelineSettings links(StackContext stack, PipelineSettings direct) {
    return direct;
  }

  /** Releases what {@link #links} set up; the runner calls it once, after the pipeline stopped. */
  default void close() throws Exception {}

  /**
   * Injects one fault and heals it before returning: every process of the pipeline runs again
   * (restarted if the fault ended it, e.g. a relay that refused to start on purpose). The runner
   * fails the round at once, naming the process, when it finds one that has exited.
   *
   * @return a short description of the injection for the report, e.g. {@code "kill relay (down 1.2
   *     s)"}
   */
  String inject(Pipeline pipeline, DestinationSimulator simulator, Random random) throws Exception;

  /**
   * What this class measured and which of its own invariants broke since the last call (the runner
   * calls it once per round, after the load and before the checker); the class starts counting
   * afresh. Classes whose invariant the checker covers return {@link RoundChecks#NONE}.
   */
  default RoundChecks endRound() {
    return RoundChecks.NONE;
  }

  /**
   * A class's own figures of one round, by name in report order, and its broken invariants, each
   * named with what was seen.
   */
  record RoundChecks(Map<String, Long> figures, List<String> violations) {

    static final RoundChecks NONE = new RoundChecks(Map.of(), List.of());

    public RoundChecks {
      figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
      violations = List.copyOf(violations);
    }
  }
}
