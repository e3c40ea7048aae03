package io.herald.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class RecordsTest {

  @Test
  void shouldReadTheLastHeaderAsTextUnquoted() {
    ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("t", 0, 0, null, null);
    record.headers().add("id", "first".getBytes(StandardCharsets.UTF_8));
    record.headers().add("id", "\"last\"".getBytes(StandardCharsets.UTF_8));
    record.headers().add("empty", null);

    assertThat(Records.header(record, "id")).isEqualTo("last");
    assertThat(Records.header(record, "empty")).isNull();
    assertThat(Records.header(record, "missing")).isNull();
  }

  @Test
  void shouldReturnNullForTextThatIsNoUuid() {
    UUID id = UUID.randomUUID();

    assertThat(Records.uuid(id.toString())).isEqualTo(id);
    assertThat(Records.uuid("not-a-uuid")).isNull();
    assertThat(Records.uuid(null)).isNull();
  }
}
