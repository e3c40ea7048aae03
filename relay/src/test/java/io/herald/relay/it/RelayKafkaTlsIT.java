package io.herald.relay.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.StackContext;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The relay against a Kafka listener that requires TLS, verifying the broker's certificate. */
@HeraldIntegrationTest
class RelayKafkaTlsIT {

  @Test
  void shouldRelayAndStoreItsOffsetsThroughAnEncryptedListener(StackContext context)
      throws Exception {
    Optional<KafkaBroker.TlsListener> tls = context.stack().kafka().tlsListener();
    assumeTrue(tls.isPresent(), "the broker has no TLS listener");

    SecuredKafka.assertRelaysAcrossARestart(
        context,
        "RelayKafkaTlsIT",
        Map.of(
            "relay.kafka.bootstrap-servers",
            tls.get().bootstrapServers(),
            "debezium.sink.kafka.producer.security.protocol",
            "SSL",
            "debezium.sink.kafka.producer.ssl.truststore.type",
            "PEM",
            "debezium.sink.kafka.producer.ssl.truststore.certificates",
            tls.get().trustedCertificatePem()));
  }
}
