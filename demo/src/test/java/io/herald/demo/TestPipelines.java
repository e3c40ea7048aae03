package io.herald.demo;

import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import java.nio.file.Path;

/**
 * The pipeline settings of the demo's end-to-end tests: the test class's own database, slot and
 * topics (created here: three partitions for the two event topics, one for the dead letters), the
 * simulator as every destination, the shipped property files, logs under {@code target/<logs>}.
 */
final class TestPipelines {

  private TestPipelines() {}

  static PipelineSettings settings(
      StackContext stack, DestinationSimulator simulator, String logs) {
    return PipelineSettings.isolated(
        stack,
        simulator.baseUri(),
        OpsFiles.repositoryRoot().resolve("connect-config"),
        Path.of("target", logs));
  }
}
