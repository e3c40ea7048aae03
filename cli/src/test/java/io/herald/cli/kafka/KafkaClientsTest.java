package io.herald.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.cli.CliFailure;
import io.herald.cli.Herald;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {

  private static final Map<String, String> PASS_THROUGH =
      Map.of(
          "security.protocol", "SASL_SSL",
          "sasl.mechanism", "SCRAM-SHA-512",
          "ssl.truststore.location", "/etc/ca.p12",
          "client.dns.lookup", "use_all_dns_ips",
          "group.id", "herald-consumer",
          "max.poll.records", "100",
          "isolation.level", "read_uncommitted",
          "request.timeout.ms", "120000",
          "auto.offset.reset", "earliest");

  private final KafkaClients clients =
      KafkaClients.of("broker:9092", PASS_THROUGH, Duration.ofSeconds(7));

  @Test
  void shouldPassOnlyTheConnectionSettingsThrough() {
    Map<String, Object> consumer = clients.consumer("herald-cli-x");

    assertThat(consumer)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("ssl.truststore.location", "/etc/ca.p12")
        .containsEntry("client.dns.lookup", "use_all_dns_ips")
        .containsEntry("bootstrap.servers", "broker:9092")
        .containsEntry("client.id", "herald-cli-x")
        .containsEntry("isolation.level", "read_committed")
        .containsEntry("request.timeout.ms", 7000)
        .containsEntry("default.api.timeout.ms", 7000)
        .containsEntry("enable.auto.commit", false)
        .containsEntry("allow.auto.create.topics", false)
        .containsEntry("max.poll.records", 2000)
        .doesNotContainKeys("group.id", "auto.offset.reset");
  }

  @Test
  void shouldMakeAnAcknowledgedIdempotentProducerWithBoundedWaits() {
    Map<String, Object> producer = clients.producer("herald-cli-y", Duration.ofSeconds(30));

    assertThat(producer)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("client.id", "herald-cli-y")
        .containsEntry("acks", "all")
        .containsEntry("enable.idempotence", true)
        .containsEntry("max.block.ms", 7000)
        .containsEntry("request.timeout.ms", 7000)
        .containsEntry("delivery.timeout.ms", 30000)
        .doesNotContainKeys("group.id", "max.poll.records", "default.api.timeout.ms");
  }

  @Test
  void shouldExitTwoWhenKafkaRefusesTheCredentialsOrTheAccess() {
    assertThat(clients.failure("read t", new SaslAuthenticationException("bad password")))
        .extracting(CliFailure::exitCode)
        .isEqualTo(Herald.EXIT_USAGE);
    assertThat(
            clients.failure(
                "read t", new ExecutionException(new TopicAuthorizationException("no"))))
        .extracting(CliFailure::exitCode)
        .isEqualTo(Herald.EXIT_USAGE);
  }

  @Test
  void shouldExitThreeNamingTheBrokersWhenKafkaDoesNotAnswer() {
    CliFailure timeout = clients.failure("read t", new TimeoutException("late"));
    CliFailure other = clients.failure("read t", new KafkaException("gone"));

    assertThat(timeout.exitCode()).isEqualTo(Herald.EXIT_UNREACHABLE);
    assertThat(timeout.getMessage())
        .isEqualTo("cannot read t at Kafka broker:9092: no answer within 7s");
    assertThat(other.exitCode()).isEqualTo(Herald.EXIT_UNREACHABLE);
    assertThat(other.getCause()).hasMessage("gone");
  }
}
