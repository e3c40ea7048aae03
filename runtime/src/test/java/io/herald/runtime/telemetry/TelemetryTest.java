package io.herald.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
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
        .containsEntry("otel.logs.exporter", "none");
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
}
