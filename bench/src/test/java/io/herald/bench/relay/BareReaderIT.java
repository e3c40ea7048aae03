package io.herald.bench.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.schema.CaptureSettings;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bare reader counts a known backlog exactly and stops at the commit of its last transaction,
 * though more transactions follow in the WAL.
 */
@HeraldIntegrationTest
class BareReaderIT {

  private static final Duration STALL = Duration.ofSeconds(60);

  @BeforeAll
  static void migrate(StackContext context) {
    SchemaMigrator.migrate(
        context.dataSource(),
        HeraldSchema.WRITER,
        new CaptureSettings(context.publication(), context.slot()));
  }

  @Test
  void shouldCountTheBacklogsMessagesWhenReadingItsOwnSlot(StackContext context) throws Exception {
    String slot = slotBefore(context, "_bare", 250, 25);
    Backlog.load(context.dataSource(), 10, 1); // after the backlog: not to be read

    BareReader.Count count = BareReader.read(source(context, slot), 250, STALL, () -> {});

    assertThat(count.inserts()).isEqualTo(250);
    assertThat(count.begins()).isEqualTo(10);
    assertThat(count.commits()).isEqualTo(10);
    // Begin, commit and insert messages, plus the relation message before the first insert.
    assertThat(count.messages()).isEqualTo(250 + 2 * 10 + 1);
    Backlog.dropSlot(context.dataSource(), slot);
  }

  @Test
  void shouldPrintTheCountAndItsCostWhenRunAsAChildJvm(StackContext context) throws Exception {
    String slot = slotBefore(context, "_child", 40, 1);

    BareReader.ChildRun run =
        BareReader.inChildJvm(
            source(context, slot),
            40,
            List.of("-Xmx128m"),
            Path.of("target", "bare-reader-it", "child.log"),
            Duration.ofMinutes(2));

    assertThat(run.count().inserts()).isEqualTo(40);
    assertThat(run.count().commits()).isEqualTo(40);
    assertThat(run.peakRssBytes()).isPositive();
    Backlog.dropSlot(context.dataSource(), slot);
  }

  /** A new slot, then a backlog of {@code rows} at {@code rowsPerTx} behind it. */
  private static String slotBefore(StackContext context, String suffix, int rows, int rowsPerTx)
      throws Exception {
    DataSource db = context.dataSource();
    String slot = context.slot() + suffix;
    Backlog.createSlot(db, slot);
    Backlog.load(db, rows, rowsPerTx);
    return slot;
  }

  private static BareReader.Source source(StackContext context, String slot) {
    return new BareReader.Source(
        context.jdbcUrl(), context.user(), context.password(), slot, context.publication());
  }
}
