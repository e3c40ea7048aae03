package io.herald.runtime.ops;

import java.util.Objects;

/**
 * Where a process serves {@code /health} and {@code /metrics}: {@code <process>.ops.host} and
 * {@code <process>.ops.port}, read by {@link OpsKeys}. Immutable.
 *
 * @param port 0 for any free port
 */
public record OpsEndpoint(String host, int port) {
  public OpsEndpoint {
    Objects.requireNonNull(host, "host");
  }
}
