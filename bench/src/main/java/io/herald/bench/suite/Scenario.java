package io.herald.bench.suite;

/** One benchmark of issue 16's table: runs on the bench's stack and returns what it measured. */
public interface Scenario {

  /** The table's id: {@code B5}... */
  String id();

  /** One line: what is measured, side by side with what. */
  String title();

  /** Runs the scenario, small when {@link Bench#quick()}; prints progress through the bench. */
  ScenarioResult run(Bench bench) throws Exception;
}
