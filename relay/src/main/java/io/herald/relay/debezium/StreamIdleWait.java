package io.herald.relay.debezium;

import java.time.Duration;

/**
 * How a quiet replication stream waits on its socket ({@code relay.stream.*}, {@link
 * IdleWaitSocket}): each of the driver's 1 ms peeks waits up to {@code idleWait} once the stream
 * has carried nothing for {@code idleAfter}. A zero {@code idleWait} keeps the driver's peeks.
 */
public record StreamIdleWait(Duration idleWait, Duration idleAfter) {}
