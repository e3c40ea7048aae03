package io.herald.runtime.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class SqlFailureTest {

  @Test
  void shouldClassifyLostConnectionsAndShutdownsAsUnavailable() {
    for (String state :
        new String[] {"08001", "08006", "08003", "57P01", "57P02", "57P03", "53300", "25006"}) {
      assertThat(SqlFailure.classify(new SQLException("x", state)))
          .as(state)
          .isEqualTo(SqlFailure.UNAVAILABLE);
    }
    assertThat(SqlFailure.classify(new SQLTransientConnectionException("pool timeout")))
        .isEqualTo(SqlFailure.UNAVAILABLE);
  }

  @Test
  void shouldLookThroughTheCauseChain() {
    SQLException wrapped = new SQLException("wrapper", null, new SQLException("io", "08006"));
    assertThat(SqlFailure.classify(wrapped)).isEqualTo(SqlFailure.UNAVAILABLE);
  }

  @Test
  void shouldRetryDeadlocksAndSerializationFailures() {
    assertThat(SqlFailure.classify(new SQLException("x", "40001")))
        .isEqualTo(SqlFailure.RETRY_TRANSACTION);
    assertThat(SqlFailure.classify(new SQLException("x", "40P01")))
        .isEqualTo(SqlFailure.RETRY_TRANSACTION);
  }

  @Test
  void shouldTreatEverythingElseAsPermanent() {
    assertThat(SqlFailure.classify(new SQLException("x", "23505"))).isEqualTo(SqlFailure.PERMANENT);
    assertThat(SqlFailure.classify(new SQLException("x", "42P01"))).isEqualTo(SqlFailure.PERMANENT);
    assertThat(SqlFailure.classify(new SQLException("no state"))).isEqualTo(SqlFailure.PERMANENT);
  }

  // Where the consumer's SqlErrors and the writer's SqlFailure used to disagree, the rule decides.

  @Test
  void shouldTreatStatementTimeoutsIdleSessionEndsAndSystemErrorsAsUnavailable() {
    for (String state : new String[] {"57014", "57P05", "58000", "58030", "40003"}) {
      assertThat(SqlFailure.classify(new SQLException("x", state)))
          .as(state)
          .isEqualTo(SqlFailure.UNAVAILABLE);
    }
    assertThat(SqlFailure.classify(new SQLTimeoutException("query timeout")))
        .isEqualTo(SqlFailure.UNAVAILABLE);
    assertThat(SqlFailure.classify(new SQLRecoverableException("reconnect")))
        .isEqualTo(SqlFailure.UNAVAILABLE);
  }

  @Test
  void shouldTreatADroppedDatabaseAndOtherOperatorStatesAsPermanent() {
    for (String state : new String[] {"57P04", "57000", "58P01", "40002", "22001"}) {
      assertThat(SqlFailure.classify(new SQLException("x", state)))
          .as(state)
          .isEqualTo(SqlFailure.PERMANENT);
    }
  }

  @Test
  void shouldRetryARollbackReportedByType() {
    assertThat(SqlFailure.classify(new SQLTransactionRollbackException("rolled back")))
        .isEqualTo(SqlFailure.RETRY_TRANSACTION);
  }

  @Test
  void shouldCallOnlyPermanentFailuresNotRetriable() {
    assertThat(SqlFailure.isRetriable(new SQLException("x", "08006"))).isTrue();
    assertThat(SqlFailure.isRetriable(new SQLException("x", "40001"))).isTrue();
    assertThat(SqlFailure.isRetriable(new SQLException("x", "23505"))).isFalse();
    assertThat(SqlFailure.isRetriable(new SQLException("no state"))).isFalse();
  }
}
