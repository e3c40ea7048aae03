package io.herald.relay.debezium;

import io.debezium.connector.postgresql.PostgresConnector;
import org.apache.kafka.connect.connector.Task;

/**
 * Debezium's PostgreSQL connector, running {@link HeraldPostgresConnectorTask}: same settings, same
 * offsets, an engine poll that wakes on the first queued event.
 *
 * <p><b>Works around</b> what its task does (Debezium 3.6.1's {@code ChangeEventQueue} poll, its
 * streaming metrics); <b>would let it go</b> when both the task's reasons go. With {@code
 * relay.engine.debezium-patches=false} the engine runs {@link PostgresConnector} itself.
 */
public class HeraldPostgresConnector extends PostgresConnector {

  @Override
  public Class<? extends Task> taskClass() {
    return HeraldPostgresConnectorTask.class;
  }
}
