package io.herald.devstack;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

@HeraldIntegrationTest
class StackRestartIT {

  @Test
  void shouldKeepPortAndDataWhenPostgresStopsAndStarts(StackContext stack) throws SQLException {
    PostgresServer postgres = stack.stack().postgres();
    int port = postgres.port();
    try (Connection connection = stack.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE survivor (note text)");
      statement.execute("INSERT INTO survivor VALUES ('before-restart')");
    }

    postgres.stop();
    try {
      assertThrows(SQLException.class, () -> stack.dataSource().getConnection().close());
    } finally {
      postgres.start();
    }

    assertEquals(port, postgres.port());
    try (Connection connection = stack.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT note FROM survivor")) {
      rs.next();
      assertEquals("before-restart", rs.getString(1));
    }
  }

  @Test
  void shouldKeepRecordsWhenKafkaStopsAndStarts(StackContext stack) throws Exception {
    KafkaBroker kafka = stack.stack().kafka();
    String topic = stack.topic("restart");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<String, String> producer =
        KafkaBrokerIT.producer(stack, Duration.ofSeconds(30))) {
      producer.send(new ProducerRecord<>(topic, "k", "before-restart")).get(30, TimeUnit.SECONDS);
    }

    kafka.stop();
    kafka.start();

    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        KafkaBrokerIT.consumer(stack, stack.groupId("restart"))) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                return !values.isEmpty();
              });
    }
    assertEquals(List.of("before-restart"), values);
  }

  @Test
  void shouldKeepAcknowledgedRecordsWhenKafkaIsKilledAndStarted(StackContext stack)
      throws Exception {
    KafkaBroker kafka = stack.stack().kafka();
    String topic = stack.topic("killed");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<String, String> producer =
        KafkaBrokerIT.producer(stack, Duration.ofSeconds(30))) {
      producer.send(new ProducerRecord<>(topic, "k", "before-kill")).get(30, TimeUnit.SECONDS);
    }

    kafka.kill();
    try {
      assertThrows(
          Exception.class,
          () -> {
            try (KafkaProducer<String, String> producer =
                KafkaBrokerIT.producer(stack, Duration.ofSeconds(2))) {
              producer
                  .send(new ProducerRecord<>(topic, "k", "while-down"))
                  .get(5, TimeUnit.SECONDS);
            }
          });
    } finally {
      // The other IT classes of this JVM share the broker.
      kafka.start();
    }

    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        KafkaBrokerIT.consumer(stack, stack.groupId("killed"))) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                return !values.isEmpty();
              });
    }
    assertEquals(List.of("before-kill"), values);
  }
}
