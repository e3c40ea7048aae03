package io.herald.relay.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.StackContext;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The relay against a Kafka listener that requires SASL/PLAIN authentication. */
@HeraldIntegrationTest
class RelayKafkaSaslIT {

  @Test
  void shouldRelayAndStoreItsOffsetsThroughAnAuthenticatedListener(StackContext context)
      throws Exception {
    Optional<String> sasl = context.stack().kafka().saslPlainBootstrapServers();
    assumeTrue(sasl.isPresent(), "the broker has no SASL/PLAIN listener");

    SecuredKafka.assertRelaysAcrossARestart(
        context,
        "RelayKafkaSaslIT",
        Map.of(
            "relay.kafka.bootstrap-servers",
            sasl.get(),
            "debezium.sink.kafka.producer.security.protocol",
            "SASL_PLAINTEXT",
            "debezium.sink.kafka.producer.sasl.mechanism",
            "PLAIN",
            "debezium.sink.kafka.producer.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                + KafkaBroker.SASL_USER
                + "\" password=\""
                + KafkaBroker.SASL_PASSWORD
                + "\";"));
  }
}
