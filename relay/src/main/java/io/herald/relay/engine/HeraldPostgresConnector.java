package io.herald.relay.engine;

import io.debezium.connector.postgresql.PostgresConnector;
import org.apache.kafka.connect.connector.Task;

/**
 * Debezium's PostgreSQL connector, running {@link HeraldPostgresConnectorTask}: same settings, same
 * offsets, an engine poll that wakes on the first queued event.
 */
public class HeraldPostgresConnector extends PostgresConnector {

  @Override
  public Class<? extends Task> taskClass() {
    return HeraldPostgresConnectorTask.class;
  }
}
