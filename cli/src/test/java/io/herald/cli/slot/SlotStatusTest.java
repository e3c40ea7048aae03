package io.herald.cli.slot;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.cli.CliFailure;
import io.herald.cli.Herald;
import io.herald.runtime.db.DatabaseConfig;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The verdict of slot status, its human form, and how a database failure maps to an exit code. */
class SlotStatusTest {

  private static final DatabaseConfig DB =
      new DatabaseConfig(
          "jdbc:postgresql://db:5432/herald?password=hidden",
          "relay",
          "pw",
          1,
          Duration.ofSeconds(5));

  private static SlotStatus slot(long lag, long warn) {
    return new SlotStatus(
        "herald_relay",
        "herald",
        true,
        "pgoutput",
        true,
        42,
        "0/10",
        "0/8",
        "reserved",
        lag + 8,
        lag,
        warn,
        lag > warn,
        null,
        false,
        false,
        "",
        1L);
  }

  @Test
  void shouldBeAViolationOnlyWhenMissingOrOverTheWarning() {
    assertThat(slot(10, 10).violated()).isFalse();
    assertThat(slot(11, 10).violated()).isTrue();
    assertThat(SlotStatus.missing("s", "d", 10).violated()).isTrue();
  }

  @Test
  void shouldBeAViolationWhenPostgresInvalidatedTheSlot() {
    SlotStatus s = slot(0, 10);
    SlotStatus lost =
        new SlotStatus(
            s.slot(),
            s.database(),
            true,
            s.plugin(),
            false,
            null,
            s.confirmedFlushLsn(),
            s.restartLsn(),
            "lost",
            null,
            0L,
            10,
            false,
            "wal_removed",
            false,
            false,
            "",
            2L);

    assertThat(lost.violated()).isTrue();
    assertThat(SlotStatusCommand.human(lost))
        .contains("invalidation_reason   wal_removed")
        .contains("VIOLATION: the slot is invalidated (wal_removed)");
  }

  @Test
  void shouldEndWithTheVerdict() {
    assertThat(SlotStatusCommand.human(slot(5, 10)))
        .contains("active_pid            42")
        .endsWith("OK: lag 5 bytes within relay.slot.lag-warn-bytes=10" + System.lineSeparator());
    assertThat(SlotStatusCommand.human(slot(11, 10)))
        .endsWith(
            "VIOLATION: lag 11 bytes is over relay.slot.lag-warn-bytes=10"
                + System.lineSeparator());
  }

  @Test
  void shouldMapDatabaseFailuresToExitCodes() {
    assertThat(code("08001")).isEqualTo(Herald.EXIT_UNREACHABLE);
    assertThat(code("28P01")).isEqualTo(Herald.EXIT_USAGE);
    assertThat(code("3D000")).isEqualTo(Herald.EXIT_USAGE);
    assertThat(code("55000")).isEqualTo(Herald.EXIT_UNREACHABLE);
    assertThat(code(null)).isEqualTo(Herald.EXIT_UNREACHABLE);
  }

  @Test
  void shouldNameTheSlotAndTheSqlStateButNoSecret() {
    CliFailure failure =
        SlotQuery.failure(new SQLException("refused", "08001"), "herald_relay", DB);
    assertThat(failure.getMessage())
        .contains("slot 'herald_relay'")
        .contains("as relay")
        .contains("SQLState 08001")
        .doesNotContain("hidden")
        .doesNotContain("pw");
  }

  private static int code(String sqlState) {
    return SlotQuery.failure(new SQLException("x", sqlState), "s", DB).exitCode();
  }
}
