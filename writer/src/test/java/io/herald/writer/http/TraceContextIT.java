package io.herald.writer.http;

import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;

import io.herald.common.trace.TraceContext;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.writer.RunningWriter;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** W3C trace context travels from the request to the job row and the outbox row. */
@HeraldIntegrationTest
class TraceContextIT {

  private static final String CONTENT = "{\"title\":\"t\"}";
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  private static final String TRACESTATE = "vendor1=opaque-value,vendor2=x";
  private static final String STORED =
      "SELECT j.trace_parent AS job_parent, j.trace_state AS job_state,"
          + " o.trace_parent AS event_parent, o.trace_state AS event_state"
          + " FROM writer.publication_job j JOIN writer.outbox o ON o.payload->>'jobId' = j.id::text"
          + " WHERE j.id = ?::uuid";

  @RegisterExtension static final RunningWriter writer = RunningWriter.perClass();

  @Test
  void shouldStoreGivenTraceparentAndTracestateUnchangedOnJobAndOutboxRow() {
    Map<String, Object> stored =
        publishWith(Map.of("traceparent", TRACEPARENT, "tracestate", TRACESTATE));

    assertThat(stored.get("job_parent")).isEqualTo(TRACEPARENT);
    assertThat(stored.get("event_parent")).isEqualTo(TRACEPARENT);
    assertThat(stored.get("job_state")).isEqualTo(TRACESTATE);
    assertThat(stored.get("event_state")).isEqualTo(TRACESTATE);
  }

  @Test
  void shouldIgnoreAnInvalidTraceparentAndStartANewTrace() {
    String invalid = "00-00000000000000000000000000000000-00f067aa0ba902b7-01";
    Map<String, Object> stored =
        publishWith(Map.of("traceparent", invalid, "tracestate", TRACESTATE));

    String parent = (String) stored.get("event_parent");
    assertThat(TraceContext.parse(parent, null)).isPresent();
    assertThat(parent).isNotEqualTo(invalid);
    assertThat(stored.get("job_parent")).isEqualTo(parent);
    assertThat(stored.get("event_state")).isNull();
  }

  @Test
  void shouldIgnoreGarbageInTraceparent() {
    Map<String, Object> stored = publishWith(Map.of("traceparent", "not a trace; DROP TABLE x"));

    assertThat(TraceContext.parse((String) stored.get("event_parent"), null)).isPresent();
  }

  @Test
  void shouldStartANewTraceForEachRequestWithoutOne() {
    Map<String, Object> first = publishWith(Map.of());
    Map<String, Object> second = publishWith(Map.of());

    TraceContext one = TraceContext.parse((String) first.get("event_parent"), null).orElseThrow();
    TraceContext two = TraceContext.parse((String) second.get("event_parent"), null).orElseThrow();
    assertThat(one.traceId()).isNotEqualTo(two.traceId());
    assertThat(first.get("job_parent")).isEqualTo(first.get("event_parent"));
  }

  private static Map<String, Object> publishWith(Map<String, String> headers) {
    HttpResponse<String> response =
        writer.post(
            PublicationApi.PUBLICATIONS,
            TOKEN_A,
            body(uniqueArticle(), CONTENT),
            new HashMap<>(headers));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    return writer.row(STORED, json(response.body()).get("jobId").asText());
  }
}
