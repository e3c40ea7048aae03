package io.herald.writer.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.common.trace.TraceContext;
import io.opentelemetry.api.OpenTelemetry;
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
}
