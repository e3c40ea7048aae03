package io.herald.devstack.telemetry;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An SDK whose ended spans a test reads: a hand-written exporter, exported as each span ends. */
public final class RecordedSpans implements SpanExporter {

  private final List<SpanData> spans = new CopyOnWriteArrayList<>();
  public final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(this))
                  .build())
          .build();

  public List<SpanData> spans() {
    return List.copyOf(spans);
  }

  public SpanData named(String name) {
    return spans.stream()
        .filter(span -> span.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span named " + name + " in " + spans));
  }

  @Override
  public CompletableResultCode export(Collection<SpanData> batch) {
    spans.addAll(batch);
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode flush() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode shutdown() {
    return CompletableResultCode.ofSuccess();
  }
}
