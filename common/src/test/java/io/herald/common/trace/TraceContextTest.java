package io.herald.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class TraceContextTest {

  private static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void shouldParseAValidTraceparent() {
    TraceContext context = TraceContext.parse(VALID, "congo=t61rcWkgMzE").orElseThrow();

    assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", context.traceId());
    assertEquals("00f067aa0ba902b7", context.parentId());
    assertTrue(context.sampled());
    assertEquals("congo=t61rcWkgMzE", context.tracestate());
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(
      strings = {
        "",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", // upper case
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // zero parent id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // forbidden version
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // unknown version
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", // short trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g"
      })
  void shouldRejectAnInvalidTraceparent(String traceparent) {
    assertTrue(TraceContext.parse(traceparent, null).isEmpty());
  }

  @Test
  void shouldDropAnInvalidTracestateButKeepTheTraceparent() {
    assertNull(TraceContext.parse(VALID, "no equals sign").orElseThrow().tracestate());
    assertNull(TraceContext.parse(VALID, "UPPER=1").orElseThrow().tracestate());
    assertNull(TraceContext.parse(VALID, "a=1,a=2").orElseThrow().tracestate());
  }

  @Test
  void shouldDropATracestateWithTooManyMembers() {
    String members =
        IntStream.range(0, 33).mapToObj(i -> "k" + i + "=v").collect(Collectors.joining(","));

    assertNull(TraceContext.parse(VALID, members).orElseThrow().tracestate());
  }

  @Test
  void shouldDropATracestateLongerThan512Characters() {
    String longValue = "a=" + "x".repeat(255) + ",b=" + "y".repeat(255) + ",c=zzzz"; // 520 chars

    assertNull(TraceContext.parse(VALID, longValue).orElseThrow().tracestate());
  }

  @Test
  void shouldNormalizeWhitespaceAndEmptyMembersInTracestate() {
    assertEquals(
        "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
        TraceContext.parse(VALID, " rojo=00f067aa0ba902b7 ,, congo=t61rcWkgMzE")
            .orElseThrow()
            .tracestate());
  }

  @Test
  void shouldAcceptMultiTenantTracestateKeys() {
    assertEquals(
        "tenant@vendor=v1",
        TraceContext.parse(VALID, "tenant@vendor=v1").orElseThrow().tracestate());
  }

  @Test
  void shouldCreateAValidSampledRoot() {
    TraceContext root = TraceContext.newRoot(new SplittableRandom(42));

    assertTrue(TraceContext.parse(root.traceparent(), null).isPresent());
    assertTrue(root.sampled());
    assertNull(root.tracestate());
  }
}
