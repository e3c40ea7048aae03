package io.herald.bench.relay;

import io.herald.bench.suite.Latency;
import io.herald.relay.it.OutboxRows;
import io.herald.relay.it.RelayFixture;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Open-loop live load for whatever tails the outbox into the fixture's publication-events topic (a
 * relay, Kafka Connect): one outbox row per transaction at a fixed rate, each at its scheduled
 * moment, and each row's latency from its commit to its arrival at a consumer of the topic (matched
 * by the {@code id} header), so a stalled pipeline cannot hide the stall.
 */
public final class LiveLoad {

  private LiveLoad() {}

  /**
   * Latencies of one offered load: those after the warm-up in microseconds ({@link Latency}); the
   * worst of every second of the run, warm-up included, in milliseconds.
   */
  public record Latencies(Histogram micros, SortedMap<Integer, Long> worstPerSecond) {}

  /**
   * Offers {@code events} rows at {@code perSecond}; the latencies of those committed after the
   * first {@code warmUpSeconds} seconds, and the worst of every second. Waits up to two minutes for
   * the rows to arrive.
   */
  public static Latencies offer(RelayFixture fixture, int perSecond, int events, int warmUpSeconds)
      throws Exception {
    Map<String, Long> committedAt = new ConcurrentHashMap<>();
    // Named before their insert, so an arrival is recognised even before its commit is noted.
    Set<String> offered = ConcurrentHashMap.newKeySet();
    // Both filled by this thread once the writer has finished, so neither needs a lock.
    Histogram latencies = Latency.histogram();
    SortedMap<Integer, Long> worstPerSecond = new TreeMap<>();
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.context().bootstrapServers());
    config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = partitions(consumer, fixture.publicationEvents);
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      partitions.forEach(consumer::position);
      CompletableFuture<Void> writer =
          CompletableFuture.runAsync(() -> write(fixture, perSecond, events, offered, committedAt));
      // Only this load's rows count: a relay still publishing an earlier backlog, or publishing
      // again what it had sent before a restart, must not end the wait early.
      Map<String, Long> arrivedAt = new HashMap<>();
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (arrivedAt.size() < events && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(5))) {
          long now = System.nanoTime();
          String id = new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8);
          if (offered.contains(id)) {
            arrivedAt.putIfAbsent(id, now);
          }
        }
      }
      writer.get(1, TimeUnit.MINUTES);
      long first = committedAt.values().stream().mapToLong(Long::longValue).min().orElse(0);
      arrivedAt.forEach(
          (id, at) -> {
            Long committed = committedAt.get(id);
            if (committed != null) {
              // Worst latency per second of the run: tells one long stall from many short ones.
              int second = (int) ((committed - first) / 1_000_000_000L);
              worstPerSecond.merge(second, (at - committed) / 1_000_000L, Math::max);
              if (second >= warmUpSeconds) {
                Latency.recordNanos(latencies, at - committed);
              }
            }
          });
    }
    return new Latencies(latencies, worstPerSecond);
  }

  private static void write(
      RelayFixture fixture,
      int perSecond,
      int events,
      Set<String> offered,
      Map<String, Long> committedAt) {
    String sql =
        "INSERT INTO writer.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id, payload)"
            + " VALUES (?, 'publication', ?, 'PublicationRequested', 't1', ?::jsonb)";
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement(sql)) {
      long start = System.nanoTime();
      for (int i = 0; i < events; i++) {
        long due = start + i * (1_000_000_000L / perSecond);
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        UUID id = UUID.randomUUID();
        offered.add(id.toString());
        insert.setObject(1, id);
        insert.setString(2, OutboxRows.key(i, 50));
        insert.setString(3, OutboxRows.payload(i));
        insert.executeUpdate();
        committedAt.put(id.toString(), System.nanoTime());
      }
    } catch (Exception e) {
      throw new IllegalStateException("latency writer failed", e);
    }
  }

  private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(info -> new TopicPartition(topic, info.partition()))
        .toList();
  }
}
