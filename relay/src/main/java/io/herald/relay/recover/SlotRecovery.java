package io.herald.relay.recover;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.engine.EngineProperties;
import io.herald.relay.engine.ProducerSettings;
import io.herald.relay.offsets.Lsn;
import io.herald.relay.offsets.OffsetTopic;
import io.herald.relay.offsets.SlotIdentity;
import io.herald.relay.slot.PostgresSlots;
import io.herald.relay.slot.ServerState;
import io.herald.relay.slot.SlotState;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code herald relay recover}: a new slot plus the replay of the retained outbox rows committed
 * after the last event that reached Kafka (docs/design.md, "Slot recovery").
 *
 * <p>The steps, each safe to repeat if the run is cut short:
 *
 * <ol>
 *   <li>Take the relay's leader lock ({@code relay.standby.lock-key}) and hold it to the end: no
 *       relay streams meanwhile (a running leader makes the recovery refuse; standbys wait and take
 *       over afterwards). A slot with a reader refuses too.
 *   <li>Plan each outbox from its topic's partition tails ({@link ReplayPlan}); a plan that would
 *       leave a gap refuses before anything changes.
 *   <li>Drop the old slot (missing, invalidated or not) and create a new one. Every transaction
 *       that commits after the new slot's consistent point streams from it; every one committed
 *       before it is visible to a snapshot taken after the creation returns.
 *   <li>In such a snapshot, republish every planned row in id order (UUIDv7: the order the writer
 *       made them) through the relay's producer settings and routing ({@link OutboxRouting}), and
 *       wait for Kafka's acknowledgements.
 *   <li>Remove the relay's stored engine offset and record the new slot's identity in the offsets
 *       topic, then let the lock go: the relay starts from the new slot's position.
 * </ol>
 *
 * <p>A run cut short after the new slot exists leaves offsets behind it, which the relay refuses at
 * start (the slot is ahead of its offsets), naming this command again. Not thread-safe.
 */
public final class SlotRecovery {

  /** How long one Kafka read or write of the recovery may take. */
  private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(60);

  /** Records sent before their acknowledgements are awaited: bounds the producer's memory. */
  private static final int SEND_CHUNK = 1000;

  private static final String TRY_LOCK_SQL = "SELECT pg_try_advisory_lock(?)";
  private static final String TABLE_EXISTS_SQL = "SELECT to_regclass(?) IS NOT NULL";
  private static final String DROP_SLOT_SQL = "SELECT pg_drop_replication_slot(?)";
  private static final String CREATE_SLOT_SQL =
      "SELECT lsn::text FROM pg_create_logical_replication_slot(?, 'pgoutput')";
  private static final String RETAINED_SQL = "SELECT count(*), min(occurred_at) FROM %s";
  private static final String STAMPS_SQL = "SELECT id, occurred_at FROM %s WHERE id = ANY (?)";
  private static final String COUNT_FROM_SQL = "SELECT count(*) FROM %s WHERE occurred_at >= ?";
  private static final String ROWS_FROM_SQL =
      "SELECT id, aggregate_type, aggregate_id, event_type, tenant_id, payload::text,"
          + " trace_parent, trace_state, occurred_at FROM %s WHERE occurred_at >= ? ORDER BY id";

  /** The outboxes the relay routes: table, schema, router. */
  private enum Source {
    WRITER("writer"),
    CONSUMER("consumer");

    final String schema;

    Source(String schema) {
      this.schema = schema;
    }

    String table() {
      return schema + ".outbox";
    }

    String router() {
      return this == WRITER ? EngineProperties.ROUTERS.get(0) : EngineProperties.ROUTERS.get(1);
    }
  }

  /**
   * @param overlap how much earlier than the last event in Kafka rows are republished: longer than
   *     any writer or consumer transaction takes from stamping its outbox row to committing
   * @param allRetained republish every retained row of an outbox whose topic holds no event
   * @param dryRun plan only: change nothing
   */
  public record Options(Duration overlap, boolean allRetained, boolean dryRun) {
    public Options {
      if (overlap.isNegative()) {
        throw new IllegalArgumentException("overlap must not be negative: " + overlap);
      }
    }
  }

  private final RelayConfig config;
  private final EngineProperties engine;
  private final DataSource dataSource;
  private final Clock clock;
  private final ObjectMapper mapper;

  public SlotRecovery(RelayConfig config, DataSource dataSource, Clock clock, ObjectMapper mapper) {
    this.config = config;
    this.engine = config.engine();
    this.dataSource = dataSource;
    this.clock = clock;
    this.mapper = mapper;
  }

  /**
   * Runs the recovery.
   *
   * @throws RecoveryRefusedException when it would leave a gap or a relay is streaming; nothing
   *     changed
   * @throws SQLException when the database fails
   * @throws TimeoutException when Kafka does not answer in time
   */
  public RecoveryReport run(Options options)
      throws SQLException, InterruptedException, TimeoutException, ExecutionException {
    String slotName = engine.slotName();
    List<String> transforms = List.of(engine.get("transforms").split(","));
    if (!EngineProperties.ROUTERS.equals(transforms)) {
      throw new RecoveryRefusedException(
          "debezium.transforms names transforms of its own ("
              + transforms.subList(EngineProperties.ROUTERS.size(), transforms.size())
              + "): the recovery republishes through the outbox routers only and would send"
              + " records those transforms change differently. Republish by hand or remove them.");
    }
    try (Connection lock = dataSource.getConnection()) {
      if (!tryLock(lock)) {
        throw new RecoveryRefusedException(
            "a relay holds the leader lock (relay.standby.lock-key="
                + config.standby().lockKey()
                + "): it is streaming, or starting to. Stop the streaming relay (standbys may keep"
                + " running: they wait for the lock) and run the recovery again.");
      }
      PostgresSlots slots = new PostgresSlots(dataSource, slotName, mapper);
      Optional<SlotState> previous = slots.slot();
      if (previous.isPresent() && previous.get().active()) {
        throw new RecoveryRefusedException(
            "replication slot '"
                + slotName
                + "' is being read (active) although no relay holds the leader lock: another"
                + " reader streams it. End that reader and run the recovery again.");
      }
      String previousSlot =
          previous
              .map(s -> s.invalidation().map(r -> "invalidated (" + r + ")").orElse("usable"))
              .orElse("missing");
      Map<Source, ReplayPlan> plans = plan(options);
      for (ReplayPlan plan : plans.values()) {
        if (plan.refusal().isPresent()) {
          throw new RecoveryRefusedException(plan.refusal().get());
        }
      }
      if (options.dryRun()) {
        List<RecoveryReport.Outbox> outboxes = new ArrayList<>();
        for (Map.Entry<Source, ReplayPlan> entry : plans.entrySet()) {
          Instant from = entry.getValue().from().orElseThrow();
          outboxes.add(outbox(entry.getValue(), count(entry.getKey(), from)));
        }
        return new RecoveryReport(slotName, previousSlot, Optional.empty(), outboxes, 0, true);
      }
      if (previous.isPresent()) {
        execute(DROP_SLOT_SQL, slotName);
      }
      Lsn consistentPoint = Lsn.parse(execute(CREATE_SLOT_SQL, slotName));
      List<RecoveryReport.Outbox> outboxes = new ArrayList<>();
      for (Map.Entry<Source, ReplayPlan> entry : plans.entrySet()) {
        long sent = republish(entry.getKey(), entry.getValue().from().orElseThrow());
        outboxes.add(outbox(entry.getValue(), sent));
      }
      ServerState server = slots.server();
      OffsetTopic offsets =
          new OffsetTopic(
              ProducerSettings.clientSettings(config.producer()), engine.offsetTopic(), mapper);
      offsets.ensureExists(
          engine.offsetTopicPartitions(), engine.offsetTopicReplicationFactor(), KAFKA_TIMEOUT);
      // No creation marker: this slot was created by the recovery, not by the schema set-up, so
      // the relay's check against herald_relay.capture_slot does not apply to it.
      int removed =
          offsets.resetToSlot(
              engine.engineName(),
              engine.topicPrefix(),
              new SlotIdentity(
                  server.systemIdentifier(),
                  server.database(),
                  slotName,
                  Optional.empty(),
                  consistentPoint,
                  clock.instant(),
                  OptionalLong.of(server.timeline())),
              KAFKA_TIMEOUT);
      return new RecoveryReport(
          slotName,
          previousSlot,
          Optional.of(consistentPoint.toString()),
          outboxes,
          removed,
          false);
    }
  }

  private static RecoveryReport.Outbox outbox(ReplayPlan plan, long rows) {
    return new RecoveryReport.Outbox(
        plan.outbox(), plan.topic(), plan.tails(), plan.from().orElseThrow(), rows);
  }

  private Map<Source, ReplayPlan> plan(Options options) throws SQLException {
    Map<Source, ReplayPlan> plans = new java.util.LinkedHashMap<>();
    TopicTails tails = new TopicTails(ProducerSettings.clientSettings(config.producer()));
    for (Source source : Source.values()) {
      if (!exists(source)) {
        continue;
      }
      String topic = engine.get("transforms." + source.router() + ".route.topic.replacement");
      List<PartitionTail> last = tails.read(topic, KAFKA_TIMEOUT);
      plans.put(
          source,
          ReplayPlan.decide(
              source.table(),
              topic,
              last,
              retained(source, last),
              options.overlap(),
              options.allRetained()));
    }
    return plans;
  }

  private boolean tryLock(Connection lock) throws SQLException {
    try (PreparedStatement statement = lock.prepareStatement(TRY_LOCK_SQL)) {
      statement.setLong(1, config.standby().lockKey());
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getBoolean(1);
      }
    }
  }

  private boolean exists(Source source) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(TABLE_EXISTS_SQL)) {
      statement.setString(1, source.table());
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getBoolean(1);
      }
    }
  }

  private ReplayPlan.Retained retained(Source source, List<PartitionTail> tails)
      throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      long count;
      Optional<Instant> oldest;
      try (PreparedStatement statement =
              connection.prepareStatement(RETAINED_SQL.formatted(source.table()));
          ResultSet rows = statement.executeQuery()) {
        rows.next();
        count = rows.getLong(1);
        Timestamp min = rows.getTimestamp(2);
        oldest = Optional.ofNullable(min).map(Timestamp::toInstant);
      }
      Map<UUID, Instant> stamps = new HashMap<>();
      Object[] ids = tails.stream().flatMap(t -> t.eventId().stream()).toArray();
      try (PreparedStatement statement =
          connection.prepareStatement(STAMPS_SQL.formatted(source.table()))) {
        Array array = connection.createArrayOf("uuid", ids);
        statement.setArray(1, array);
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            stamps.put(rows.getObject(1, UUID.class), rows.getTimestamp(2).toInstant());
          }
        }
      }
      return new ReplayPlan.Retained(count, oldest, stamps);
    }
  }

  private long count(Source source, Instant from) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(COUNT_FROM_SQL.formatted(source.table()))) {
      statement.setTimestamp(1, Timestamp.from(from));
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  /** Runs a one-row, one-column statement with the slot name and returns the value as text. */
  private String execute(String sql, String slotName) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, slotName);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getString(1);
      }
    }
  }

  /**
   * Sends the rows stamped from {@code from} on, in id order, in chunks each committed as one Kafka
   * transaction (with the relay's transactional.id) whose acknowledgements are awaited in order;
   * the first failure is thrown (a new run republishes from the start: duplicates only). Reads in
   * one transaction begun after the slot was created.
   */
  private long republish(Source source, Instant from)
      throws SQLException, InterruptedException, ExecutionException {
    long sent = 0;
    try (Connection connection = dataSource.getConnection();
        OutboxRouting routing = new OutboxRouting(engine, source.router(), source.schema);
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                config.producer(), new ByteArraySerializer(), new ByteArraySerializer())) {
      connection.setAutoCommit(false); // a cursor: the rows stream instead of filling the heap
      try (PreparedStatement statement =
          connection.prepareStatement(ROWS_FROM_SQL.formatted(source.table()))) {
        statement.setFetchSize(SEND_CHUNK);
        statement.setTimestamp(1, Timestamp.from(from));
        List<Future<?>> chunk = new ArrayList<>(SEND_CHUNK);
        // The relay's own transactional.id: this also fences a relay still running on the slot.
        producer.initTransactions();
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            ProducerRecord<byte[], byte[]> record = routing.convert(row(rows), clock.instant());
            if (chunk.isEmpty()) {
              producer.beginTransaction();
            }
            chunk.add(producer.send(record));
            sent++;
            if (chunk.size() == SEND_CHUNK) {
              commit(producer, chunk);
            }
          }
        }
        if (!chunk.isEmpty()) {
          commit(producer, chunk);
        }
      } finally {
        connection.rollback();
      }
    }
    return sent;
  }

  /** Commits the chunk's transaction; a send that failed fails the run (before the commit). */
  private static void commit(KafkaProducer<byte[], byte[]> producer, List<Future<?>> chunk)
      throws InterruptedException, ExecutionException {
    producer.commitTransaction();
    for (Future<?> send : chunk) {
      send.get();
    }
    chunk.clear();
  }

  private static OutboxRow row(ResultSet rows) throws SQLException {
    return new OutboxRow(
        rows.getObject(1, UUID.class),
        rows.getString(2),
        rows.getString(3),
        rows.getString(4),
        rows.getString(5),
        rows.getString(6),
        rows.getString(7),
        rows.getString(8),
        rows.getTimestamp(9).toInstant());
  }
}
