package io.herald.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class TelemetryTest {

  @Test
  void shouldBeOffWhenNoExporterIsNamed() {
    assertThat(Telemetry.tracesExporter(Map.of(), new Properties())).isEqualTo("none");
    assertThat(Telemetry.tracesExporter(Map.of("OTEL_TRACES_EXPORTER", " "), new Properties()))
        .isEqualTo("none");
  }

  @Test
  void shouldPreferTheSystemPropertyOverTheEnvironment() {
    Properties properties = new Properties();
    properties.setProperty("otel.traces.exporter", "OTLP");

    assertThat(Telemetry.tracesExporter(Map.of("OTEL_TRACES_EXPORTER", "logging-otlp"), properties))
        .isEqualTo("otlp");
    assertThat(
            Telemetry.tracesExporter(
                Map.of("OTEL_TRACES_EXPORTER", "logging-otlp"), new Properties()))
        .isEqualTo("logging-otlp");
  }

  @Test
  void shouldDefaultToNoExportAndTheProcessName() {
    assertThat(Telemetry.defaults("herald-writer"))
        .containsEntry("otel.service.name", "herald-writer")
        .containsEntry("otel.traces.exporter", "none")
        .containsEntry("otel.metrics.exporter", "none")
        .containsEntry("otel.logs.exporter", "none")
        .containsEntry("otel.exporter.otlp.protocol", "http/protobuf");
  }

  @Test
  void shouldMakeTheNoopGlobalOnlyWhereNoneIsSet() {
    try {
      OpenTelemetry agents =
          OpenTelemetry.propagating(
              ContextPropagators.create(W3CTraceContextPropagator.getInstance()));
      GlobalOpenTelemetry.set(agents);
      Telemetry.noopGlobal();
      assertThat(GlobalOpenTelemetry.get().getPropagators())
          .as("the global someone else set")
          .isSameAs(agents.getPropagators());

      GlobalOpenTelemetry.resetForTest();
      Telemetry.noopGlobal();
      Telemetry.noopGlobal();
      assertThat(GlobalOpenTelemetry.isSet()).isTrue();
      assertThat(
              GlobalOpenTelemetry.get()
                  .getTracer("test")
                  .spanBuilder("span")
                  .startSpan()
                  .isRecording())
          .isFalse();

      // Not taken for the agent's: a process that asks for an exporter still gets the SDK.
      try (Telemetry telemetry =
          Telemetry.install(
              "herald-test", Map.of("OTEL_TRACES_EXPORTER", "logging-otlp"), new Properties())) {
        assertThat(telemetry.installed()).isTrue();
      }
    } finally {
      GlobalOpenTelemetry.resetForTest();
    }
  }

  @Test
  void shouldLeaveAnUnsetGlobalUnsetForTheApplication() {
    try {
      GlobalOpenTelemetry.resetForTest();
      OpenTelemetry none = Telemetry.globalIfSet();
      assertThat(none.getTracer("test").spanBuilder("span").startSpan().isRecording()).isFalse();
      assertThat(GlobalOpenTelemetry.isSet()).as("the global, after asking for it").isFalse();

      OpenTelemetry applications =
          OpenTelemetry.propagating(
              ContextPropagators.create(W3CTraceContextPropagator.getInstance()));
      GlobalOpenTelemetry.set(applications);
      assertThat(Telemetry.globalIfSet().getPropagators()).isSameAs(applications.getPropagators());
    } finally {
      GlobalOpenTelemetry.resetForTest();
    }
  }

  @Test
  void shouldRecordNothingWhenTracingIsOff() {
    try (Telemetry telemetry = Telemetry.install("herald-test", Map.of(), new Properties())) {
      assertThat(telemetry.installed()).isFalse();
      assertThat(
              telemetry
                  .openTelemetry()
                  .getTracer("test")
                  .spanBuilder("span")
                  .startSpan()
                  .isRecording())
          .isFalse();
    }
  }

  @Test
  void shouldRecordSpansWhenAnExporterIsNamed() {
    try (Telemetry telemetry =
        Telemetry.install(
            "herald-test", Map.of("OTEL_TRACES_EXPORTER", "logging-otlp"), new Properties())) {
      assertThat(telemetry.installed()).isTrue();
      assertThat(
              telemetry
                  .openTelemetry()
                  .getTracer("test")
                  .spanBuilder("span")
                  .startSpan()
                  .isRecording())
          .isTrue();
    }
  }

  @Test
  void shouldExportSpansOverOtlpHttpWhenOtlpIsNamed() throws Exception {
    List<String> received = new CopyOnWriteArrayList<>();
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/v1/traces",
        exchange -> {
          try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(
                exchange.getRequestHeaders().getFirst("Content-Type")
                    + " "
                    + new String(body, StandardCharsets.ISO_8859_1));
            exchange.sendResponseHeaders(200, -1);
          }
        });
    receiver.start();
    // The autoconfiguration reads the real system properties: set for this test only.
    Map<String, String> properties =
        Map.of(
            "otel.traces.exporter",
            "otlp",
            "otel.exporter.otlp.traces.endpoint",
            "http://127.0.0.1:" + receiver.getAddress().getPort() + "/v1/traces");
    properties.forEach(System::setProperty);
    try (Telemetry telemetry = Telemetry.install("herald-otlp-test")) {
      telemetry.openTelemetry().getTracer("test").spanBuilder("exported").startSpan().end();
    } finally {
      properties.keySet().forEach(System::clearProperty);
      receiver.stop(0);
    }

    // Closing flushed the batch: one protobuf request naming the service and the span.
    assertThat(received).hasSize(1);
    assertThat(received.getFirst())
        .startsWith("application/x-protobuf")
        .contains("herald-otlp-test")
        .contains("exported");
  }
}
