package io.herald.cli.trace;

import io.herald.cli.CliFailure;
import io.herald.cli.trace.Trace.Scan;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Reads the records of one key from one topic, bounded: only the key's partition (the default
 * partitioner's, which the relay's producer uses: murmur2 of the key bytes), and only from the
 * first record at or after a given time to the partition's end when the scan began. Memory is what
 * the visitor keeps; the client has no group and commits nothing. Failures become {@link
 * CliFailure}: refused credentials or permissions exit 2, a broker that does not answer within the
 * timeout exits 3. Not thread-safe: one per command run.
 */
final class TopicScan implements AutoCloseable {

  private static final Duration POLL = Duration.ofMillis(200);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String bootstrapServers;
  private final Duration timeout;

  /**
   * @param overrides the process's {@code kafka.consumer.*} pass-through (security settings, the
   *     isolation level), prefix stripped
   */
  TopicScan(String bootstrapServers, Map<String, String> overrides, Duration timeout) {
    this.bootstrapServers = bootstrapServers;
    this.timeout = timeout;
    Map<String, Object> settings = new HashMap<>(overrides);
    settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    settings.put(ConsumerConfig.CLIENT_ID_CONFIG, "herald-cli-trace");
    settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    settings.remove(ConsumerConfig.GROUP_ID_CONFIG);
    settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    // A broker that does not answer must end the command (exit 3), not hang it.
    int millis = (int) timeout.toMillis();
    settings.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
    settings.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
    settings.put(ConsumerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, millis);
    try {
      this.consumer = new KafkaConsumer<>(settings);
    } catch (KafkaException e) {
      throw CliFailure.usage("cannot create a Kafka client for " + bootstrapServers, e);
    }
  }

  /** The partition the default partitioner gives {@code key} among {@code partitions}. */
  static int partitionFor(String key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  /**
   * Hands every record of {@code topic} whose key is {@code key}, at or after {@code since}, to
   * {@code visitor} in offset order.
   *
   * @return where it read, or empty when the topic does not exist
   */
  Optional<Scan> scan(
      String topic, String key, Instant since, Consumer<ConsumerRecord<byte[], byte[]>> visitor) {
    try {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        return Optional.empty();
      }
      int partitions = infos.size();
      TopicPartition partition = new TopicPartition(topic, partitionFor(key, partitions));
      List<TopicPartition> assigned = List.of(partition);
      consumer.assign(assigned);
      long end = consumer.endOffsets(assigned, timeout).get(partition);
      OffsetAndTimestamp first =
          consumer
              .offsetsForTimes(Map.of(partition, Math.max(0, since.toEpochMilli())), timeout)
              .get(partition);
      long from = first == null ? end : first.offset();
      consumer.seek(partition, from);
      byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
      long quietSince = System.nanoTime();
      while (consumer.position(partition, timeout) < end) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
        if (records.isEmpty()) {
          if (System.nanoTime() - quietSince > timeout.toNanos()) {
            throw CliFailure.unreachable(
                "no records from "
                    + partition
                    + " at "
                    + bootstrapServers
                    + " within "
                    + timeout
                    + " although it has offsets up to "
                    + end,
                null);
          }
          continue;
        }
        quietSince = System.nanoTime();
        for (ConsumerRecord<byte[], byte[]> record : records.records(partition)) {
          if (record.offset() >= end) {
            break;
          }
          if (Arrays.equals(keyBytes, record.key())) {
            visitor.accept(record);
          }
        }
      }
      return Optional.of(new Scan(topic, partition.partition(), partitions, from, end));
    } catch (AuthenticationException | AuthorizationException e) {
      throw CliFailure.usage(
          "Kafka at " + bootstrapServers + " refused to let the command read " + topic, e);
    } catch (KafkaException e) {
      throw CliFailure.unreachable(
          "cannot read " + topic + " from Kafka at " + bootstrapServers, e);
    }
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}
