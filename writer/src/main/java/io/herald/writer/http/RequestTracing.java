package io.herald.writer.http;

import io.herald.common.event.EventHeaders;
import io.herald.common.trace.TraceContext;
import io.herald.writer.job.Reservation;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Decides the trace context a request's job and outbox event carry, and opens the request's server
 * span through the OpenTelemetry API, and the {@value #OUTBOX_INSERT} span inside it.
 *
 * <ul>
 *   <li>A valid W3C {@code traceparent} (checked by {@link TraceContext#parse}) is kept, with its
 *       {@code tracestate}: stored unchanged when no OpenTelemetry SDK records spans (the API alone
 *       is a no-op), or replaced by the writer's own recorded span, a child in the same trace, when
 *       an SDK is installed (for example by the OpenTelemetry Java agent).
 *   <li>An invalid {@code traceparent} is ignored, as the W3C spec requires: the request proceeds
 *       as if it had none.
 *   <li>Without one, a new root: the recorded span's context when an SDK is installed, otherwise a
 *       fresh random trace id and span id.
 * </ul>
 *
 * <p>Thread-safe when the {@link RandomGenerator} is (a {@code SecureRandom} is).
 */
final class RequestTracing {

  private static final TextMapGetter<Map<String, String>> GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  /** The name of the span around a request's job and outbox insert. */
  static final String OUTBOX_INSERT = "outbox insert";

  static final AttributeKey<String> TENANT = AttributeKey.stringKey("herald.tenant");
  static final AttributeKey<String> JOB_ID = AttributeKey.stringKey("herald.job.id");
  static final AttributeKey<List<String>> JOB_IDS = AttributeKey.stringArrayKey("herald.job.ids");

  private final Tracer tracer;
  private final RandomGenerator random;

  RequestTracing(OpenTelemetry openTelemetry, RandomGenerator random) {
    this.tracer = openTelemetry.getTracer("io.herald.writer");
    this.random = Objects.requireNonNull(random, "random");
  }

  /** A started span (end it) and the trace context to store. */
  record Traced(Span span, TraceContext stored) {}

  Traced start(String spanName, String traceparent, String tracestate) {
    Optional<TraceContext> incoming = TraceContext.parse(traceparent, tracestate);
    W3CTraceContextPropagator propagator = W3CTraceContextPropagator.getInstance();
    Context parent =
        incoming
            .map(trace -> propagator.extract(Context.root(), carrier(trace), GETTER))
            .orElse(Context.root());
    Span span =
        tracer.spanBuilder(spanName).setSpanKind(SpanKind.SERVER).setParent(parent).startSpan();
    if (span.isRecording()) {
      Map<String, String> injected = new HashMap<>();
      propagator.inject(Context.root().with(span), injected, Map::put);
      Optional<TraceContext> own =
          TraceContext.parse(
              injected.get(EventHeaders.TRACEPARENT), injected.get(EventHeaders.TRACESTATE));
      if (own.isPresent()) {
        return new Traced(span, own.get());
      }
    }
    return new Traced(span, incoming.orElseGet(() -> TraceContext.newRoot(random)));
  }

  /**
   * Runs {@code insert} (the job and outbox rows of one request) in an {@value #OUTBOX_INSERT}
   * span, a child of the current (server) span, attributed with the tenant and the reserved job
   * ids; status ERROR when it throws.
   */
  List<Reservation> outboxInsert(String tenant, Supplier<List<Reservation>> insert) {
    Span span =
        tracer
            .spanBuilder(OUTBOX_INSERT)
            .setSpanKind(SpanKind.INTERNAL)
            .setAttribute(TENANT, tenant)
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      List<Reservation> reservations = insert.get();
      if (span.isRecording()) {
        List<String> ids = reservations.stream().map(r -> r.job().id().toString()).toList();
        span.setAttribute(JOB_IDS, ids);
        if (ids.size() == 1) {
          span.setAttribute(JOB_ID, ids.getFirst());
        }
      }
      return reservations;
    } catch (RuntimeException e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR, e.getMessage());
      throw e;
    } finally {
      span.end();
    }
  }

  private static Map<String, String> carrier(TraceContext trace) {
    Map<String, String> carrier = new HashMap<>();
    carrier.put(EventHeaders.TRACEPARENT, trace.traceparent());
    if (trace.tracestate() != null) {
      carrier.put(EventHeaders.TRACESTATE, trace.tracestate());
    }
    return carrier;
  }
}
