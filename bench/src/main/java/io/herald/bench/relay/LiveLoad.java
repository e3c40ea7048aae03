package io.herald.bench.relay;

import io.herald.relay.it.OutboxRows;
import io.herald.relay.it.RelayFixture;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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

  /** Latencies of one offered load, in nanoseconds, sorted; worst per second in milliseconds. */
  public record Latencies(List<Long> sorted, java.util.SortedMap<Integer, Long> worstPerSecond) {}

  /**
   * Offers {@code events} rows at {@code perSecond}; the latencies of those committed after the
   * first {@code warmUpSeconds} seconds, and the worst of every second. Waits up to two minutes for
   * the rows to arrive.
   */
  public static Latencies offer(RelayFixture fixture, int perSecond, int events, int warmUpSeconds)
      throws Exception {
    Map<String, Long> committedAt = new ConcurrentHashMap<>();
    List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    java.util.SortedMap<Integer, Long> worstPerSecond = new java.util.TreeMap<>();
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
          CompletableFuture.runAsync(() -> write(fixture, perSecond, events, committedAt));
      Map<String, Long> arrivedAt = new HashMap<>();
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (arrivedAt.size() < events && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(5))) {
          long now = System.nanoTime();
          arrivedAt.putIfAbsent(
              new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8), now);
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
                latencies.add(at - committed);
              }
            }
          });
    }
    Collections.sort(latencies);
    return new Latencies(latencies, worstPerSecond);
  }

  private static void write(
      RelayFixture fixture, int perSecond, int events, Map<String, Long> committedAt) {
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
        java.util.UUID id = java.util.UUID.randomUUID();
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

  /** The {@code p} quantile of sorted nanoseconds, in milliseconds; NaN when there are none. */
  public static double percentile(List<Long> sorted, double p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(p * sorted.size()) - 1)) / 1e6;
  }

  private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(info -> new TopicPartition(topic, info.partition()))
        .toList();
  }
}
