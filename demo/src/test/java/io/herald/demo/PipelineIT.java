package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.DestinationSimulator;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The production topology end to end: writer, relay and consumer as three processes with their
 * shipped property files, a real PostgreSQL and Kafka, and the destination simulator.
 */
@HeraldIntegrationTest
class PipelineIT {

  @Test
  void shouldTurnEveryIntentIntoExactlyOneRemoteArticleAcrossTheThreeProcesses(StackContext stack)
      throws Exception {
    String publicationTopic = stack.topic("publication-events");
    String deliveryTopic = stack.topic("delivery-events");
    String dlqTopic = stack.topic("dlq");
    stack.stack().kafka().createTopic(publicationTopic, 3);
    stack.stack().kafka().createTopic(deliveryTopic, 3);
    stack.stack().kafka().createTopic(dlqTopic, 1);
    try (DestinationSimulator simulator = DestinationSimulator.start(Behaviour.cooperative())) {
      simulator.setBehaviour("/dest-a", Behaviour.cooperative());
      simulator.setBehaviour("/dest-b", Behaviour.bare());
      PipelineSettings settings =
          new PipelineSettings(
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
              Path.of("target", "pipeline-it-logs"));

      Scenario.Outcome outcome;
      try (Pipeline pipeline = Pipeline.start(settings)) {
        outcome =
            new Scenario(
                    pipeline.writerUri(),
                    simulator,
                    stack.bootstrapServers(),
                    deliveryTopic,
                    System.out)
                .run(Duration.ofSeconds(90));
      }

      assertThat(outcome.statuses()).containsExactly(201, 200, 409, 201, 201);
      assertThat(outcome.jobIds().get(1)).isEqualTo(outcome.jobIds().get(0));
      assertThat(outcome.articles()).hasSize(Scenario.EXPECTED_ARTICLES);
      assertThat(outcome.articlesPerReference().values()).containsOnly(1);
      assertThat(outcome.publishedEvents()).hasSize(Scenario.EXPECTED_ARTICLES);
      String firstRemoteId =
          outcome.publishedEvents().stream()
              .filter(e -> e.path("jobId").asText().equals(outcome.jobIds().getFirst()))
              .map(e -> e.path("remoteId").asText())
              .findFirst()
              .orElseThrow();
      assertThat(outcome.firstJob().path("status").asText()).isEqualTo("PUBLISHED");
      assertThat(outcome.firstJob().path("remoteId").asText()).isEqualTo(firstRemoteId);
    }
  }
}
