package io.herald.writer.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.CanonicalJson;
import io.herald.common.json.Json;
import io.herald.writer.outbox.OutboxEvent;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PublicationEventsTest {

  private static final PublicationKey KEY = new PublicationKey("t1", "a-84", "r-3", "dest-a");

  @Test
  void shouldWriteThePublicationRequestedContract() throws Exception {
    ObjectNode content =
        (ObjectNode)
            Json.mapper()
                .readTree("{\"title\":\"Ünïcode \\\"quoted\\\"\",\"n\":[1.50,2e3,null],\"o\":{}}");
    UUID jobId = UUID.fromString("01a22c1e-2315-7060-b578-fec2c2a13fd3");
    Instant requestedAt = Instant.parse("2026-11-30T10:00:00.123456Z");
    PublicationJob job =
        new PublicationJob(
            jobId,
            KEY,
            KEY.idempotencyKey(),
            CanonicalJson.sha256Hex(content),
            content,
            "REQUESTED",
            null,
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            null,
            requestedAt,
            requestedAt);

    OutboxEvent event = PublicationEvents.requested(UUID.randomUUID(), job);

    PublicationRequested parsed =
        PublicationRequested.fromJson(Json.mapper().readTree(event.payloadJson()));
    PublicationRequested expected = PublicationRequested.of(jobId, KEY, content, requestedAt);
    assertThat(parsed).isEqualTo(expected);
    assertThat(Json.mapper().readTree(event.payloadJson())).isEqualTo(expected.toJson());
    assertThat(event.aggregateId()).isEqualTo("t1/a-84/dest-a");
    assertThat(event.eventType()).isEqualTo(EventTypes.PUBLICATION_REQUESTED);
    assertThat(event.tenant()).isEqualTo("t1");
    assertThat(event.traceParent()).isEqualTo(job.traceParent());
  }
}
