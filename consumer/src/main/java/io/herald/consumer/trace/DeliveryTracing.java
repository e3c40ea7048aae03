package io.herald.consumer.trace;

import io.herald.common.event.EventHeaders;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Objects;

/**
 * The consumer's spans (docs/design.md, "Tracing"): a {@link SpanKind#CONSUMER} span per delivery
 * handled, a child of the trace context stored with it (the writer's server span, carried by the
 * outbox row and the Kafka headers), and a {@link SpanKind#CLIENT} span per destination call, a
 * child of the current span, whose context goes to the destination as {@code traceparent} and
 * {@code tracestate}.
 *
 * <p>Without an SDK (the API's no-op, the default) no span records, and the destination gets the
 * stored {@code traceparent}/{@code tracestate} unchanged, as before tracing existed.
 *
 * <p>Thread-safe.
 */
public final class DeliveryTracing {

  /** No spans; the stored trace context forwarded unchanged. */
  public static final DeliveryTracing NOOP = new DeliveryTracing(OpenTelemetry.noop());

  /** The processing span's name. */
  public static final String PROCESS = "process delivery";

  public static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("herald.destination");
  public static final AttributeKey<String> DELIVERY_ID =
      AttributeKey.stringKey("herald.delivery.id");
  public static final AttributeKey<String> JOB_ID = AttributeKey.stringKey("herald.job.id");
  public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("herald.attempt");
  public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("herald.outcome");
  public static final AttributeKey<Boolean> IDEMPOTENCY_KEY =
      AttributeKey.booleanKey("herald.idempotency_key.sent");
  public static final AttributeKey<Long> HTTP_STATUS =
      AttributeKey.longKey("http.response.status_code");
  public static final AttributeKey<String> HTTP_METHOD =
      AttributeKey.stringKey("http.request.method");

  private static final TextMapGetter<ClaimedDelivery> STORED =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(ClaimedDelivery delivery) {
          return List.of(EventHeaders.TRACEPARENT, EventHeaders.TRACESTATE);
        }

        @Override
        public String get(ClaimedDelivery delivery, String key) {
          if (delivery == null) {
            return null;
          }
          return switch (key) {
            case EventHeaders.TRACEPARENT -> delivery.traceParent();
            case EventHeaders.TRACESTATE -> delivery.traceState();
            default -> null;
          };
        }
      };

  private final Tracer tracer;

  private DeliveryTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("io.herald.consumer");
  }

  /** Tracing through {@code openTelemetry}; {@link #NOOP} for the no-op. */
  public static DeliveryTracing of(OpenTelemetry openTelemetry) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    return new DeliveryTracing(openTelemetry);
  }

  /**
   * Starts the processing span of {@code delivery} at {@code destination}, a child of its stored
   * trace context (a new root when it has none). The caller makes it current and ends it.
   */
  public Span processing(ClaimedDelivery delivery, String destination) {
    return tracer
        .spanBuilder(PROCESS)
        .setSpanKind(SpanKind.CONSUMER)
        .setParent(stored(delivery))
        .setAttribute(DESTINATION, destination)
        .setAttribute(DELIVERY_ID, delivery.id().toString())
        .setAttribute(JOB_ID, String.valueOf(delivery.jobId()))
        .setAttribute(ATTEMPT, (long) delivery.attempts())
        .startSpan();
  }

  /**
   * Starts a destination call's client span: a child of the current span when there is one (the
   * processing span), else of the delivery's stored context (a reconciler's lookup). The caller
   * ends it.
   */
  public Span call(String name, String method, ClaimedDelivery delivery, String destination) {
    Context current = Context.current();
    Context parent =
        Span.fromContext(current).getSpanContext().isValid() ? current : stored(delivery);
    return tracer
        .spanBuilder(name)
        .setSpanKind(SpanKind.CLIENT)
        .setParent(parent)
        .setAttribute(DESTINATION, destination)
        .setAttribute(HTTP_METHOD, method)
        .startSpan();
  }

  /**
   * Puts the trace context on the request: the client span's when it records (an SDK is installed),
   * otherwise the delivery's stored one unchanged.
   */
  public static void inject(Span call, ClaimedDelivery delivery, HttpRequest.Builder request) {
    if (call.isRecording()) {
      W3CTraceContextPropagator.getInstance()
          .inject(
              Context.root().with(call),
              request,
              (builder, name, value) -> builder.header(name, value));
      return;
    }
    if (delivery.traceParent() != null) {
      request.header(EventHeaders.TRACEPARENT, delivery.traceParent());
      if (delivery.traceState() != null) {
        request.header(EventHeaders.TRACESTATE, delivery.traceState());
      }
    }
  }

  /**
   * Records how a call or a delivery ended: its outcome label, ERROR unless it {@code succeeded}.
   */
  public static void ended(Span span, String outcome, Integer httpStatus, boolean succeeded) {
    span.setAttribute(OUTCOME, outcome);
    if (httpStatus != null) {
      span.setAttribute(HTTP_STATUS, (long) httpStatus);
    }
    if (!succeeded) {
      span.setStatus(StatusCode.ERROR, outcome);
    }
  }

  private static Context stored(ClaimedDelivery delivery) {
    return W3CTraceContextPropagator.getInstance().extract(Context.root(), delivery, STORED);
  }
}
