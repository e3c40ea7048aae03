package io.herald.relay.it;

import java.util.Map;

/**
 * {@link RelayDeliveryIT} on stock Debezium ({@code relay.engine.debezium-patches=false}): the same
 * events, keys, headers and order without any of Herald's work-arounds for Debezium internals.
 */
class RelayDeliveryStockDebeziumIT extends RelayDeliveryIT {

  @Override
  Map<String, String> relaySettings() {
    return Map.of("relay.engine.debezium-patches", "false");
  }
}
