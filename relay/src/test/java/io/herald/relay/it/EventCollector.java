package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;

/**
 * Reads a topic from the beginning, accumulating every record, until the expected ids are there.
 * Not thread-safe: used from the test thread.
 */
final class EventCollector implements AutoCloseable {

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<ReceivedEvent> events = new ArrayList<>();

  EventCollector(String bootstrapServers, String topic) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(info -> new TopicPartition(topic, info.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls once, briefly. */
  List<ReceivedEvent> poll() {
    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
      Map<String, String> headers = new LinkedHashMap<>();
      for (Header header : record.headers()) {
        headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
      }
      events.add(
          new ReceivedEvent(
              record.topic(),
              record.partition(),
              record.offset(),
              record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8),
              record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8),
              headers));
    }
    return events;
  }

  /** Polls until every id in {@code expected} has arrived, or fails after {@code timeout}. */
  EventCollector awaitIds(Collection<UUID> expected, Duration timeout) {
    Set<String> wanted = expected.stream().map(UUID::toString).collect(Collectors.toSet());
    Awaitility.await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              poll();
              return ids().containsAll(wanted);
            });
    return this;
  }

  /** Polls for a while longer so late duplicates are counted too. */
  EventCollector drain(Duration quiet) {
    long until = System.nanoTime() + quiet.toNanos();
    while (System.nanoTime() < until) {
      poll();
    }
    return this;
  }

  List<ReceivedEvent> events() {
    return events;
  }

  Set<String> ids() {
    Set<String> ids = new HashSet<>();
    events.forEach(event -> ids.add(event.id()));
    return ids;
  }

  /** How many records repeat an id already seen. */
  int duplicates() {
    return events.size() - ids().size();
  }

  /** Asserts that the set of id headers equals the outbox ids. */
  void assertIdsExactly(Collection<UUID> expected) {
    // Set arithmetic: AssertJ's any-order comparison is quadratic, minutes at 150,000 ids.
    Set<String> got = ids();
    Set<String> wanted = expected.stream().map(UUID::toString).collect(Collectors.toSet());
    assertThat(wanted).as("expected ids (duplicates among them)").hasSameSizeAs(expected);
    Set<String> missing = new HashSet<>(wanted);
    missing.removeAll(got);
    Set<String> unexpected = new HashSet<>(got);
    unexpected.removeAll(wanted);
    assertThat(missing).as("%d of %d ids never arrived", missing.size(), wanted.size()).isEmpty();
    assertThat(unexpected)
        .as("%d ids arrived that were never written", unexpected.size())
        .isEmpty();
  }

  /**
   * Asserts that every id in {@code required} arrived and no id outside it and {@code maybe} did
   * (rows whose commit failed may or may not have been written).
   *
   * @return how many ids of {@code maybe} arrived
   */
  int assertIdsBetween(Collection<UUID> required, Collection<UUID> maybe) {
    Set<String> got = ids();
    Set<String> wanted = required.stream().map(UUID::toString).collect(Collectors.toSet());
    Set<String> allowed = maybe.stream().map(UUID::toString).collect(Collectors.toSet());
    Set<String> missing = new HashSet<>(wanted);
    missing.removeAll(got);
    Set<String> unexpected = new HashSet<>(got);
    unexpected.removeAll(wanted);
    int arrivedMaybe = unexpected.size();
    unexpected.removeAll(allowed);
    assertThat(missing).as("%d of %d ids never arrived", missing.size(), wanted.size()).isEmpty();
    assertThat(unexpected)
        .as("%d ids arrived that were never written", unexpected.size())
        .isEmpty();
    return arrivedMaybe;
  }

  /**
   * Asserts commit order per key: for each key, the first arrival of each sequence number comes in
   * increasing order (a re-delivered older event after a restart is a duplicate, not a reordering).
   */
  void assertCommitOrderPerKey() {
    Map<String, Long> lastFirstSeen = new HashMap<>();
    Set<String> seen = new HashSet<>();
    for (ReceivedEvent event : events) {
      if (!seen.add(event.id())) {
        continue;
      }
      long seq = event.seq();
      Long previous = lastFirstSeen.put(event.key(), seq);
      assertThat(previous == null || previous < seq)
          .as("event seq %d for key %s arrived after seq %d", seq, event.key(), previous)
          .isTrue();
    }
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
