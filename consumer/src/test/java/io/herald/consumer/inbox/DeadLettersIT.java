package io.herald.consumer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.StackContext;
import io.herald.devstack.proxy.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The dead-letter producer against a real broker that stops answering. */
@HeraldIntegrationTest
class DeadLettersIT {

  @Test
  void shouldCloseWithinItsBoundWhenKafkaStopsAnsweringWithADeadLetterInFlight(StackContext stack)
      throws Exception {
    String topic = stack.topic("dlq-unanswered");
    stack.stack().kafka().createTopic(topic, 1);
    KafkaBroker.ProxiedListener listener = stack.stack().kafka().proxiedListener().orElseThrow();
    try (TcpProxy kafka = listener.startProxy("dlq-kafka")) {
      DeadLetters deadLetters =
          new DeadLetters(
              new KafkaProducer<>(
                  Map.of(
                      ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, listener.bootstrapServers(),
                      ProducerConfig.ACKS_CONFIG, "all",
                      ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true"),
                  new ByteArraySerializer(),
                  new ByteArraySerializer()),
              topic,
              Clock.systemUTC());
      // Acknowledged: the producer knows the broker and the topic.
      deadLetters.send(record(topic, 0), "invalid_value", "first").get(30, TimeUnit.SECONDS);
      kafka.freeze();
      Future<RecordMetadata> inFlight = deadLetters.send(record(topic, 1), "invalid_value", "next");

      long closing = System.nanoTime();
      deadLetters.close();
      Duration closed = Duration.ofNanos(System.nanoTime() - closing);

      // Unbounded, the close waits for the frozen send until delivery.timeout.ms (two minutes).
      assertThat(closed).isLessThan(DeadLetters.CLOSE_WAIT.plusSeconds(5));
      assertThat(inFlight).isDone();
    }
  }

  private static ConsumerRecord<byte[], byte[]> record(String topic, long offset) {
    return new ConsumerRecord<>(
        topic,
        0,
        offset,
        ("key-" + offset).getBytes(StandardCharsets.UTF_8),
        ("value-" + offset).getBytes(StandardCharsets.UTF_8));
  }
}
