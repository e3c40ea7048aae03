package io.herald.devstack.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One request the simulator received at an article path, as it arrived: method, path and headers
 * (names lower-cased, values in order), for tests that check what Herald sent (the trace context,
 * the idempotency key, the fencing token).
 */
public record ReceivedRequest(String method, String path, Map<String, List<String>> headers) {

  public ReceivedRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    Map<String, List<String>> lower = new TreeMap<>();
    headers.forEach(
        (name, values) ->
            lower
                .computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>())
                .addAll(values));
    lower.replaceAll((name, values) -> List.copyOf(values));
    headers = Map.copyOf(lower);
  }

  /** The first value of header {@code name} (any case), if it was sent. */
  public Optional<String> header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
  }
}
