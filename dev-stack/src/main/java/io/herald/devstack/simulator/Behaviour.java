package io.herald.devstack.simulator;

import java.time.Duration;
import java.util.Objects;

/**
 * The contract a simulated publishing API offers: the destination profile it plays (Herald's {@code
 * consumer.destinations.<name>.*} profile keys describe the same things from the caller's side).
 *
 * @param honoursIdempotencyKey when true, a request whose idempotency key was seen before (within
 *     {@code keyWindow}) returns the article created then instead of creating another one
 * @param supportsLookup when true, {@code GET /articles?externalReference=...} answers 200 or 404;
 *     when false it answers 501
 * @param latency added to every request before it is processed
 * @param idempotencyHeader the request header carrying the idempotency key ({@code Idempotency-Key}
 *     unless set otherwise)
 * @param keyWindow how long a key is remembered after the article it created; {@link Duration#ZERO}
 *     remembers it for ever. A repeat after the window creates a second article, as a real API that
 *     expires its keys does
 * @param repeat how a repeated, remembered key is answered
 * @param replayMarker a response header ({@code Idempotent-Replayed: true}) on every answer
 *     replayed for a repeated key, or null for none
 * @param replaysErrors when true, an error answered to a keyed request (a {@link Fault.Status}) is
 *     saved and answered again to every repeat of the key within the window
 * @param fencing when true, a cooperating destination of Herald's fencing: per key (the idempotency
 *     key header, else the body's {@code externalReference}) it remembers the highest {@code
 *     Herald-Fencing-Token} seen (on creates and lookups), and refuses a create carrying a lower
 *     one with {@code 409 {"error":"stale_fencing_token"}}, creating nothing; requests without the
 *     header are served as before
 */
public record Behaviour(
    boolean honoursIdempotencyKey,
    boolean supportsLookup,
    Duration latency,
    String idempotencyHeader,
    Duration keyWindow,
    Repeat repeat,
    String replayMarker,
    boolean replaysErrors,
    boolean fencing) {

  /** How a destination answers a repeated key it still remembers. */
  public enum Repeat {
    /** {@code 200} with the article the key created (the common convention). */
    REPLAY,
    /** {@code 409 Conflict} with the existing article's id in the body: "it exists". */
    CONFLICT_EXISTS
  }

  public Behaviour {
    Objects.requireNonNull(latency, "latency");
    Objects.requireNonNull(idempotencyHeader, "idempotencyHeader");
    Objects.requireNonNull(keyWindow, "keyWindow");
    Objects.requireNonNull(repeat, "repeat");
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative: " + latency);
    }
    if (keyWindow.isNegative()) {
      throw new IllegalArgumentException("key window must not be negative: " + keyWindow);
    }
  }

  /** Keys in {@code Idempotency-Key}, remembered for ever, repeats replayed, no marker. */
  public Behaviour(boolean honoursIdempotencyKey, boolean supportsLookup, Duration latency) {
    this(
        honoursIdempotencyKey,
        supportsLookup,
        latency,
        "Idempotency-Key",
        Duration.ZERO,
        Repeat.REPLAY,
        null,
        false,
        false);
  }

  /** Honours idempotency keys, supports lookup, no latency. */
  public static Behaviour cooperative() {
    return new Behaviour(true, true, Duration.ZERO);
  }

  /** Ignores idempotency keys and offers no lookup: the hardest destination to publish to once. */
  public static Behaviour bare() {
    return new Behaviour(false, false, Duration.ZERO);
  }

  public Behaviour withIdempotency(boolean honours) {
    return new Behaviour(
        honours,
        supportsLookup,
        latency,
        idempotencyHeader,
        keyWindow,
        repeat,
        replayMarker,
        replaysErrors,
        fencing);
  }

  public Behaviour withLookup(boolean supported) {
    return new Behaviour(
        honoursIdempotencyKey,
        supported,
        latency,
        idempotencyHeader,
        keyWindow,
        repeat,
        replayMarker,
        replaysErrors,
        fencing);
  }

  public Behaviour withLatency(Duration newLatency) {
    return new Behaviour(
        honoursIdempotencyKey,
        supportsLookup,
        newLatency,
        idempotencyHeader,
        keyWindow,
        repeat,
        replayMarker,
        replaysErrors,
        fencing);
  }

  /** Reads the key from {@code header} instead of {@code Idempotency-Key}. */
  public Behaviour withIdempotencyHeader(String header) {
    return new Behaviour(
        honoursIdempotencyKey,
        supportsLookup,
        latency,
        header,
        keyWindow,
        repeat,
        replayMarker,
        replaysErrors,
        fencing);
  }

  /** Forgets a key {@code window} after the article it created ({@code ZERO}: never). */
  public Behaviour withKeyWindow(Duration window) {
    return new Behaviour(
        honoursIdempotencyKey,
        supportsLookup,
        latency,
        idempotencyHeader,
        window,
        repeat,
        replayMarker,
        replaysErrors,
        fencing);
  }

  public Behaviour withRepeat(Repeat newRepeat) {
    return new Behaviour(
        honoursIdempotencyKey,
        supportsLookup,
        latency,
        idempotencyHeader,
        keyWindow,
        newRepeat,
        replayMarker,
        replaysErrors,
        fencing);
  }

  /** Marks replayed answers with {@code header: true} (null: no marker). */
  public Behaviour withReplayMarker(String header) {
    return new Behaviour(
        honoursIdempotencyKey,
        supportsLookup,
        latency,
        idempotencyHeader,
        keyWindow,
        repeat,
        header,
        replaysErrors,
        fencing);
  }

  public Behaviour withErrorReplay(boolean replays) {
    return new Behaviour(
        honoursIdempotencyKey,
        supportsLookup,
        latency,
        idempotencyHeader,
        keyWindow,
        repeat,
        replayMarker,
        replays,
        fencing);
  }

  /** A cooperating destination of Herald's fencing token, or not ({@link #fencing()}). */
  public Behaviour withFencing(boolean fences) {
    return new Behaviour(
        honoursIdempotencyKey,
        supportsLookup,
        latency,
        idempotencyHeader,
        keyWindow,
        repeat,
        replayMarker,
        replaysErrors,
        fences);
  }
}
