package io.herald.cli.audit;

import io.herald.cli.CliFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads one topic from a start time (or its beginning) up to the end offsets it had when the scan
 * began, record by record: the audit never holds a topic, only the records of one poll. No consumer
 * group: the partitions are assigned, nothing is committed, and the processes' own group is only
 * read ({@link #committedOffsets}). A scan that makes no progress for {@code stallTimeout} fails
 * with exit 3 (Kafka unreachable). Not thread-safe.
 */
final class TopicScan {

  /** What to do with each record; a failure stops the scan. */
  interface Sink {
    void accept(ConsumerRecord<byte[], byte[]> record) throws Exception;
  }

  /** Kafka client settings a scan may take from the processes' pass-through ones: the security. */
  private static final List<String> CLIENT_PREFIXES = List.of("security.", "ssl.", "sasl.");

  private final String bootstrapServers;
  private final Map<String, String> clientSettings;
  private final Duration stallTimeout;

  TopicScan(String bootstrapServers, Map<String, String> passThrough, Duration stallTimeout) {
    this.bootstrapServers = bootstrapServers;
    Map<String, String> security = new HashMap<>();
    passThrough.forEach(
        (key, value) -> {
          if (CLIENT_PREFIXES.stream().anyMatch(key::startsWith)) {
            security.put(key, value);
          }
        });
    this.clientSettings = Map.copyOf(security);
    this.stallTimeout = stallTimeout;
  }

  /**
   * Streams {@code topic} to {@code sink}; returns how many records it read. A topic that does not
   * exist reads as empty.
   *
   * @param from the first record time to read, or null for the beginning of each partition
   */
  long scan(String topic, Instant from, Sink sink) throws Exception {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties())) {
      List<TopicPartition> partitions = partitions(consumer, topic);
      if (partitions.isEmpty()) {
        return 0;
      }
      // Assigned first: the end offsets of partitions not assigned come with a warning per
      // partition under read_committed.
      consumer.assign(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, stallTimeout);
      Map<TopicPartition, Long> start = startOffsets(consumer, partitions, from, end);
      start.forEach(consumer::seek);
      Map<TopicPartition, Long> remaining = new HashMap<>();
      for (TopicPartition partition : partitions) {
        if (start.get(partition) < end.get(partition)) {
          remaining.put(partition, end.get(partition));
        }
      }
      long read = 0;
      long lastProgress = System.nanoTime();
      while (!remaining.isEmpty()) {
        var records = consumer.poll(Duration.ofMillis(500));
        if (!records.isEmpty()) {
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > stallTimeout.toNanos()) {
          throw CliFailure.unreachable(
              "no record from "
                  + topic
                  + " for "
                  + stallTimeout
                  + " with "
                  + remaining.size()
                  + " partitions not read to their end",
              null);
        }
        for (ConsumerRecord<byte[], byte[]> record : records) {
          TopicPartition partition = new TopicPartition(record.topic(), record.partition());
          Long endOffset = remaining.get(partition);
          if (endOffset == null || record.offset() >= endOffset) {
            continue;
          }
          sink.accept(record);
          read++;
        }
        for (TopicPartition partition : List.copyOf(remaining.keySet())) {
          if (consumer.position(partition, stallTimeout) >= remaining.get(partition)) {
            remaining.remove(partition);
            consumer.pause(List.of(partition));
          }
        }
      }
      return read;
    } catch (KafkaException e) {
      throw CliFailure.unreachable("cannot read " + topic + " from " + bootstrapServers, e);
    }
  }

  /**
   * The offsets {@code groupId} has committed on {@code topic}'s partitions: the next record the
   * group will read. A partition without a commit is absent.
   */
  Map<Integer, Long> committedOffsets(String groupId, String topic) {
    Properties properties = new Properties();
    properties.putAll(clientSettings);
    properties.put("bootstrap.servers", bootstrapServers);
    properties.put("client.id", "herald-cli-audit-admin");
    properties.put("default.api.timeout.ms", Long.toString(stallTimeout.toMillis()));
    properties.put("request.timeout.ms", Long.toString(stallTimeout.toMillis()));
    try (Admin admin = Admin.create(properties)) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(groupId)
              .partitionsToOffsetAndMetadata()
              .get(stallTimeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      Map<Integer, Long> result = new HashMap<>();
      offsets.forEach(
          (partition, offset) -> {
            if (partition.topic().equals(topic) && offset != null) {
              result.put(partition.partition(), offset.offset());
            }
          });
      return result;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliFailure.unreachable("interrupted reading the offsets of group " + groupId, e);
    } catch (Exception e) {
      throw CliFailure.unreachable(
          "cannot read the committed offsets of group " + groupId + " from " + bootstrapServers, e);
    }
  }

  private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
    Map<String, List<PartitionInfo>> topics = consumer.listTopics(stallTimeout);
    List<PartitionInfo> infos = topics.get(topic);
    List<TopicPartition> partitions = new ArrayList<>();
    if (infos != null) {
      for (PartitionInfo info : infos) {
        partitions.add(new TopicPartition(topic, info.partition()));
      }
    }
    return partitions;
  }

  private Map<TopicPartition, Long> startOffsets(
      KafkaConsumer<byte[], byte[]> consumer,
      List<TopicPartition> partitions,
      Instant from,
      Map<TopicPartition, Long> end) {
    Map<TopicPartition, Long> start =
        new HashMap<>(consumer.beginningOffsets(partitions, stallTimeout));
    if (from == null) {
      return start;
    }
    Map<TopicPartition, Long> times = new HashMap<>();
    partitions.forEach(partition -> times.put(partition, from.toEpochMilli()));
    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(times, stallTimeout);
    for (TopicPartition partition : partitions) {
      OffsetAndTimestamp offset = found.get(partition);
      // No record at or after the time: nothing to read in this partition.
      start.put(partition, offset == null ? end.get(partition) : offset.offset());
    }
    return start;
  }

  private Properties consumerProperties() {
    Properties properties = new Properties();
    properties.putAll(clientSettings);
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "herald-cli-audit");
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    properties.put(
        ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(stallTimeout.toMillis()));
    properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return properties;
  }
}
