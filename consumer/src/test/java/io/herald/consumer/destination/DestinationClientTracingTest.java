package io.herald.consumer.destination;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.common.event.PublicationKey;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.trace.DeliveryTracing;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.devstack.simulator.Fault;
import io.herald.devstack.simulator.ReceivedRequest;
import io.herald.devstack.telemetry.RecordedSpans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The trace context a destination receives: the stored one unchanged without an SDK, the client
 * span's (a child of the processing span, in the stored trace) with one.
 */
class DestinationClientTracingTest {

  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String STORED = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

  private DestinationSimulator simulator;
  private ExecutorService executor;

  @BeforeEach
  void start() {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    executor = Executors.newVirtualThreadPerTaskExecutor();
  }

  @AfterEach
  void stop() {
    executor.shutdownNow();
    simulator.close();
  }

  @Test
  void shouldForwardTheStoredTraceContextUnchangedWhenNoSdkRecords() {
    try (DestinationClient client = client(DeliveryTracing.NOOP)) {
      client.publish(delivery("k-noop"));
    }

    ReceivedRequest received = simulator.receivedRequests().getFirst();
    assertThat(received.header("traceparent")).contains(STORED);
    assertThat(received.header("tracestate")).contains("k=v");
  }

  @Test
  void shouldSendTheClientSpanAsParentInTheStoredTraceWhenAnSdkRecords() {
    RecordedSpans recorded = new RecordedSpans();
    DeliveryTracing tracing = DeliveryTracing.of(recorded.sdk);
    ClaimedDelivery delivery = delivery("k-traced");
    try (DestinationClient client = client(tracing)) {
      Span processing = tracing.processing(delivery, "dest-a");
      try (Scope ignored = processing.makeCurrent()) {
        client.publish(delivery);
      }
      processing.end();
    }

    SpanData process = recorded.named(DeliveryTracing.PROCESS);
    SpanData call = recorded.named(DestinationClient.PUBLISH_SPAN);
    assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(process.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(process.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(call.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(call.getParentSpanId()).isEqualTo(process.getSpanId());
    assertThat(call.getAttributes().get(DeliveryTracing.HTTP_STATUS)).isEqualTo(201L);
    assertThat(call.getAttributes().get(DeliveryTracing.IDEMPOTENCY_KEY)).isTrue();
    assertThat(call.getAttributes().get(DeliveryTracing.OUTCOME)).isEqualTo("published");
    ReceivedRequest received = simulator.receivedRequests().getFirst();
    assertThat(received.header("traceparent"))
        .contains("00-" + TRACE_ID + "-" + call.getSpanId() + "-01");
    assertThat(received.header("tracestate")).contains("k=v");
  }

  @Test
  void shouldMarkTheClientSpanAsFailedWhenTheDestinationFails() {
    RecordedSpans recorded = new RecordedSpans();
    simulator.failNext("dest-a", new Fault.Status(503), 1);
    try (DestinationClient client = client(DeliveryTracing.of(recorded.sdk))) {
      client.publish(delivery("k-failed"));
    }

    SpanData call = recorded.named(DestinationClient.PUBLISH_SPAN);
    assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(call.getAttributes().get(DeliveryTracing.HTTP_STATUS)).isEqualTo(503L);
  }

  @Test
  void shouldParentALookupOnTheStoredContextWhenNoSpanIsCurrent() {
    RecordedSpans recorded = new RecordedSpans();
    try (DestinationClient client = client(DeliveryTracing.of(recorded.sdk))) {
      client.lookUp(delivery("k-lookup"));
    }

    SpanData call = recorded.named(DestinationClient.LOOKUP_SPAN);
    assertThat(call.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(call.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  private DestinationClient client(DeliveryTracing tracing) {
    DestinationProfile.Preset preset = DestinationProfile.Preset.STRIPE_LIKE;
    DestinationProfile profile =
        new DestinationProfile(
            preset,
            preset.idempotencyHeader(),
            preset.dedupWindow(),
            false,
            Optional.empty(),
            preset.conflict(),
            Optional.empty(),
            "/id",
            Optional.of(DestinationProfile.DEFAULT_LOOKUP_PATH),
            "/id",
            true,
            0);
    return new DestinationClient(
        new DestinationConfig(
            "dest-a",
            URI.create(simulator.baseUri() + "/dest-a"),
            profile,
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            4,
            Optional.empty()),
        executor,
        tracing);
  }

  private static ClaimedDelivery delivery(String key) {
    return new ClaimedDelivery(
        UUID.randomUUID(),
        UUID.randomUUID(),
        new PublicationKey("t1", "a-" + key, "r-1", "dest-a"),
        key,
        "{\"title\":\"T\"}",
        1,
        1,
        STORED,
        "k=v",
        null,
        DeliveryState.DISPATCHING);
  }
}
