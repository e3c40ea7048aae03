package io.herald.cli.kafka;

import io.herald.cli.CliFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a topic as a bounded stream: the chosen {@link Partitions}, from the first record at or
 * after a time (or each partition's beginning) up to the end offsets taken when the read starts, so
 * records written meanwhile are not read; each record goes to the sink and is not kept. Each read
 * uses a fresh consumer without a group ({@code assign()}, nothing committed, see {@link
 * KafkaClients#consumer}) and closes it. A read that makes no progress for the stall timeout fails
 * with exit 3; any other Kafka failure as {@link KafkaClients#failure} maps it. Immutable; a read
 * runs on the calling thread.
 *
 * <pre>{@code
 * TopicReader reader = new TopicReader(KafkaClients.of(inbox, timeout), "herald-cli-x", stall);
 * Optional<TopicReader.Extent> read = reader.read(topic, Partitions.all(), null, record -> ...);
 * }</pre>
 */
public final class TopicReader {

  /** What to do with each record; a failure stops the read and is thrown as it is. */
  @FunctionalInterface
  public interface Sink<E extends Exception> {
    void accept(ConsumerRecord<byte[], byte[]> record) throws E;
  }

  /**
   * Where one read went.
   *
   * @param partitionCount how many partitions the topic has
   * @param from each read partition's first offset read (its end when nothing was in range)
   * @param to each read partition's end offset when the read began: offsets below it were read
   * @param records how many records went to the sink
   */
  public record Extent(
      String topic,
      int partitionCount,
      Map<Integer, Long> from,
      Map<Integer, Long> to,
      long records) {
    public Extent {
      from = Map.copyOf(from);
      to = Map.copyOf(to);
    }
  }

  private static final Duration POLL = Duration.ofMillis(200);

  private final KafkaClients clients;
  private final String clientId;
  private final Duration stallTimeout;

  /**
   * @param stallTimeout how long a read may go without a record or a partition reaching its end
   *     before Kafka counts as unreachable (exit 3)
   */
  public TopicReader(KafkaClients clients, String clientId, Duration stallTimeout) {
    this.clients = Objects.requireNonNull(clients, "clients");
    this.clientId = Objects.requireNonNull(clientId, "clientId");
    this.stallTimeout = Objects.requireNonNull(stallTimeout, "stallTimeout");
  }

  /**
   * Hands every record of {@code partitions} of {@code topic} in range to {@code sink}, in offset
   * order within each partition.
   *
   * @param from the first record time to read, or null for the beginning of each partition
   * @return where it read, or empty when the topic does not exist
   * @throws CliFailure when Kafka fails (see above)
   * @throws E when the sink does
   */
  public <E extends Exception> Optional<Extent> read(
      String topic, Partitions partitions, Instant from, Sink<E> sink) throws E {
    KafkaConsumer<byte[], byte[]> consumer = clients.newConsumer(clientId);
    try (consumer) {
      return read(consumer, topic, partitions, from, sink);
    } catch (KafkaException e) {
      throw clients.failure("read " + topic + " (" + partitions + ")", e);
    }
  }

  private <E extends Exception> Optional<Extent> read(
      KafkaConsumer<byte[], byte[]> consumer,
      String topic,
      Partitions partitions,
      Instant from,
      Sink<E> sink)
      throws E {
    Duration timeout = clients.requestTimeout();
    List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
    if (infos == null || infos.isEmpty()) {
      return Optional.empty();
    }
    List<TopicPartition> assigned =
        partitions.of(infos.size()).stream().map(p -> new TopicPartition(topic, p)).toList();
    // Assigned first: the end offsets of partitions not assigned come with a warning per
    // partition under read_committed.
    consumer.assign(assigned);
    Map<TopicPartition, Long> end = consumer.endOffsets(assigned, timeout);
    Map<TopicPartition, Long> start = start(consumer, assigned, from, end, timeout);
    Map<TopicPartition, Long> remaining = new HashMap<>();
    for (TopicPartition partition : assigned) {
      if (start.get(partition) < end.get(partition)) {
        consumer.seek(partition, start.get(partition));
        remaining.put(partition, end.get(partition));
      }
    }
    consumer.pause(assigned.stream().filter(p -> !remaining.containsKey(p)).toList());
    long read = 0;
    long lastProgress = System.nanoTime();
    while (!remaining.isEmpty()) {
      ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
      boolean progress = !records.isEmpty();
      for (ConsumerRecord<byte[], byte[]> record : records) {
        Long endOffset = remaining.get(new TopicPartition(record.topic(), record.partition()));
        if (endOffset != null && record.offset() < endOffset) {
          sink.accept(record);
          read++;
        }
      }
      // A position at the end (a record read, or a transaction marker skipped) ends a partition.
      for (TopicPartition partition : List.copyOf(remaining.keySet())) {
        if (consumer.position(partition, timeout) >= remaining.get(partition)) {
          remaining.remove(partition);
          consumer.pause(List.of(partition));
          progress = true;
        }
      }
      if (progress) {
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > stallTimeout.toNanos()) {
        throw CliFailure.unreachable(
            "no record from "
                + topic
                + " at Kafka "
                + clients.bootstrapServers()
                + " for "
                + stallTimeout
                + " with "
                + remaining.size()
                + " partitions not read to their end offsets "
                + remaining,
            null);
      }
    }
    return Optional.of(
        new Extent(topic, infos.size(), numbered(start, end), numbered(end, end), read));
  }

  private static Map<TopicPartition, Long> start(
      KafkaConsumer<byte[], byte[]> consumer,
      List<TopicPartition> partitions,
      Instant from,
      Map<TopicPartition, Long> end,
      Duration timeout) {
    if (from == null) {
      return consumer.beginningOffsets(partitions, timeout);
    }
    Map<TopicPartition, Long> times = new HashMap<>();
    // offsetsForTimes refuses a negative time; nothing is older than the epoch anyway.
    partitions.forEach(p -> times.put(p, Math.max(0, from.toEpochMilli())));
    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(times, timeout);
    Map<TopicPartition, Long> start = new HashMap<>();
    for (TopicPartition partition : partitions) {
      OffsetAndTimestamp offset = found.get(partition);
      // No record at or after the time: nothing to read in this partition.
      start.put(partition, offset == null ? end.get(partition) : offset.offset());
    }
    return start;
  }

  /** {@code offsets} by partition number, capped at each partition's end. */
  private static Map<Integer, Long> numbered(
      Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> end) {
    Map<Integer, Long> result = new HashMap<>();
    offsets.forEach((p, offset) -> result.put(p.partition(), Math.min(offset, end.get(p))));
    return result;
  }
}
