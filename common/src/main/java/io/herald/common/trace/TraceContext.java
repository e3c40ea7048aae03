package io.herald.common.trace;

import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * A W3C Trace Context (https://www.w3.org/TR/trace-context/) carried from the writer's HTTP request
 * through the outbox row and the Kafka headers to the destination call.
 *
 * <p>{@link #parse} never throws: anything that is not a valid version-00 {@code traceparent} gives
 * {@link Optional#empty()} (the caller then starts a new root), and an invalid {@code tracestate}
 * is dropped while a valid {@code traceparent} is kept, as the specification asks.
 *
 * <p>Immutable and thread-safe. {@code tracestate} is {@code null} when absent, never blank.
 */
public record TraceContext(String traceparent, String tracestate) {

  /** Longest {@code tracestate} a vendor must propagate, in characters. */
  public static final int MAX_TRACESTATE_LENGTH = 512;

  /** Most list members a {@code tracestate} may have. */
  public static final int MAX_TRACESTATE_MEMBERS = 32;

  private static final Pattern TRACEPARENT =
      Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");
  private static final String ZERO_TRACE_ID = "0".repeat(32);
  private static final String ZERO_PARENT_ID = "0".repeat(16);
  // key = simple-key / multi-tenant-key; value = 0-255 printable ASCII without ',' and '=',
  // not ending in a space.
  private static final Pattern MEMBER =
      Pattern.compile(
          "(?:[a-z][a-z0-9_\\-*/]{0,255}|[a-z0-9][a-z0-9_\\-*/]{0,240}@[a-z][a-z0-9_\\-*/]{0,13})"
              + "=[\\x20-\\x2b\\x2d-\\x3c\\x3e-\\x7e]{0,255}[\\x21-\\x2b\\x2d-\\x3c\\x3e-\\x7e]");
  private static final HexFormat HEX = HexFormat.of();

  public TraceContext {
    Objects.requireNonNull(traceparent, "traceparent");
    if (!validTraceparent(traceparent)) {
      throw new IllegalArgumentException("invalid traceparent: " + traceparent);
    }
    if (tracestate != null && normalizeTracestate(tracestate) == null) {
      throw new IllegalArgumentException("invalid tracestate");
    }
    if (tracestate != null) {
      tracestate = normalizeTracestate(tracestate);
    }
  }

  /**
   * Validates incoming headers. Only version {@code 00} is accepted (lowercase hex, non-zero ids);
   * surrounding whitespace is trimmed. An invalid or over-long {@code tracestate} is dropped.
   *
   * @return the context, or empty when {@code traceparent} is absent or invalid
   */
  public static Optional<TraceContext> parse(String traceparent, String tracestate) {
    if (traceparent == null) {
      return Optional.empty();
    }
    String parent = traceparent.strip();
    if (!validTraceparent(parent)) {
      return Optional.empty();
    }
    return Optional.of(
        new TraceContext(parent, tracestate == null ? null : normalizeTracestate(tracestate)));
  }

  /** A new root context: random trace and parent ids, sampled flag set, no tracestate. */
  public static TraceContext newRoot(RandomGenerator random) {
    String traceId;
    do {
      traceId = HEX.toHexDigits(random.nextLong()) + HEX.toHexDigits(random.nextLong());
    } while (traceId.equals(ZERO_TRACE_ID));
    String parentId;
    do {
      parentId = HEX.toHexDigits(random.nextLong());
    } while (parentId.equals(ZERO_PARENT_ID));
    return new TraceContext("00-" + traceId + "-" + parentId + "-01", null);
  }

  /** The 32-hex-character trace id. */
  public String traceId() {
    return traceparent.substring(3, 35);
  }

  /** The 16-hex-character parent (span) id. */
  public String parentId() {
    return traceparent.substring(36, 52);
  }

  /** Whether the caller sampled this trace (flag bit 0). */
  public boolean sampled() {
    return (Integer.parseInt(traceparent.substring(53, 55), 16) & 1) == 1;
  }

  /** The context to send downstream: same trace, {@code spanId} as the new parent. */
  public TraceContext withParentId(String spanId) {
    return new TraceContext(
        traceparent.substring(0, 36) + spanId + traceparent.substring(52), tracestate);
  }

  private static boolean validTraceparent(String value) {
    var m = TRACEPARENT.matcher(value);
    return m.matches() && !m.group(1).equals(ZERO_TRACE_ID) && !m.group(2).equals(ZERO_PARENT_ID);
  }

  /** Returns the list with optional whitespace and empty members removed, or null if invalid. */
  private static String normalizeTracestate(String value) {
    if (value.length() > MAX_TRACESTATE_LENGTH * 2) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    int members = 0;
    java.util.Set<String> keys = new java.util.HashSet<>();
    for (String raw : value.split(",", -1)) {
      String member = raw.strip();
      if (member.isEmpty()) {
        continue;
      }
      if (!MEMBER.matcher(member).matches()) {
        return null;
      }
      String key = member.substring(0, member.indexOf('='));
      if (!keys.add(key) || ++members > MAX_TRACESTATE_MEMBERS) {
        return null;
      }
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(member);
    }
    if (out.length() == 0 || out.length() > MAX_TRACESTATE_LENGTH) {
      return null;
    }
    return out.toString();
  }
}
