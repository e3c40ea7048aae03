package io.herald.writer.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.common.json.Json;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class StatusUpdateTest {

  private static final UUID JOB = UUID.fromString("01a22c1e-2315-7060-b578-fec2c2a13fd3");

  @Test
  void shouldReadTheFieldsTheStatusViewKeeps() throws Exception {
    StatusUpdate update =
        StatusUpdate.fromJson(
            Json.mapper()
                .readTree(
                    "{\"deliveryId\":\"x\",\"jobId\":\""
                        + JOB
                        + "\",\"tenant\":\"t1\",\"state\":\"PUBLISHED\","
                        + "\"remoteId\":\"r-9\",\"attempts\":2,\"reason\":null,\"occurredAt\":\"2026-11-30T10:00:00Z\"}"));

    assertThat(update)
        .isEqualTo(
            new StatusUpdate(JOB, "t1", "PUBLISHED", "r-9", Instant.parse("2026-11-30T10:00:00Z")));
  }

  @Test
  void shouldNameWhatIsWrong() {
    assertInvalid("[]", "JSON object");
    assertInvalid(
        "{\"tenant\":\"t1\",\"state\":\"PUBLISHED\",\"occurredAt\":\"2026-11-30T10:00:00Z\"}",
        "jobId");
    assertInvalid(
        "{\"jobId\":\"nope\",\"tenant\":\"t1\",\"state\":\"PUBLISHED\",\"occurredAt\":\"2026-11-30T10:00:00Z\"}",
        "jobId");
    assertInvalid(
        "{\"jobId\":\""
            + JOB
            + "\",\"tenant\":\"t1\",\"state\":\"DONE\",\"occurredAt\":\"2026-11-30T10:00:00Z\"}",
        "state");
    assertInvalid(
        "{\"jobId\":\""
            + JOB
            + "\",\"tenant\":\"t1\",\"state\":\"PUBLISHED\",\"occurredAt\":\"yesterday\"}",
        "occurredAt");
    assertInvalid(
        "{\"jobId\":\""
            + JOB
            + "\",\"tenant\":\"t1\",\"state\":\"PUBLISHED\",\"remoteId\":5,\"occurredAt\":\"2026-11-30T10:00:00Z\"}",
        "remoteId");
  }

  private static void assertInvalid(String json, String field) {
    assertThatThrownBy(() -> StatusUpdate.fromJson(Json.mapper().readTree(json)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(field);
  }
}
