package io.herald.cli.monitor;

import io.herald.cli.kafka.KafkaClients;
import io.herald.config.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Reads {@link KafkaFacts} with an {@link Admin} client (topic descriptions, earliest and latest
 * offsets, the consumer group's committed offsets) and a group-less consumer that reads only the
 * last record of each partition of the dead-letter and heartbeat topics: never a whole topic,
 * whatever its size. Each call waits at most the clients' request timeout ({@code herald
 * --kafka-timeout}). Not thread-safe (one sampling thread); close it once.
 */
final class KafkaProbe implements AutoCloseable {

  /** How long one Kafka call may take before the sample marks Kafka unreachable. */
  private final Duration timeout;

  private final Admin admin;
  private final KafkaConsumer<byte[], byte[]> lastRecords;
  private final String publicationEvents;
  private final String dlq;
  private final String heartbeats;
  private final String group;

  /**
   * @param kafka the cluster, with the connection settings of a process's pass-through
   * @param group the consumer's group; null for no consumer lag
   */
  KafkaProbe(
      KafkaClients kafka, String publicationEvents, String dlq, String heartbeats, String group) {
    this.publicationEvents = publicationEvents;
    this.dlq = dlq;
    this.heartbeats = heartbeats;
    this.group = group;
    this.timeout = kafka.requestTimeout();
    Map<String, Object> consumer = kafka.consumer("herald-monitor-last-records");
    consumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10);
    // The last offset comes from the Admin client's latest offset (the high watermark), which
    // under read_committed an open transaction would keep the reader from reaching.
    consumer.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    admin = Admin.create(kafka.admin("herald-monitor"));
    try {
      lastRecords = new KafkaConsumer<>(consumer);
    } catch (RuntimeException e) {
      admin.close(Duration.ZERO);
      throw e;
    }
  }

  /**
   * A probe, or why there is none: a client that cannot even be created (no resolvable bootstrap
   * address, a bad security setting) makes Kafka unreachable for the whole run.
   */
  static Reading<KafkaProbe> create(
      KafkaClients kafka, String publicationEvents, String dlq, String heartbeats, String group) {
    try {
      return Reading.of(new KafkaProbe(kafka, publicationEvents, dlq, heartbeats, group));
    } catch (KafkaException e) {
      return Reading.unreachable(
          "cannot create a Kafka client for " + kafka.bootstrapServers() + ": " + e.getMessage());
    }
  }

  /** One sample; Kafka's answer, or why there is none. */
  Reading<KafkaFacts> read() {
    try {
      Map<String, List<TopicPartition>> partitions =
          partitions(new LinkedHashSet<>(List.of(publicationEvents, dlq, heartbeats)));
      List<TopicPartition> all = new ArrayList<>();
      partitions.values().forEach(all::addAll);
      Map<TopicPartition, Long> end = offsets(all, OffsetSpec.latest());
      Map<TopicPartition, Long> begin = offsets(all, OffsetSpec.earliest());
      List<TopicPartition> events = partitions.getOrDefault(publicationEvents, List.of());
      List<TopicPartition> dead = partitions.getOrDefault(dlq, List.of());
      return Reading.of(
          new KafkaFacts(
              sum(events, end),
              group == null ? null : lag(events, begin, end),
              sum(dead, end),
              sum(dead, end) - sum(dead, begin),
              newest(dead, begin, end),
              newest(partitions.getOrDefault(heartbeats, List.of()), begin, end)));
    } catch (TimeoutException e) {
      return Reading.unreachable("no answer within " + Durations.format(timeout));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
        return Reading.unreachable("no answer within " + Durations.format(timeout));
      }
      return Reading.unreachable(String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Reading.unreachable("interrupted");
    } catch (KafkaException e) {
      return Reading.unreachable(e.toString());
    }
  }

  /** Each existing topic's partitions; a topic that does not exist (yet) is left out. */
  private Map<String, List<TopicPartition>> partitions(Set<String> topics)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, KafkaFuture<TopicDescription>> futures =
        admin.describeTopics(topics).topicNameValues();
    Map<String, List<TopicPartition>> partitions = new HashMap<>();
    for (Map.Entry<String, KafkaFuture<TopicDescription>> entry : futures.entrySet()) {
      try {
        TopicDescription description = get(entry.getValue());
        List<TopicPartition> list = new ArrayList<>();
        description
            .partitions()
            .forEach(p -> list.add(new TopicPartition(entry.getKey(), p.partition())));
        partitions.put(entry.getKey(), list);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw e;
        }
      }
    }
    return partitions;
  }

  private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (partitions.isEmpty()) {
      return Map.of();
    }
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(p -> request.put(p, spec));
    Map<TopicPartition, ListOffsetsResultInfo> answer = get(admin.listOffsets(request).all());
    Map<TopicPartition, Long> offsets = new HashMap<>();
    answer.forEach((p, info) -> offsets.put(p, info.offset()));
    return offsets;
  }

  private long lag(
      List<TopicPartition> partitions,
      Map<TopicPartition, Long> begin,
      Map<TopicPartition, Long> end)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetAndMetadata> committed =
        get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    long lag = 0;
    for (TopicPartition p : partitions) {
      OffsetAndMetadata offset = committed.get(p);
      // Without a commit the group starts at the earliest offset (auto.offset.reset=earliest,
      // the shipped setting): everything still on the partition is behind.
      long from = offset == null ? begin.getOrDefault(p, 0L) : offset.offset();
      lag += Math.max(0, end.getOrDefault(p, 0L) - from);
    }
    return lag;
  }

  /** The newest timestamp among the last record of each partition; null when all are empty. */
  private Instant newest(
      List<TopicPartition> partitions,
      Map<TopicPartition, Long> begin,
      Map<TopicPartition, Long> end) {
    Map<TopicPartition, Long> last = new HashMap<>();
    for (TopicPartition p : partitions) {
      long e = end.getOrDefault(p, 0L);
      if (e > begin.getOrDefault(p, 0L)) {
        last.put(p, e - 1);
      }
    }
    if (last.isEmpty()) {
      return null;
    }
    lastRecords.assign(last.keySet());
    last.forEach(lastRecords::seek);
    long newest = -1;
    Set<TopicPartition> waiting = new LinkedHashSet<>(last.keySet());
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!waiting.isEmpty() && System.nanoTime() < deadline) {
      for (ConsumerRecord<byte[], byte[]> record : lastRecords.poll(Duration.ofMillis(200))) {
        newest = Math.max(newest, record.timestamp());
      }
      // A partition is done once its position passed the last offset (a record read, or a
      // marker or a deleted record skipped).
      waiting.removeIf(p -> lastRecords.position(p, timeout) > last.get(p));
    }
    lastRecords.unsubscribe();
    return newest < 0 ? null : Instant.ofEpochMilli(newest);
  }

  private static long sum(List<TopicPartition> partitions, Map<TopicPartition, Long> offsets) {
    long sum = 0;
    for (TopicPartition p : partitions) {
      sum += offsets.getOrDefault(p, 0L);
    }
    return sum;
  }

  private <T> T get(KafkaFuture<T> future)
      throws InterruptedException, ExecutionException, TimeoutException {
    return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    try {
      lastRecords.close(Duration.ofSeconds(1));
    } finally {
      admin.close(Duration.ofSeconds(1));
    }
  }
}
