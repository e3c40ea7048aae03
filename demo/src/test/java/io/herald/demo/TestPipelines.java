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
    String publicationTopic = stack.topic("publication-events");
    String deliveryTopic = stack.topic("delivery-events");
    String dlqTopic = stack.topic("dlq");
    stack.stack().kafka().createTopic(publicationTopic, 3);
    stack.stack().kafka().createTopic(deliveryTopic, 3);
    stack.stack().kafka().createTopic(dlqTopic, 1);
    return new PipelineSettings(
        stack.stack().postgres(),
        stack.database(),
        stack.bootstrapServers(),
        stack.publication(),
        stack.slot(),
        publicationTopic,
        deliveryTopic,
        dlqTopic,
        stack.topic("relay-offsets"),
        stack.groupId("consumer"),
        simulator.baseUri().toString(),
        OpsFiles.repositoryRoot().resolve("connect-config"),
        Path.of("target", logs));
  }
}
