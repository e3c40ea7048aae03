package io.herald.relay.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.engine.RecordChangeEvent;
import io.herald.devstack.HandClock;
import io.herald.relay.health.RelayMetrics;
import io.herald.relay.health.RelayStatus;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class KafkaBatchSinkTest {

  private static final SendRetry RETRY =
      new SendRetry(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofSeconds(5));

  /** Fails the send of one chosen value a given number of times, then behaves. */
  private static final class FlakyProducer extends MockProducer<byte[], byte[]> {
    private final String failingValue;
    private final RuntimeException error;
    private int failuresLeft;

    FlakyProducer(String failingValue, RuntimeException error, int failures) {
      super(true, null, new ByteArraySerializer(), new ByteArraySerializer());
      this.failingValue = failingValue;
      this.error = error;
      this.failuresLeft = failures;
    }

    @Override
    public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
      if (failuresLeft > 0
          && failingValue.equals(new String(record.value(), StandardCharsets.UTF_8))) {
        failuresLeft--;
        return CompletableFuture.failedFuture(error);
      }
      return super.send(record);
    }
  }

  private static RecordChangeEvent<SourceRecord> event(String topic, String value) {
    return event(topic, value, Map.of("lsn", 1L));
  }

  /** An event whose source offset confirms {@code lsnCommit} to the slot. */
  private static RecordChangeEvent<SourceRecord> event(String value, long lsnCommit) {
    return event("events", value, Map.of("lsn", lsnCommit + 5, "lsn_commit", lsnCommit));
  }

  private static RecordChangeEvent<SourceRecord> event(
      String topic, String value, Map<String, ?> sourceOffset) {
    SourceRecord record =
        new SourceRecord(
            Map.of("server", "herald"),
            sourceOffset,
            topic,
            null,
            Schema.STRING_SCHEMA,
            "t1/a/d",
            Schema.OPTIONAL_STRING_SCHEMA,
            value,
            1L,
            new ConnectHeaders());
    return () -> record;
  }

  private static KafkaBatchSink sink(MockProducer<byte[], byte[]> producer) {
    return sink(producer, new KafkaBatchSink.Pipelining(100, 1));
  }

  private static KafkaBatchSink sink(
      MockProducer<byte[], byte[]> producer, KafkaBatchSink.Pipelining pipelining) {
    KafkaBatchSink sink = unfenced(producer, pipelining);
    try {
      sink.fence();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
    return sink;
  }

  private static KafkaBatchSink unfenced(
      MockProducer<byte[], byte[]> producer, KafkaBatchSink.Pipelining pipelining) {
    return unfenced(() -> producer, RETRY, pipelining, new SimpleMeterRegistry());
  }

  private static KafkaBatchSink unfenced(
      Supplier<Producer<byte[], byte[]>> producers,
      SendRetry retry,
      KafkaBatchSink.Pipelining pipelining,
      MeterRegistry registry) {
    return unfenced(producers, retry, pipelining, registry, new RelayStatus(Clock.systemUTC()));
  }

  private static KafkaBatchSink unfenced(
      Supplier<Producer<byte[], byte[]>> producers,
      SendRetry retry,
      KafkaBatchSink.Pipelining pipelining,
      MeterRegistry registry,
      RelayStatus status) {
    return new KafkaBatchSink(
        producers,
        new OutboxRecordConverter("__debezium-heartbeat.herald", "herald.herald_relay.heartbeat"),
        retry,
        pipelining,
        new RelayMetrics(registry, status),
        status);
  }

  /** Hands out the given producers in turn, one per call. */
  private static Supplier<Producer<byte[], byte[]>> inTurn(
      List<? extends MockProducer<byte[], byte[]>> producers) {
    ArrayDeque<MockProducer<byte[], byte[]>> left = new ArrayDeque<>(producers);
    return left::removeFirst;
  }

  /** The broker's refusal seen under load: fatal to the producer, not to the relay. */
  private static InvalidTxnStateException invalidTxnState() {
    return new InvalidTxnStateException(
        "The producer attempted a transactional operation in an invalid state.");
  }

  @Test
  void shouldMarkEveryRecordInOrderAndFinishTheBatchOnceAllAreAcknowledged() throws Exception {
    FlakyProducer producer = new FlakyProducer("none", new TimeoutException("unused"), 0);
    RecordingCommitter committer = new RecordingCommitter();

    sink(producer)
        .handleBatch(
            List.of(
                event("events", "a"),
                event("__debezium-heartbeat.herald", "hb"),
                event("events", "b")),
            committer);

    assertThat(committer.processed).containsExactly("a", "hb", "b");
    assertThat(committer.batchesFinished).isEqualTo(1);
    assertThat(producer.history()).hasSize(2);
  }

  @Test
  void shouldResendFromTheFailedRecordAfterARetriableFailure() throws Exception {
    FlakyProducer producer = new FlakyProducer("b", new TimeoutException("broker down"), 2);
    RecordingCommitter committer = new RecordingCommitter();

    sink(producer)
        .handleBatch(
            List.of(event("events", "a"), event("events", "b"), event("events", "c")), committer);

    assertThat(committer.processed).containsExactly("a", "b", "c");
    assertThat(committer.batchesFinished).isEqualTo(1);
    List<String> sent =
        producer.history().stream()
            .map(r -> new String(r.value(), StandardCharsets.UTF_8))
            .toList();
    assertThat(sent).containsExactly("a", "c", "c", "b", "c");
  }

  @Test
  void shouldThrowWithoutMarkingPastAPermanentFailure() {
    FlakyProducer producer = new FlakyProducer("b", new RecordTooLargeException("too big"), 1);
    RecordingCommitter committer = new RecordingCommitter();

    assertThatThrownBy(
            () ->
                sink(producer)
                    .handleBatch(
                        List.of(event("events", "a"), event("events", "b"), event("events", "c")),
                        committer))
        .isInstanceOf(RelayPublishException.class)
        .hasMessageContaining("non-retriable")
        .hasCauseInstanceOf(RecordTooLargeException.class);
    assertThat(committer.processed).containsExactly("a");
    assertThat(committer.batchesFinished).isZero();
  }

  /** Acknowledges only when told to ({@link MockProducer#completeNext()}) or flushed. */
  private static MockProducer<byte[], byte[]> manualProducer() {
    return new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static List<String> sent(MockProducer<byte[], byte[]> producer) {
    return producer.history().stream()
        .map(r -> new String(r.value(), StandardCharsets.UTF_8))
        .toList();
  }

  @Test
  void shouldLeaveAFullBatchInFlightUnmarkedAndSettleItWithTheNextBatch() throws Exception {
    MockProducer<byte[], byte[]> producer = manualProducer();
    RecordingCommitter committer = new RecordingCommitter();
    KafkaBatchSink sink = sink(producer, new KafkaBatchSink.Pipelining(2, 1));

    sink.handleBatch(List.of(event("events", "a"), event("events", "b")), committer);

    assertThat(producer.uncommittedRecords()).hasSize(2);
    assertThat(producer.transactionInFlight()).isTrue();
    assertThat(committer.processed).isEmpty();
    assertThat(committer.batchesFinished).isZero();

    // A batch smaller than full: the queue ran dry, so everything in flight is settled.
    sink.handleBatch(List.of(event("events", "c")), committer);

    assertThat(committer.processed).containsExactly("a", "b", "c");
    assertThat(committer.batchesFinished).isEqualTo(2);
    assertThat(sent(producer)).containsExactly("a", "b", "c");
    assertThat(producer.commitCount()).isEqualTo(1);
  }

  /** Times out the first commits (as an EndTxn outlasting max.block.ms) and notes the marks. */
  private static final class SlowCommitProducer extends MockProducer<byte[], byte[]> {
    private final RecordingCommitter committer;
    private int timeoutsLeft;
    final List<Integer> markedAtCommit = new ArrayList<>();

    SlowCommitProducer(RecordingCommitter committer, int timeouts) {
      super(false, null, new ByteArraySerializer(), new ByteArraySerializer());
      this.committer = committer;
      this.timeoutsLeft = timeouts;
    }

    @Override
    public void commitTransaction() {
      markedAtCommit.add(processed(committer).size());
      if (timeoutsLeft > 0) {
        timeoutsLeft--;
        throw new TimeoutException("Timeout expired while awaiting EndTxn");
      }
      super.commitTransaction();
    }
  }

  @Test
  void shouldMarkNothingBeforeTheTransactionCommitsAndCallATimedOutCommitAgain() throws Exception {
    RecordingCommitter committer = new RecordingCommitter();
    SlowCommitProducer producer = new SlowCommitProducer(committer, 2);
    KafkaBatchSink sink = sink(producer, new KafkaBatchSink.Pipelining(2, 1));

    sink.handleBatch(List.of(event("events", "a"), event("events", "b")), committer);
    sink.handleBatch(List.of(event("events", "c"), event("events", "d")), committer);

    // Two full batches in one transaction: committed (after two timed-out tries) by the second.
    assertThat(producer.markedAtCommit).containsExactly(0, 0, 0);
    assertThat(processed(committer)).containsExactly("a", "b", "c", "d");
    assertThat(committer.batchesFinished).isEqualTo(2);
    assertThat(sent(producer)).containsExactly("a", "b", "c", "d");
    assertThat(producer.transactionAborted()).isFalse();
  }

  /** Fails the first commits as a transaction whose send failed does (abortable). */
  private static final class AbortableCommitProducer extends MockProducer<byte[], byte[]> {
    private final RuntimeException failure;
    private int failuresLeft;
    int aborts;

    AbortableCommitProducer(RuntimeException failure, int failures) {
      super(true, null, new ByteArraySerializer(), new ByteArraySerializer());
      this.failure = failure;
      this.failuresLeft = failures;
    }

    @Override
    public void commitTransaction() {
      if (failuresLeft > 0) {
        failuresLeft--;
        throw failure;
      }
      super.commitTransaction();
    }

    @Override
    public void abortTransaction() {
      aborts++;
      super.abortTransaction();
    }
  }

  @Test
  void shouldAbortAFailedTransactionAndResendEveryUnmarkedRecordInANewOne() throws Exception {
    AbortableCommitProducer producer =
        new AbortableCommitProducer(
            new KafkaException(
                "The client hasn't received acknowledgment for some previously sent messages and"
                    + " can no longer retry them. It is safe to abort the transaction and"
                    + " continue."),
            1);
    RecordingCommitter committer = new RecordingCommitter();

    sink(producer).handleBatch(List.of(event("events", "a"), event("events", "b")), committer);

    assertThat(producer.aborts).isEqualTo(1);
    assertThat(committer.processed).containsExactly("a", "b");
    // Only the new transaction's copies were committed; the aborted ones are never visible.
    assertThat(sent(producer)).containsExactly("a", "b");
  }

  @Test
  void shouldRetryATransactionFailedByARetriableBrokerError() throws Exception {
    AbortableCommitProducer producer =
        new AbortableCommitProducer(
            new KafkaException(
                "Cannot execute transactional method because we are in an error state",
                new NotEnoughReplicasException("1 in sync, 2 needed")),
            2);
    RecordingCommitter committer = new RecordingCommitter();

    sink(producer).handleBatch(List.of(event("events", "a")), committer);

    assertThat(producer.aborts).isEqualTo(2);
    assertThat(committer.processed).containsExactly("a");
  }

  @Test
  void shouldStopWithoutMarkingWhenAnotherRelayFencedTheProducerAtCommit() {
    AbortableCommitProducer producer =
        new AbortableCommitProducer(new ProducerFencedException("epoch 7 is older than 8"), 1);
    RecordingCommitter committer = new RecordingCommitter();

    assertThatThrownBy(
            () ->
                sink(producer)
                    .handleBatch(List.of(event("events", "a"), event("events", "b")), committer))
        .isInstanceOf(RelayPublishException.class)
        .hasMessageContaining("fenced")
        .hasCauseInstanceOf(ProducerFencedException.class);
    assertThat(producer.aborts).isZero();
    assertThat(committer.processed).isEmpty();
  }

  @Test
  void shouldStopWithoutSendingWhenFencedBeforeTheBatch() throws Exception {
    MockProducer<byte[], byte[]> producer = manualProducer();
    KafkaBatchSink sink = sink(producer);
    producer.fenceProducer();
    RecordingCommitter committer = new RecordingCommitter();

    assertThatThrownBy(() -> sink.handleBatch(List.of(event("events", "a")), committer))
        .isInstanceOf(RelayPublishException.class)
        .hasMessageContaining("fenced");
    assertThat(producer.history()).isEmpty();
    assertThat(committer.processed).isEmpty();
  }

  @Test
  void shouldRetryFencingWhileTheCoordinatorIsUnreachableAndRefuseAnAuthorizationFailure()
      throws Exception {
    MockProducer<byte[], byte[]> slow =
        new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()) {
          private int timeouts = 2;

          @Override
          public void initTransactions() {
            if (timeouts-- > 0) {
              throw new TimeoutException(
                  "Timeout expired after 60000ms while awaiting InitProducerId");
            }
            super.initTransactions();
          }
        };
    unfenced(slow, new KafkaBatchSink.Pipelining(100, 1)).fence();
    assertThat(slow.transactionInitialized()).isTrue();

    MockProducer<byte[], byte[]> refused = manualProducer();
    refused.initTransactionException = new TransactionalIdAuthorizationException("not allowed");
    assertThatThrownBy(() -> unfenced(refused, new KafkaBatchSink.Pipelining(100, 1)).fence())
        .isInstanceOf(RelayPublishException.class)
        .hasMessageContaining("transactional.id")
        .hasCauseInstanceOf(TransactionalIdAuthorizationException.class);
  }

  @Test
  void shouldHoldNoOpenTransactionForABatchOfHeartbeatsOnly() throws Exception {
    MockProducer<byte[], byte[]> producer = manualProducer();
    RecordingCommitter committer = new RecordingCommitter();

    sink(producer).handleBatch(List.of(event("__debezium-heartbeat.herald", "hb")), committer);

    assertThat(committer.processed).containsExactly("hb");
    assertThat(producer.transactionInFlight()).isFalse();
    assertThat(producer.commitCount()).isZero();
  }

  private static List<String> processed(RecordingCommitter committer) {
    synchronized (committer) {
      return List.copyOf(committer.processed);
    }
  }

  @Test
  void shouldResendTheFailedRecordAndEveryLaterBatchInOrder() throws Exception {
    FlakyProducer producer = new FlakyProducer("b", new TimeoutException("broker down"), 1);
    RecordingCommitter committer = new RecordingCommitter();
    KafkaBatchSink sink = sink(producer, new KafkaBatchSink.Pipelining(2, 1));

    sink.handleBatch(List.of(event("events", "a"), event("events", "b")), committer);
    sink.handleBatch(List.of(event("events", "c")), committer);

    assertThat(committer.processed).containsExactly("a", "b", "c");
    assertThat(committer.batchesFinished).isEqualTo(2);
    // c was sent after the failed b, so it is sent again after b's retry.
    assertThat(sent(producer)).containsExactly("a", "c", "b", "c");
  }

  @Test
  void shouldSettleEveryBatchOnceStopped() throws Exception {
    MockProducer<byte[], byte[]> producer = manualProducer();
    RecordingCommitter committer = new RecordingCommitter();
    KafkaBatchSink sink = sink(producer, new KafkaBatchSink.Pipelining(2, 1));
    sink.handleBatch(List.of(event("events", "a"), event("events", "b")), committer);
    assertThat(sink.awaitSettled(Duration.ofMillis(1))).isFalse();

    sink.stop();
    sink.handleBatch(List.of(event("events", "c"), event("events", "d")), committer);

    assertThat(committer.processed).containsExactly("a", "b", "c", "d");
    assertThat(sink.awaitSettled(Duration.ZERO)).isTrue();
  }

  /** A sink on a fenced producer that reports to {@code status}. */
  private static KafkaBatchSink reportingTo(
      RelayStatus status, MockProducer<byte[], byte[]> producer, int fullBatchSize)
      throws InterruptedException {
    KafkaBatchSink sink =
        unfenced(
            () -> producer,
            RETRY,
            new KafkaBatchSink.Pipelining(fullBatchSize, 1),
            new SimpleMeterRegistry(),
            status);
    sink.fence();
    return sink;
  }

  @Test
  void shouldCountTheWaitForKafkaFromAFullBatchLeftInFlight() throws Exception {
    HandClock clock = new HandClock();
    RelayStatus status = new RelayStatus(clock);
    KafkaBatchSink sink = reportingTo(status, manualProducer(), 2);
    RecordingCommitter committer = new RecordingCommitter();

    sink.handleBatch(List.of(event("events", "a"), event("events", "b")), committer);
    clock.advance(Duration.ofSeconds(20));
    Optional<Duration> leftInFlight = status.waitingForKafka();
    sink.handleBatch(List.of(event("events", "c")), committer);

    // The engine may be held elsewhere on Kafka (its offset commit) before the sink commits: the
    // wait shows from the full batch's send, not from the commit that came 20 s later.
    assertThat(leftInFlight).contains(Duration.ofSeconds(20));
    assertThat(committer.processed).containsExactly("a", "b", "c");
    assertThat(status.waitingForKafka()).isEmpty();
  }

  @Test
  void shouldDateABatchAtItsCommitAndCountTheOffsetCommitAsAWaitForKafka() throws Exception {
    HandClock clock = new HandClock();
    RelayStatus status = new RelayStatus(clock);
    KafkaBatchSink sink = reportingTo(status, manualProducer(), 100);
    List<Optional<Duration>> waitingDuringOffsetCommit = new ArrayList<>();
    // Debezium's offset commit after the batch waits out offset.flush.timeout.ms: Kafka is gone.
    RecordingCommitter committer =
        new RecordingCommitter(
            () -> {
              clock.advance(Duration.ofSeconds(10));
              waitingDuringOffsetCommit.add(status.waitingForKafka());
            });

    sink.handleBatch(List.of(event("events", "a")), committer);

    assertThat(waitingDuringOffsetCommit).containsExactly(Optional.of(Duration.ofSeconds(10)));
    assertThat(status.lastBatchAge()).contains(Duration.ofSeconds(10));
    assertThat(status.lastEventAge()).contains(Duration.ofSeconds(10));
    assertThat(status.waitingForKafka()).isEmpty();
  }

  @Test
  void shouldSettleAFullBatchAtOnceWithNoBatchesInFlight() throws Exception {
    MockProducer<byte[], byte[]> producer = manualProducer();
    RecordingCommitter committer = new RecordingCommitter();

    sink(producer, new KafkaBatchSink.Pipelining(2, 0))
        .handleBatch(List.of(event("events", "a"), event("events", "b")), committer);

    assertThat(committer.processed).containsExactly("a", "b");
    assertThat(committer.batchesFinished).isEqualTo(1);
  }

  @Test
  void shouldPublishButNotMarkRecordsReReadBehindThePositionAlreadyMarked() throws Exception {
    FlakyProducer producer = new FlakyProducer("none", new TimeoutException("unused"), 0);
    RecordingCommitter committer = new RecordingCommitter();
    KafkaBatchSink sink = sink(producer);

    sink.handleBatch(List.of(event("a", 10), event("b", 20)), committer);
    // Debezium restarted its task and streams again from an older stored offset.
    sink.handleBatch(List.of(event("b-again", 15), event("c", 20), event("d", 30)), committer);

    assertThat(sent(producer)).containsExactly("a", "b", "b-again", "c", "d");
    assertThat(committer.processed).containsExactly("a", "b", "c", "d");
    assertThat(committer.batchesFinished).isEqualTo(2);
  }

  @Test
  void shouldReplaceAProducerLeftUnusableAtCommitAndResendEveryUnmarkedRecordWithTheNewOne()
      throws Exception {
    AbortableCommitProducer failed = new AbortableCommitProducer(invalidTxnState(), 1);
    MockProducer<byte[], byte[]> replacement =
        new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    MeterRegistry registry = new SimpleMeterRegistry();
    KafkaBatchSink sink =
        unfenced(
            inTurn(List.of(failed, replacement)),
            RETRY,
            new KafkaBatchSink.Pipelining(100, 1),
            registry);
    sink.fence();
    RecordingCommitter committer = new RecordingCommitter();

    sink.handleBatch(List.of(event("events", "a"), event("events", "b")), committer);

    // No abort on the unusable producer: registering the new one aborts what it left open.
    assertThat(failed.aborts).isZero();
    assertThat(failed.closed()).isTrue();
    assertThat(replacement.transactionInitialized()).isTrue();
    assertThat(replacement.transactionCommitted()).isTrue();
    assertThat(sent(replacement)).containsExactly("a", "b");
    assertThat(committer.processed).containsExactly("a", "b");
    assertThat(committer.batchesFinished).isEqualTo(1);
    assertThat(registry.get("herald.relay.producer.replaced").counter().count()).isEqualTo(1);

    sink.close();
    assertThat(replacement.closed()).isTrue();
  }

  @Test
  void shouldReplaceAProducerThatCannotBeginATransactionAndSettleTheBatchAtOnce() throws Exception {
    MockProducer<byte[], byte[]> failed = manualProducer();
    MockProducer<byte[], byte[]> replacement =
        new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    KafkaBatchSink sink =
        unfenced(
            inTurn(List.of(failed, replacement)),
            RETRY,
            new KafkaBatchSink.Pipelining(2, 2),
            new SimpleMeterRegistry());
    sink.fence();
    failed.beginTransactionException =
        new KafkaException(
            "Cannot execute transactional method because we are in an error state",
            invalidTxnState());
    RecordingCommitter committer = new RecordingCommitter();

    // A full batch, which the sink would leave open were the producer usable.
    sink.handleBatch(List.of(event("events", "a"), event("events", "b")), committer);

    assertThat(failed.history()).isEmpty();
    assertThat(failed.closed()).isTrue();
    assertThat(sent(replacement)).containsExactly("a", "b");
    assertThat(committer.processed).containsExactly("a", "b");
  }

  @Test
  void shouldEndTheTermWithNothingMarkedWhenEveryNewProducerFailsTheSameWay() {
    List<AbortableCommitProducer> made = new ArrayList<>();
    Supplier<Producer<byte[], byte[]>> failing =
        () -> {
          AbortableCommitProducer producer =
              new AbortableCommitProducer(invalidTxnState(), Integer.MAX_VALUE);
          made.add(producer);
          return producer;
        };
    KafkaBatchSink sink =
        unfenced(
            failing,
            new SendRetry(Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(200)),
            new KafkaBatchSink.Pipelining(100, 1),
            new SimpleMeterRegistry());
    RecordingCommitter committer = new RecordingCommitter();

    assertThatThrownBy(
            () -> {
              sink.fence();
              sink.handleBatch(List.of(event("events", "a")), committer);
            })
        .isInstanceOf(RelayPublishException.class)
        .hasMessageContaining("Kafka failing for")
        .hasRootCauseInstanceOf(InvalidTxnStateException.class);
    assertThat(made).hasSizeGreaterThan(2);
    assertThat(made.subList(0, made.size() - 1)).allMatch(MockProducer::closed);
    assertThat(committer.processed).isEmpty();
  }

  @Test
  void shouldTellAProducerLeftUnusableFromOneFencedOrRefused() {
    assertThat(
            KafkaBatchSink.isProducerFailed(new KafkaException("error state", invalidTxnState())))
        .isTrue();
    assertThat(KafkaBatchSink.isProducerFailed(new ProducerFencedException("epoch 7 < 8")))
        .isFalse();
    assertThat(KafkaBatchSink.isProducerFailed(new TransactionalIdAuthorizationException("denied")))
        .isFalse();
    assertThat(KafkaBatchSink.isProducerFailed(new RecordTooLargeException("2 MiB"))).isFalse();
  }
}
