package io.herald.relay.recover;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the last committed record of every partition of a topic: where the events that reached
 * Kafka end. The relay writes in transactions, so a partition's last offsets are commit markers and
 * may be records of aborted transactions (a fenced former leader's): it reads {@code
 * read_committed} backwards from the end in widening windows until a record shows. Not thread-safe;
 * one consumer per call.
 */
final class TopicTails {

  private final Map<String, Object> kafka;

  /**
   * @param kafka client settings (brokers and security, as the relay's other clients use them)
   */
  TopicTails(Map<String, Object> kafka) {
    this.kafka = Map.copyOf(kafka);
  }

  /**
   * The last record of each non-empty partition, by partition.
   *
   * @throws TimeoutException when the topic's partitions or records cannot be read within {@code
   *     timeout}
   */
  List<PartitionTail> read(String topic, Duration timeout) {
    Map<String, Object> config = new HashMap<>(kafka);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "herald-relay-recover");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<PartitionTail> tails = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        return tails;
      }
      List<TopicPartition> partitions =
          infos.stream().map(info -> new TopicPartition(topic, info.partition())).toList();
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, timeout);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      for (TopicPartition partition : partitions) {
        lastRecord(consumer, partition, begin.get(partition), end.get(partition), timeout)
            .ifPresent(tails::add);
      }
    }
    tails.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
    return tails;
  }

  /** Offsets read back from the end at first; each empty window doubles the next. */
  private static final long FIRST_WINDOW = 64;

  /**
   * The last committed record before {@code end} (the last stable offset), or empty when the
   * partition holds none from {@code begin} on.
   */
  private static Optional<PartitionTail> lastRecord(
      KafkaConsumer<byte[], byte[]> consumer,
      TopicPartition partition,
      long begin,
      long end,
      Duration timeout) {
    consumer.assign(List.of(partition));
    long deadline = System.nanoTime() + timeout.toNanos();
    long to = end;
    for (long window = FIRST_WINDOW; to > begin; window *= 2) {
      long from = Math.max(begin, to - window);
      consumer.seek(partition, from);
      ConsumerRecord<byte[], byte[]> found = null;
      while (consumer.position(partition, timeout) < to) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException(
              "Timed out after "
                  + timeout
                  + " reading offsets "
                  + from
                  + " to "
                  + to
                  + " of "
                  + partition);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (record.offset() < to) {
            found = record;
          }
        }
      }
      if (found != null) {
        return Optional.of(tail(partition, found));
      }
      to = from;
    }
    return Optional.empty();
  }

  private static PartitionTail tail(
      TopicPartition partition, ConsumerRecord<byte[], byte[]> found) {
    Header id = found.headers().lastHeader("id");
    Optional<UUID> eventId = Optional.empty();
    if (id != null) {
      try {
        eventId = Optional.of(UUID.fromString(new String(id.value(), StandardCharsets.UTF_8)));
      } catch (IllegalArgumentException e) {
        eventId = Optional.empty(); // not an outbox event id: the plan refuses, naming the record
      }
    }
    return new PartitionTail(
        partition.partition(), found.offset(), eventId, Instant.ofEpochMilli(found.timestamp()));
  }
}
