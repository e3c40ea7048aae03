package io.herald.relay.debezium;

import io.debezium.schema.SchemaTopicNamingStrategy;
import io.debezium.spi.schema.DataCollectionId;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Debezium's default topic naming ({@code topic.naming.strategy}), with the change topic of each
 * table remembered in a plain concurrent map.
 *
 * <p><b>Works around</b> (Debezium 3.6.1): Debezium asks for a table's change topic once per event,
 * and its own cache ({@code AbstractTopicNamingStrategy}'s {@code BoundedConcurrentHashMap}) is an
 * LRU map whose every hit queues an access record and walks a listener set, a visible share of the
 * streaming thread in a drain profile (docs/benchmarks-history.md, "Relay: draining a backlog").
 * The names are the same; the outbox routers' predicates match them.
 *
 * <p><b>Would let it go</b>: a Debezium whose topic-name cache hit is a plain map read; with {@code
 * relay.engine.debezium-patches=false} the relay runs {@link
 * io.debezium.schema.SchemaTopicNamingStrategy} itself.
 *
 * <p>Bounded: only captured tables reach it (the relay captures three), and past {@link
 * #MAX_TABLES} names are computed without being kept. Thread-safe.
 */
public final class CachedTopicNames extends SchemaTopicNamingStrategy {

  static final int MAX_TABLES = 1024;

  private final ConcurrentHashMap<DataCollectionId, String> names = new ConcurrentHashMap<>();

  /** Debezium instantiates the strategy with the connector's properties. */
  public CachedTopicNames(Properties props) {
    super(props);
  }

  @Override
  public String dataChangeTopic(DataCollectionId id) {
    String name = names.get(id);
    if (name == null) {
      name = super.dataChangeTopic(id);
      if (names.size() < MAX_TABLES) {
        names.putIfAbsent(id, name);
      }
    }
    return name;
  }
}
