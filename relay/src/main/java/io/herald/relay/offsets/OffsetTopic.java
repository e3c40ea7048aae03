package io.herald.relay.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The compacted Kafka topic Debezium's {@code KafkaOffsetBackingStore} keeps the relay's offsets
 * in, read and written directly for the start-up checks.
 *
 * <p>Keys are what Kafka Connect's JSON converter writes for an offset: {@code [namespace,
 * {partition}]}. Debezium's entry is {@code [engineName, {"server": topicPrefix}]}; the relay adds
 * its own entry {@code ["herald-relay-slot-identity", {"database": d, "slot": s}]} with the {@link
 * SlotIdentity}. The offset store reads every key of the topic and ignores namespaces that are not
 * its own, so the extra entry does not disturb it.
 *
 * <p>Not thread-safe; used once at start-up.
 */
public final class OffsetTopic {

  static final String IDENTITY_NAMESPACE = "herald-relay-slot-identity";

  private final Map<String, Object> kafka;
  private final String topic;
  private final ObjectMapper mapper;

  /**
   * @param kafka client settings (at least {@code bootstrap.servers}; security settings as the
   *     producer uses them)
   * @param topic the offsets topic ({@code offset.storage.topic})
   */
  public OffsetTopic(Map<String, Object> kafka, String topic, ObjectMapper mapper) {
    this.kafka = Map.copyOf(kafka);
    this.topic = topic;
    this.mapper = mapper;
  }

  /**
   * Creates the topic, compacted, if it does not exist yet: the relay writes its slot identity
   * before the engine (which would otherwise create it) first starts.
   */
  public void ensureExists(int partitions, short replicationFactor, Duration timeout)
      throws InterruptedException, TimeoutException {
    try (Admin admin = Admin.create(kafka)) {
      NewTopic newTopic =
          new NewTopic(topic, partitions, replicationFactor)
              .configs(
                  Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
      admin.createTopics(List.of(newTopic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new OffsetStoreException(
            "Could not create the relay offsets topic '" + topic + "'", e.getCause());
      }
    }
  }

  /** Reads the topic from the beginning to its current end; the last value per key wins. */
  public StoredOffsets read(
      String engineName, String topicPrefix, String database, String slot, Duration timeout) {
    Map<String, Object> config = new HashMap<>(kafka);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<JsonNode, byte[]> latest = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        return StoredOffsets.NONE;
      }
      List<TopicPartition> partitions = new ArrayList<>();
      infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new OffsetStoreException(
              "Timed out after " + timeout + " reading the relay offsets topic '" + topic + "'",
              null);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (record.key() != null) {
            latest.put(mapper.readTree(record.key()), record.value());
          }
        }
      }
    } catch (IOException e) {
      throw new OffsetStoreException(
          "Unreadable key in the relay offsets topic '" + topic + "'", e);
    }
    return new StoredOffsets(
        engineOffset(latest.get(engineKey(engineName, topicPrefix))),
        identity(latest.get(identityKey(database, slot))));
  }

  /** Writes the slot identity and waits for Kafka's acknowledgement. */
  public void writeIdentity(SlotIdentity identity, Duration timeout)
      throws InterruptedException, TimeoutException {
    Properties config = new Properties();
    config.putAll(kafka);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      byte[] key = mapper.writeValueAsBytes(identityKey(identity.database(), identity.slot()));
      byte[] value = mapper.writeValueAsBytes(identity.toJson(mapper));
      producer
          .send(new ProducerRecord<>(topic, key, value))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | IOException e) {
      throw new OffsetStoreException(
          "Could not write the slot identity to the relay offsets topic '" + topic + "'", e);
    }
  }

  /**
   * After a slot recovery or a promotion: removes the engine's stored offset (a tombstone under
   * each key the topic holds for it, byte for byte as Kafka Connect wrote it, since the offset
   * store keys by the bytes) and writes {@code identity} (the recreated slot's, or the slot's on
   * the new timeline), so that the relay streams from the slot's confirmed position. Waits for
   * Kafka's acknowledgements.
   *
   * @return how many engine offset keys were removed
   */
  public int resetToSlot(
      String engineName, String topicPrefix, SlotIdentity identity, Duration timeout)
      throws InterruptedException, TimeoutException {
    JsonNode engineKey = engineKey(engineName, topicPrefix);
    List<byte[]> engineKeys = new ArrayList<>();
    Map<String, Object> config = new HashMap<>(kafka);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      List<TopicPartition> partitions = new ArrayList<>();
      if (infos != null) {
        infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new OffsetStoreException(
              "Timed out after " + timeout + " reading the relay offsets topic '" + topic + "'",
              null);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (record.key() != null
              && mapper.readTree(record.key()).equals(engineKey)
              && engineKeys.stream().noneMatch(k -> java.util.Arrays.equals(k, record.key()))) {
            engineKeys.add(record.key());
          }
        }
      }
    } catch (IOException e) {
      throw new OffsetStoreException(
          "Unreadable key in the relay offsets topic '" + topic + "'", e);
    }
    Properties producerConfig = new Properties();
    producerConfig.putAll(kafka);
    producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
    producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (byte[] key : engineKeys) {
        producer
            .send(new ProducerRecord<>(topic, key, null))
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
      byte[] key = mapper.writeValueAsBytes(identityKey(identity.database(), identity.slot()));
      producer
          .send(new ProducerRecord<>(topic, key, mapper.writeValueAsBytes(identity.toJson(mapper))))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | IOException e) {
      throw new OffsetStoreException(
          "Could not reset the relay offsets in topic '" + topic + "' after the slot recovery", e);
    }
    return engineKeys.size();
  }

  private static boolean reached(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> entry : end.entrySet()) {
      if (consumer.position(entry.getKey()) < entry.getValue()) {
        return false;
      }
    }
    return true;
  }

  private JsonNode engineKey(String engineName, String topicPrefix) {
    ArrayNode key = mapper.createArrayNode();
    key.add(engineName);
    key.addObject().put("server", topicPrefix);
    return key;
  }

  private JsonNode identityKey(String database, String slot) {
    ArrayNode key = mapper.createArrayNode();
    key.add(IDENTITY_NAMESPACE);
    key.addObject().put("database", database).put("slot", slot);
    return key;
  }

  private Optional<EngineOffset> engineOffset(byte[] value) {
    if (value == null) {
      return Optional.empty();
    }
    JsonNode node = parse(value, "engine offset");
    return Optional.of(
        new EngineOffset(
            lsnField(node, "lsn"), lsnField(node, "lsn_commit"), lsnField(node, "lsn_proc")));
  }

  private Optional<SlotIdentity> identity(byte[] value) {
    return value == null
        ? Optional.empty()
        : Optional.of(SlotIdentity.fromJson(parse(value, "slot identity")));
  }

  private JsonNode parse(byte[] value, String what) {
    try {
      return mapper.readTree(value);
    } catch (IOException e) {
      throw new OffsetStoreException(
          "Unreadable "
              + what
              + " in the relay offsets topic '"
              + topic
              + "': "
              + new String(value, StandardCharsets.UTF_8),
          e);
    }
  }

  private static Optional<Lsn> lsnField(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull()
        ? Optional.empty()
        : Optional.of(new Lsn(value.asLong()));
  }
}
