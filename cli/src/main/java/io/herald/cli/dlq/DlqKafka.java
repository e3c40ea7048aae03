package io.herald.cli.dlq;

import io.herald.cli.CliFailure;
import io.herald.consumer.config.ConsumerConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The command's Kafka clients, configured from {@code consumer.properties} as the consumer's own
 * are ({@code consumer.kafka.bootstrap-servers}, {@code kafka.consumer.*} for reading, {@code
 * kafka.producer.*} for producing, so a secured cluster's settings pass through unchanged), with
 * bounded timeouts: a broker that does not answer ends the command with exit 3. Kafka's own
 * failures are mapped here, once. Not thread-safe; one command at a time.
 */
final class DlqKafka {

  /** How long one Kafka request may take, unless the pass-through sets it. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** How long reading may go without progress before the broker counts as unreachable. */
  static final Duration STALL_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration POLL = Duration.ofMillis(500);

  private DlqKafka() {}

  /**
   * A reader without a consumer group: {@code assign()}, never {@code subscribe()}, and no offsets
   * committed, so reading the DLQ takes nothing from the consumer's group. The pass-through's group
   * settings are dropped; read_committed as the consumer reads; never creates a topic.
   */
  static Map<String, Object> consumerProperties(ConsumerConfig config) {
    Map<String, Object> props = new HashMap<>(config.inbox().consumerOverrides());
    props.keySet().removeIf(key -> key.startsWith("group."));
    props.putIfAbsent(
        org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.putIfAbsent(
        org.apache.kafka.clients.consumer.ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG,
        (int) REQUEST_TIMEOUT.toMillis());
    props.putIfAbsent(
        org.apache.kafka.clients.consumer.ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
        (int) REQUEST_TIMEOUT.toMillis());
    props.put(org.apache.kafka.clients.consumer.ConsumerConfig.CLIENT_ID_CONFIG, "herald-cli-dlq");
    props.put(
        org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        config.inbox().bootstrapServers());
    props.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(
        org.apache.kafka.clients.consumer.ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    props.put(
        org.apache.kafka.clients.consumer.ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
        ByteArrayDeserializer.class.getName());
    props.put(
        org.apache.kafka.clients.consumer.ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        ByteArrayDeserializer.class.getName());
    return props;
  }

  /**
   * The replay producer: the dead-letter producer's pass-through ({@code kafka.producer.*}), every
   * record acknowledged by all in-sync replicas, idempotent, with bounded waits.
   */
  static Map<String, Object> producerProperties(ConsumerConfig config) {
    Map<String, Object> props = new HashMap<>(config.deadLetters().producerOverrides());
    props.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) REQUEST_TIMEOUT.toMillis());
    props.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) REQUEST_TIMEOUT.toMillis());
    props.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) STALL_TIMEOUT.toMillis());
    props.put(ProducerConfig.CLIENT_ID_CONFIG, "herald-cli-dlq-replay");
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.inbox().bootstrapServers());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  static KafkaProducer<byte[], byte[]> producer(ConsumerConfig config) {
    try {
      return new KafkaProducer<>(producerProperties(config));
    } catch (KafkaException e) {
      throw CliFailure.usage("cannot create the replay producer from kafka.producer.*", e);
    }
  }

  /**
   * Streams {@code topic} from its beginning up to the end offsets taken when reading starts:
   * records written meanwhile are not read, and no record is held beyond {@code action}. A topic
   * that does not exist has no records.
   *
   * @return how many records were read
   * @throws CliFailure exit 3 when the broker does not answer or reading stalls for {@link
   *     #STALL_TIMEOUT}; exit 2 when it refuses the credentials or the access
   */
  static long read(
      ConsumerConfig config, String topic, Consumer<ConsumerRecord<byte[], byte[]>> action) {
    String where = topic + " at " + config.inbox().bootstrapServers();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(config))) {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic, REQUEST_TIMEOUT);
      if (partitions == null || partitions.isEmpty()) {
        return 0;
      }
      List<TopicPartition> assigned =
          partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(assigned, REQUEST_TIMEOUT));
      long read = 0;
      long lastProgress = System.nanoTime();
      while (!done(consumer, end)) {
        long before = read;
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
          TopicPartition partition = new TopicPartition(record.topic(), record.partition());
          if (record.offset() < end.get(partition)) {
            action.accept(record);
            read++;
          }
        }
        if (read != before) {
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > STALL_TIMEOUT.toNanos()) {
          throw CliFailure.unreachable(
              "reading " + where + " made no progress for " + STALL_TIMEOUT.toSeconds() + "s",
              null);
        }
      }
      return read;
    } catch (AuthenticationException | AuthorizationException e) {
      throw CliFailure.usage("Kafka refused to let the command read " + where, e);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw CliFailure.unreachable("Kafka did not answer reading " + where, e);
    } catch (KafkaException e) {
      throw CliFailure.unreachable("cannot read " + where, e);
    }
  }

  /** Every partition's position has reached the end taken at the start; done ones are paused. */
  private static boolean done(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    boolean all = true;
    for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
      if (consumer.position(partition.getKey(), REQUEST_TIMEOUT) >= partition.getValue()) {
        consumer.pause(List.of(partition.getKey()));
      } else {
        all = false;
      }
    }
    return all;
  }
}
