package io.herald.relay.debezium;

import io.debezium.config.CommonConnectorConfig;
import io.debezium.connector.AbstractSourceInfo;
import io.debezium.connector.SourceInfoStructMaker;
import io.debezium.connector.postgresql.SourceInfo;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Instant;
import java.util.Objects;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code source} block of the relay's change events, cut to what anything in the relay reads
 * ({@code sourceinfo.struct.maker}).
 *
 * <p><b>Works around</b> (Debezium 3.6.1): every change event carries a {@code source} struct, and
 * the outbox {@code EventRouter} drops it: what reaches Kafka is the payload, the key and the
 * headers. Debezium's PostgreSQL block ({@code PostgresSourceInfoStructMaker}) has 16 fields, among
 * them a {@code sequence} rendered as a JSON array of two positions and the commit time three times
 * over; building and validating it is one of the largest costs of the streaming thread, the thread
 * that bounds the drain rate (docs/benchmarks-history.md, "Relay: draining a backlog"). This block
 * keeps the fields Debezium's metrics read ({@code txId}, {@code lsn}, {@code xmin}, {@code ts_ms})
 * and the connector name, which the router reads to pick its configuration. Offsets are not built
 * from it: Debezium takes them from its offset context.
 *
 * <p>{@link SourceInfo} offers the transaction id and the commit time only to its own package, so
 * they are read through method handles looked up once; if a Debezium upgrade removes them, the
 * fields stay empty (Debezium's transaction count and lag metrics then read nothing), a warning is
 * logged, and {@code LeanSourceInfoTest} fails first.
 *
 * <p><b>Would let it go</b>: a Debezium setting that leaves the source block out (none in 3.6.1),
 * or a profile in which Debezium's own block no longer shows; with {@code
 * relay.engine.debezium-patches=false} the relay runs Debezium's block ({@link DebeziumPatches}).
 *
 * <p>Stateless after {@link #init}; thread-safe.
 */
public final class LeanSourceInfo implements SourceInfoStructMaker<SourceInfo> {

  private static final Logger log = LoggerFactory.getLogger(LeanSourceInfo.class);

  static final String SCHEMA_NAME = "io.herald.relay.Source";

  private static final MethodHandle TX_ID = accessor("txId", MethodType.methodType(Long.class));
  private static final MethodHandle TIMESTAMP =
      accessor("timestamp", MethodType.methodType(Instant.class));

  private static final Schema SCHEMA =
      SchemaBuilder.struct()
          .name(SCHEMA_NAME)
          .field(AbstractSourceInfo.DEBEZIUM_CONNECTOR_KEY, Schema.STRING_SCHEMA)
          .field(AbstractSourceInfo.TIMESTAMP_KEY, Schema.OPTIONAL_INT64_SCHEMA)
          .field(SourceInfo.TXID_KEY, Schema.OPTIONAL_INT64_SCHEMA)
          .field(SourceInfo.LSN_KEY, Schema.OPTIONAL_INT64_SCHEMA)
          .field(SourceInfo.XMIN_KEY, Schema.OPTIONAL_INT64_SCHEMA)
          .build();
  private static final Field CONNECTOR = SCHEMA.field(AbstractSourceInfo.DEBEZIUM_CONNECTOR_KEY);
  private static final Field TS_MS = SCHEMA.field(AbstractSourceInfo.TIMESTAMP_KEY);
  private static final Field TX = SCHEMA.field(SourceInfo.TXID_KEY);
  private static final Field LSN = SCHEMA.field(SourceInfo.LSN_KEY);
  private static final Field XMIN = SCHEMA.field(SourceInfo.XMIN_KEY);

  private String connector;

  @Override
  public void init(String connector, String version, CommonConnectorConfig connectorConfig) {
    this.connector = Objects.requireNonNull(connector, "connector");
  }

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public Struct struct(SourceInfo sourceInfo) {
    // Struct.put(Field, ...) skips the name lookup; each value is still validated against its
    // field's schema.
    Struct struct = new Struct(SCHEMA).put(CONNECTOR, connector);
    Instant timestamp = timestamp(sourceInfo);
    if (timestamp != null) {
      struct.put(TS_MS, timestamp.toEpochMilli());
    }
    Long txId = txId(sourceInfo);
    if (txId != null) {
      struct.put(TX, txId);
    }
    if (sourceInfo.lsn() != null) {
      struct.put(LSN, sourceInfo.lsn().asLong());
    }
    if (sourceInfo.xmin() != null) {
      struct.put(XMIN, sourceInfo.xmin());
    }
    return struct;
  }

  /** Whether both accessors were found in this Debezium version. */
  static boolean complete() {
    return TX_ID != null && TIMESTAMP != null;
  }

  private static Long txId(SourceInfo sourceInfo) {
    return (Long) read(TX_ID, sourceInfo);
  }

  private static Instant timestamp(SourceInfo sourceInfo) {
    return (Instant) read(TIMESTAMP, sourceInfo);
  }

  /** Calls one accessor ({@link #accessor} adapts each to {@code (SourceInfo)Object}). */
  private static Object read(MethodHandle accessor, SourceInfo sourceInfo) {
    if (accessor == null) {
      return null;
    }
    try {
      return (Object) accessor.invokeExact(sourceInfo);
    } catch (Throwable e) {
      throw accessorFailed(e);
    }
  }

  private static RuntimeException accessorFailed(Throwable e) {
    if (e instanceof RuntimeException runtime) {
      return runtime;
    }
    if (e instanceof Error error) {
      throw error;
    }
    // The accessors are plain getters: a checked exception cannot come out of them.
    return new IllegalStateException("Debezium's SourceInfo accessor failed", e);
  }

  private static MethodHandle accessor(String name, MethodType type) {
    try {
      return MethodHandles.privateLookupIn(SourceInfo.class, MethodHandles.lookup())
          .findVirtual(SourceInfo.class, name, type)
          .asType(MethodType.methodType(Object.class, SourceInfo.class));
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn(
          "Debezium's SourceInfo.{}() is not reachable; the relay's change events carry no {}",
          name,
          name,
          e);
      return null;
    }
  }
}
