package io.herald.relay.sink;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.herald.relay.health.RelayMetrics;
import io.herald.relay.health.RelayStatus;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's batch consumer: publishes every record to Kafka in transactions and lets the engine
 * commit an offset only for records whose transaction Kafka has committed.
 *
 * <p><b>Fencing.</b> The producer is transactional ({@code transactional.id}, shared by every relay
 * of one slot). {@link #fence()} runs before each term's engine starts: it makes the broker refuse
 * every later send and commit of any earlier producer of that id and aborts the transaction such a
 * producer left open. A leader frozen (SIGSTOP, a paused VM) with records in flight and woken after
 * a standby took over therefore publishes nothing: what it still held stays in an aborted
 * transaction, invisible to the {@code read_committed} readers (the consumer, the CLI), and its
 * next call fails with {@link ProducerFencedException}, which stops its engine.
 *
 * <p>Each batch is sent whole inside the open transaction (begun with its first publishable
 * record), then the transaction is <em>committed and settled</em>: after the commit, each record is
 * marked processed in order and each batch marked finished. A failed transaction is aborted and
 * everything not yet marked is re-sent in a new one (the aborted copies are never visible); a
 * commit or abort that outlasts {@code max.block.ms} is called again. A non-retriable failure,
 * being fenced, or a retriable one outlasting {@link SendRetry#giveUpAfter()} is thrown, which
 * stops the engine with no offset past the first unmarked record.
 *
 * <p><b>A producer that can no longer be used.</b> Some failures leave the producer itself in a
 * fatal state while Kafka and this relay's claim to the slot are fine: the broker refusing a
 * transactional operation as made in an invalid state (seen under load when a retried commit met a
 * transaction its coordinator had already completed), or losing the producer id. Every later call
 * of that producer fails the same way, so retrying it would end the term for nothing. The sink
 * closes it, makes a new one with the same {@code transactional.id}, and registers it; registering
 * fences the old producer's epoch and aborts whatever it left open, and every unmarked record is
 * re-sent in the new producer's first transaction. This counts against {@link SendRetry} like any
 * retriable failure, so a producer that keeps failing still ends the term. Being fenced is not such
 * a failure: another relay holds the slot, and replacing the producer would fence it back.
 *
 * <p><b>Pipelining.</b> A full batch ({@link Pipelining#fullBatchSize()} records: the engine had
 * more queued) leaves the transaction open: the sink returns to the engine, which prepares the next
 * batch while Kafka acknowledges this one, until {@link Pipelining#batchesInFlight()} full batches
 * are open; the next batch commits them all. A batch smaller than that (the engine emptied its
 * queue) commits at once, so an idle relay holds no open transaction and a trickle's events are
 * visible as soon as they are acknowledged. A transaction left open when the backlog ends exactly
 * at a full batch is committed by the next call, at the latest with the next heartbeat event.
 * Marking never runs ahead of the commits, so pipelining changes only how many records a crash may
 * re-send, never which are lost (none).
 *
 * <p>The engine calls {@link #handleBatch} from one thread at a time; {@link #stop()} may be called
 * from any thread, after which every batch is committed before {@link #handleBatch} returns. {@link
 * #close()} closes the producer in use, once the engine has stopped.
 */
public final class KafkaBatchSink
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KafkaBatchSink.class);

  private final Supplier<Producer<byte[], byte[]>> producers;
  private final OutboxRecordConverter converter;
  private final SendRetry retry;
  private final Pipelining pipelining;
  private final RelayMetrics metrics;
  private final RelayStatus status;

  private final OffsetHighWater highWater = new OffsetHighWater();

  /**
   * The producer in use: made in the constructor, replaced by the engine's thread when it fails
   * fatally; read by {@link #fence()} before the engine starts and by {@link #close()} after it
   * stopped.
   */
  private volatile Producer<byte[], byte[]> producer;

  /**
   * How long closing the producer may take. What the engine was told is committed is in Kafka by
   * then, and whatever is still in flight was never marked, so it is read again from the slot. A
   * producer whose coordinator stopped answering mid-transaction (a relay frozen during a commit,
   * fenced by the new leader meanwhile) would otherwise wait out its requests' timeouts: a stopping
   * relay would not exit, and one going back to standby would not contend for the lock.
   */
  public static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  /** Sent, not yet marked, oldest first. Only the engine's thread touches it. */
  private final ArrayDeque<SentBatch> inFlight = new ArrayDeque<>();

  /** Whether a transaction is begun and neither committed nor aborted; engine thread only. */
  private boolean transactionOpen;

  /** Size of {@link #inFlight}, for {@link #awaitSettled}; guarded by {@code this}. */
  private int unsettled;

  private volatile boolean stopping;

  /**
   * How far the sink may run ahead of Kafka's commits.
   *
   * @param fullBatchSize the engine's {@code max.batch.size}: a batch this large means more was
   *     queued
   * @param batchesInFlight full batches left in the open transaction when the sink returns to the
   *     engine; 0 commits every batch before taking the next (both from the relay's validated
   *     configuration: {@code debezium.source.max.batch.size}, {@code
   *     relay.sink.batches-in-flight})
   */
  public record Pipelining(int fullBatchSize, int batchesInFlight) {}

  /**
   * @param producers makes a transactional producer, each time with the same {@code
   *     transactional.id}: one now, another whenever the one in use fails fatally; the sink closes
   *     each it made
   */
  public KafkaBatchSink(
      Supplier<Producer<byte[], byte[]>> producers,
      OutboxRecordConverter converter,
      SendRetry retry,
      Pipelining pipelining,
      RelayMetrics metrics,
      RelayStatus status) {
    this.producers = producers;
    this.producer = producers.get();
    this.converter = converter;
    this.retry = retry;
    this.pipelining = pipelining;
    this.metrics = metrics;
    this.status = status;
  }

  /**
   * Registers the producer's {@code transactional.id} with its coordinator, which fences every
   * earlier producer of the id (see the class comment). Called once, before the engine starts;
   * retried while Kafka is unreachable, within {@link SendRetry#giveUpAfter()}.
   *
   * @throws RelayPublishException when Kafka refuses (authorization, a broker without
   *     transactions), the retries give up, or the sink is stopped meanwhile
   */
  public void fence() throws InterruptedException {
    Failures failures = new Failures();
    while (true) {
      try {
        producer.initTransactions();
        return;
      } catch (TimeoutException e) {
        failures.backOff(e, true, "the transaction coordinator");
      } catch (KafkaException e) {
        throw new RelayPublishException(
            "Kafka refused the relay's transactional producer (is the transactional.id allowed, and"
                + " do the brokers support transactions?); nothing was sent",
            e);
      }
    }
  }

  /**
   * Makes every later batch commit before returning, and a batch that is waiting out a Kafka outage
   * give up at its next backoff.
   */
  public void stop() {
    stopping = true;
  }

  /**
   * Closes the producer in use, waiting at most {@link #CLOSE_WAIT}; called once the engine has
   * stopped.
   */
  @Override
  public void close() {
    producer.close(CLOSE_WAIT);
  }

  /**
   * Waits up to {@code timeout} for the engine to settle every batch it has in flight (after {@link
   * #stop()}, the next batch the engine hands over settles them all). Returns whether none is left;
   * one left unsettled is re-sent after a restart, nothing is lost.
   */
  public synchronized boolean awaitSettled(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (unsettled > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> batch,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    SentBatch sent = new SentBatch(batch, committer, converter);
    inFlight.addLast(sent);
    // Before the send: a full batch may stay in flight, and the engine may then wait on Kafka
    // elsewhere (its offset commit) before the sink commits; health counts the wait from here.
    status.sending();
    try {
      send(sent);
      boolean full = batch.size() >= pipelining.fullBatchSize() && !stopping;
      if (!full || inFlight.size() > pipelining.batchesInFlight() || sent.failedToSend()) {
        commitAndSettle();
      }
    } finally {
      synchronized (this) {
        unsettled = inFlight.size();
        notifyAll();
      }
    }
  }

  /** Sends the batch's unmarked records, beginning a transaction if one is needed and none open. */
  private void send(SentBatch batch) {
    if (!batch.publishesFrom(batch.next)) {
      return;
    }
    if (!transactionOpen) {
      try {
        producer.beginTransaction();
      } catch (KafkaException e) {
        if (isFenced(e)) {
          throw fenced(e);
        }
        if (!isProducerFailed(e)) {
          throw publishFailure(batch, "the producer cannot begin a transaction", e);
        }
        // Settled at once (see handleBatch): the producer is replaced and the batch re-sent.
        batch.failFrom(batch.next, e);
        return;
      }
      transactionOpen = true;
    }
    batch.sendFrom(batch.next, producer);
  }

  /**
   * Commits the open transaction and marks every batch in flight, in order. A failed transaction is
   * aborted and its unmarked records re-sent in a new one; a record whose {@code send} itself threw
   * (it never joined the transaction) is re-sent from, after the records before it are marked.
   */
  private void commitAndSettle() throws InterruptedException {
    Failures failures = new Failures();
    boolean replace = false;
    boolean abort = false;
    boolean resend = false;
    while (true) {
      try {
        if (replace) {
          replaceProducer();
          replace = false;
          abort = false;
          resend = true;
        }
        if (abort) {
          abort();
          abort = false;
          resend = true;
        }
        if (resend) {
          resend = false;
          for (SentBatch batch : inFlight) {
            send(batch);
          }
        }
        if (transactionOpen) {
          producer.commitTransaction();
          transactionOpen = false;
        }
        Throwable failed = markCommitted();
        if (failed == null) {
          break;
        }
        if (isFenced(failed)) {
          throw fenced(failed);
        }
        replace = isProducerFailed(failed);
        resend = !replace;
        failures.backOff(failed, replace || isRetriable(failed), describe(inFlight.getFirst()));
      } catch (TimeoutException e) {
        // The call (commit, abort, registering a new producer) outlasted max.block.ms and may still
        // complete: it is called again.
        failures.backOff(e, true, describe(inFlight.getFirst()));
      } catch (KafkaException e) {
        if (isFenced(e)) {
          throw fenced(e);
        }
        replace = isProducerFailed(e);
        abort = !replace;
        failures.backOff(e, replace || isRetriable(e), describe(inFlight.getFirst()));
      }
    }
    status.settled();
    status.transition(RelayStatus.Phase.KAFKA_UNAVAILABLE, RelayStatus.Phase.STREAMING);
  }

  /**
   * Closes the failed producer and registers a new one of the same {@code transactional.id} (see
   * the class comment); its open transaction, if any, is aborted by the registration.
   */
  private void replaceProducer() {
    Producer<byte[], byte[]> failed = producer;
    transactionOpen = false;
    // Its sends are re-sent by the new producer; nothing of the failed one needs waiting for.
    failed.close(Duration.ZERO);
    Producer<byte[], byte[]> replacement = producers.get();
    producer = replacement;
    metrics.producerReplaced();
    // A timeout here is retried with yet another producer, within the retry budget.
    replacement.initTransactions();
    log.info(
        "A new producer is registered; the unmarked records are sent again in its transaction");
  }

  /** Aborts the open transaction; a failure other than a timeout leaves the producer unusable. */
  private void abort() {
    if (!transactionOpen) {
      return;
    }
    try {
      producer.abortTransaction();
    } catch (TimeoutException e) {
      throw e;
    } catch (KafkaException e) {
      if (isFenced(e) || isProducerFailed(e)) {
        throw e;
      }
      throw publishFailure(inFlight.getFirst(), "the failed transaction cannot be aborted", e);
    }
    transactionOpen = false;
  }

  /**
   * Marks the committed batches' records in order, finishing each batch; returns the first failed
   * send (its batch and those after it stay in flight), or null when all are marked.
   */
  private Throwable markCommitted() throws InterruptedException {
    while (!inFlight.isEmpty()) {
      SentBatch batch = inFlight.getFirst();
      Throwable failure = batch.awaitAndMark(highWater);
      if (failure != null) {
        return failure;
      }
      status.batchDone(batch.published);
      // Debezium's offset commit: it waits for Kafka, up to offset.flush.timeout.ms.
      batch.committer.markBatchFinished();
      metrics.published(batch.published);
      metrics.skipped(batch.skipped());
      metrics.batch(batch.size(), Duration.ofNanos(System.nanoTime() - batch.sentNanos));
      inFlight.removeFirst();
    }
    return null;
  }

  /**
   * Whether {@code failure} may pass by itself: a retriable cause anywhere in its chain, or no
   * broker error at all (the transaction manager's own "can no longer retry them, it is safe to
   * abort the transaction and continue" after expired batches). A broker error that is not
   * retriable (a record too large, a topic refused) would fail the same way again.
   */
  private static boolean isRetriable(Throwable failure) {
    boolean brokerError = false;
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof RetriableException || cause instanceof TransactionAbortableException) {
        return true;
      }
      brokerError |= cause instanceof ApiException;
    }
    return !brokerError;
  }

  /** Whether a newer producer of the same {@code transactional.id} has taken over. */
  private static boolean isFenced(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof ProducerFencedException
          || cause instanceof InvalidProducerEpochException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code failure} left the producer unusable though it was not fenced (see the class
   * comment): the one list of such errors, each of which a new producer of the same id clears.
   */
  static boolean isProducerFailed(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof InvalidTxnStateException
          || cause instanceof InvalidPidMappingException
          || cause instanceof UnknownProducerIdException
          || cause instanceof OutOfOrderSequenceException) {
        return true;
      }
    }
    return false;
  }

  private static RelayPublishException fenced(Throwable e) {
    return new RelayPublishException(
        "Kafka fenced this relay's producer (its transactional.id): another relay of the slot took"
            + " over, or the open transaction outlasted transaction.timeout.ms while this process"
            + " was paused. Nothing this relay still held was committed; the leader streams it"
            + " again",
        e);
  }

  private static RelayPublishException publishFailure(
      SentBatch batch, String reason, Throwable failure) {
    return new RelayPublishException(
        "Kafka did not commit "
            + describe(batch)
            + " ("
            + reason
            + "); no offset passes this record, it is read again from the slot on restart",
        failure);
  }

  private static String describe(SentBatch batch) {
    SourceRecord record = batch.unsettledRecord();
    Header id = record.headers().lastWithName("id");
    return "record for topic '"
        + record.topic()
        + "'"
        + (id == null ? "" : " id " + id.value())
        + " at source offset "
        + record.sourceOffset();
  }

  /**
   * Counts one settling's failures against {@link SendRetry}: backs off before the next try, or
   * throws when the failure is not retriable, the sink is stopping, or Kafka has failed for {@link
   * SendRetry#giveUpAfter()}.
   */
  private final class Failures {
    private int attempts;
    private long firstNanos;

    void backOff(Throwable failure, boolean retriable, String where) throws InterruptedException {
      metrics.sendError();
      attempts++;
      if (attempts == 1) {
        firstNanos = System.nanoTime();
      }
      Duration failingFor = Duration.ofNanos(System.nanoTime() - firstNanos);
      if (!retriable || stopping || failingFor.compareTo(retry.giveUpAfter()) >= 0) {
        String reason =
            !retriable
                ? "non-retriable error"
                : stopping ? "relay is stopping" : "Kafka failing for " + failingFor;
        throw new RelayPublishException(
            "Kafka did not commit "
                + where
                + " after "
                + attempts
                + " attempt(s) ("
                + reason
                + "); no offset passes this record, it is read again from the slot on restart",
            failure);
      }
      Duration backoff = retry.backoff(attempts);
      status.transition(RelayStatus.Phase.STREAMING, RelayStatus.Phase.KAFKA_UNAVAILABLE);
      log.warn(
          "Kafka did not commit {} (attempt {}, failing for {}); trying again in {} ({} batches in"
              + " flight)",
          where,
          attempts,
          failingFor,
          backoff,
          inFlight.size(),
          failure);
      Thread.sleep(backoff.toMillis());
      metrics.sendRetry();
    }
  }

  /** One engine batch: its records, their Kafka sends, and how far it is settled. */
  private static final class SentBatch {
    private final List<RecordChangeEvent<SourceRecord>> events;
    private final DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer;

    /** Null where the record is not published (heartbeats, the heartbeat table). */
    private final List<ProducerRecord<byte[], byte[]>> outgoing;

    private final Future<?>[] sends;
    private final long sentNanos = System.nanoTime();

    /** Index of the first record not yet marked processed. */
    private int next;

    /**
     * Whether the producer refused a record of the last sending (it never joined a transaction).
     */
    private boolean refused;

    private int published;

    SentBatch(
        List<RecordChangeEvent<SourceRecord>> events,
        DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer,
        OutboxRecordConverter converter) {
      this.events = events;
      this.committer = committer;
      this.outgoing = new ArrayList<>(events.size());
      for (RecordChangeEvent<SourceRecord> event : events) {
        outgoing.add(converter.convert(event.record()).orElse(null));
      }
      this.sends = new Future<?>[events.size()];
    }

    int size() {
      return events.size();
    }

    /** Whether any record from {@code from} on is published (not a heartbeat). */
    boolean publishesFrom(int from) {
      for (int i = from; i < outgoing.size(); i++) {
        if (outgoing.get(i) != null) {
          return true;
        }
      }
      return false;
    }

    SourceRecord unsettledRecord() {
      return events.get(next).record();
    }

    /** Fails records {@code from..} with {@code failure}, as a send that threw does. */
    void failFrom(int from, Throwable failure) {
      Arrays.fill(sends, from, sends.length, CompletableFuture.failedFuture(failure));
      refused = true;
    }

    /** Whether the last sending of this batch failed before any transaction could end. */
    boolean failedToSend() {
      return refused;
    }

    /**
     * Sends records {@code from..}; a send that throws fails its record and every later one of the
     * batch, so settling stops there and re-sends them in order.
     */
    void sendFrom(int from, Producer<byte[], byte[]> producer) {
      refused = false;
      for (int i = from; i < outgoing.size(); i++) {
        ProducerRecord<byte[], byte[]> record = outgoing.get(i);
        if (record == null) {
          sends[i] = null;
          continue;
        }
        try {
          sends[i] = producer.send(record);
        } catch (KafkaException e) {
          failFrom(i, e);
          return;
        }
      }
    }

    /**
     * Marks records in order as their sends complete (those {@code highWater} admits); returns the
     * first failure, or null.
     */
    Throwable awaitAndMark(OffsetHighWater highWater) throws InterruptedException {
      while (next < events.size()) {
        Future<?> send = sends[next];
        if (send != null) {
          try {
            send.get();
          } catch (ExecutionException e) {
            return e.getCause();
          }
          published++;
        }
        if (highWater.admits(events.get(next).record())) {
          committer.markProcessed(events.get(next));
        }
        next++;
      }
      return null;
    }

    int skipped() {
      int count = 0;
      for (ProducerRecord<byte[], byte[]> record : outgoing) {
        if (record == null) {
          count++;
        }
      }
      return count;
    }
  }
}
