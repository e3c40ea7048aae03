package io.herald.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.common.trace.TraceContext;
import io.herald.devstack.telemetry.RecordedSpans;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RequestTracingTest {

  private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  private final RequestTracing tracing =
      new RequestTracing(OpenTelemetry.noop(), new SplittableRandom(7));

  @Test
  void shouldKeepAValidIncomingContextUnchanged() {
    RequestTracing.Traced traced = tracing.start("POST publish", PARENT, "k=v");

    assertThat(traced.stored()).isEqualTo(new TraceContext(PARENT, "k=v"));
    traced.span().end();
  }

  @Test
  void shouldStartANewRootWhenTheIncomingContextIsInvalidOrAbsent() {
    TraceContext invalid = tracing.start("POST publish", "01-zz-00-01", "k=v").stored();
    TraceContext absent = tracing.start("POST publish", null, null).stored();

    assertThat(TraceContext.parse(invalid.traceparent(), null)).isPresent();
    assertThat(invalid.tracestate()).isNull();
    assertThat(absent.traceId()).isNotEqualTo(invalid.traceId());
  }

  @Test
  void shouldStoreTheServerSpanAsAChildInTheClientsTraceWhenAnSdkRecords() {
    RecordedSpans recorded = new RecordedSpans();
    RequestTracing traced = new RequestTracing(recorded.sdk, new SplittableRandom(7));

    RequestTracing.Traced request = traced.start("POST publish", PARENT, "k=v");
    request.span().end();

    SpanData server = recorded.named("POST publish");
    assertThat(server.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(server.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(server.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(request.stored().traceId()).isEqualTo(server.getTraceId());
    assertThat(request.stored().traceparent()).contains(server.getSpanId());
  }

  @Test
  void shouldRecordTheOutboxInsertAsAChildOfTheServerSpanWithTheTenant() {
    RecordedSpans recorded = new RecordedSpans();
    RequestTracing traced = new RequestTracing(recorded.sdk, new SplittableRandom(7));

    RequestTracing.Traced request = traced.start("POST publish", PARENT, null);
    try (Scope ignored = request.span().makeCurrent()) {
      traced.outboxInsert("acme", List::of);
    }
    request.span().end();

    SpanData insert = recorded.named(RequestTracing.OUTBOX_INSERT);
    assertThat(insert.getParentSpanId()).isEqualTo(recorded.named("POST publish").getSpanId());
    assertThat(insert.getAttributes().get(RequestTracing.TENANT)).isEqualTo("acme");
    assertThat(insert.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  @Test
  void shouldMarkTheOutboxInsertAsFailedWhenTheStoreThrows() {
    RecordedSpans recorded = new RecordedSpans();
    RequestTracing traced = new RequestTracing(recorded.sdk, new SplittableRandom(7));

    assertThatThrownBy(
            () ->
                traced.outboxInsert(
                    "acme",
                    () -> {
                      throw new IllegalStateException("database down");
                    }))
        .hasMessage("database down");

    assertThat(recorded.named(RequestTracing.OUTBOX_INSERT).getStatus().getStatusCode())
        .isEqualTo(StatusCode.ERROR);
  }
}
