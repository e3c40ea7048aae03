package io.herald.cli.kafka;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;
import org.apache.kafka.common.utils.Utils;

/**
 * Which partitions of a topic a {@link TopicReader} reads: all of them, or the one the producer's
 * default partitioner gives a record key (murmur2 of the key's bytes; the relay sets no partition),
 * known only once the topic's partition count is. Immutable.
 */
public final class Partitions {

  private final String key;

  private Partitions(String key) {
    this.key = key;
  }

  /** Every partition. */
  public static Partitions all() {
    return new Partitions(null);
  }

  /** The partition of records keyed {@code key}. */
  public static Partitions ofKey(String key) {
    return new Partitions(Objects.requireNonNull(key, "key"));
  }

  /** The partition the default partitioner gives {@code key} among {@code partitions}. */
  public static int forKey(String key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  /** The chosen partition numbers of a topic with {@code count} partitions. */
  List<Integer> of(int count) {
    return key == null ? IntStream.range(0, count).boxed().toList() : List.of(forKey(key, count));
  }

  @Override
  public String toString() {
    return key == null ? "all partitions" : "the partition of key " + key;
  }
}
