package io.herald.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class PartitionsTest {

  @Test
  void shouldComputeThePartitionAsTheProducersDefaultPartitionerDoes() {
    for (String key : List.of("t1/a-1/dest-a", "t2/article-42/dest-b", "x/y/z")) {
      for (int partitions : new int[] {1, 2, 3, 12}) {
        assertThat(Partitions.forKey(key, partitions))
            .as(key + " over " + partitions)
            .isEqualTo(
                BuiltInPartitioner.partitionForKey(
                    key.getBytes(StandardCharsets.UTF_8), partitions));
      }
    }
  }

  @Test
  void shouldChooseEveryPartitionOrOnlyTheKeys() {
    assertThat(Partitions.all().of(3)).containsExactly(0, 1, 2);
    assertThat(Partitions.ofKey("t1/a-1/dest-a").of(12))
        .containsExactly(Partitions.forKey("t1/a-1/dest-a", 12));
  }
}
