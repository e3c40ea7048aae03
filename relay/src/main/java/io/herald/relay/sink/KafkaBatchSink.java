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
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's batch consumer: publishes every record to Kafka and lets the engine commit an offset
 * only for records Kafka has acknowledged.
 *
 * <p>Each batch is sent whole, then <em>settled</em>: its sends are awaited in order, each record
 * is marked processed only after its acknowledgement, and the batch is marked finished once all
 * are. The first failed send stops the marking: a retriable failure re-sends everything from that
 * record on (the records after it may then reach Kafka twice, which the consumer's inbox absorbs);
 * any other failure, or a retriable one outlasting {@link SendRetry#giveUpAfter()}, is thrown,
 * which stops the engine with no offset past the unacknowledged record.
 *
 * <p><b>Pipelining.</b> A full batch ({@link Pipelining#fullBatchSize()} records: the engine had
 * more queued) is left in flight: the sink returns to the engine, which prepares the next batch
 * while Kafka acknowledges this one, and settles it when the batch {@link
 * Pipelining#batchesInFlight()} places later has been sent. A batch smaller than that (the engine
 * emptied its queue) is flushed and settled at once, with every batch still in flight before it, so
 * an idle relay holds nothing unacknowledged and a trickle's events are not delayed by {@code
 * linger.ms}. A batch left in flight when the backlog ends exactly at a full batch is settled by
 * the next call, at the latest with the next heartbeat event. Marking never runs ahead of the
 * acknowledgements, so pipelining changes only how many records a crash may re-send, never which
 * are lost (none).
 *
 * <p>The engine calls {@link #handleBatch} from one thread at a time; {@link #stop()} may be called
 * from any thread, after which every batch is settled before {@link #handleBatch} returns.
 */
public final class KafkaBatchSink
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

  private static final Logger log = LoggerFactory.getLogger(KafkaBatchSink.class);

  private final Producer<byte[], byte[]> producer;
  private final OutboxRecordConverter converter;
  private final SendRetry retry;
  private final Pipelining pipelining;
  private final RelayMetrics metrics;
  private final RelayStatus status;

  private final OffsetHighWater highWater = new OffsetHighWater();

  /** Sent, not yet settled, oldest first. Only the engine's thread touches it. */
  private final ArrayDeque<SentBatch> inFlight = new ArrayDeque<>();

  /** Size of {@link #inFlight}, for {@link #awaitSettled}; guarded by {@code this}. */
  private int unsettled;

  private volatile boolean stopping;

  /**
   * How far the sink may run ahead of Kafka's acknowledgements.
   *
   * @param fullBatchSize the engine's {@code max.batch.size}: a batch this large means more was
   *     queued
   * @param batchesInFlight full batches left unsettled when the sink returns to the engine; 0 waits
   *     for every acknowledgement before taking the next batch (both from the relay's validated
   *     configuration: {@code debezium.source.max.batch.size}, {@code
   *     relay.sink.batches-in-flight})
   */
  public record Pipelining(int fullBatchSize, int batchesInFlight) {}

  public KafkaBatchSink(
      Producer<byte[], byte[]> producer,
      OutboxRecordConverter converter,
      SendRetry retry,
      Pipelining pipelining,
      RelayMetrics metrics,
      RelayStatus status) {
    this.producer = producer;
    this.converter = converter;
    this.retry = retry;
    this.pipelining = pipelining;
    this.metrics = metrics;
    this.status = status;
  }

  /**
   * Makes every later batch settle before returning, and a batch that is waiting out a Kafka outage
   * give up at its next backoff.
   */
  public void stop() {
    stopping = true;
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
    sent.sendFrom(0, producer);
    inFlight.addLast(sent);
    int keep =
        batch.size() >= pipelining.fullBatchSize() && !stopping ? pipelining.batchesInFlight() : 0;
    if (keep == 0) {
      // Without this the batch's tail would wait out linger.ms before it is even sent.
      producer.flush();
    }
    try {
      while (inFlight.size() > keep) {
        settleOldest();
        inFlight.removeFirst();
      }
    } finally {
      synchronized (this) {
        unsettled = inFlight.size();
        notifyAll();
      }
    }
  }

  /**
   * Awaits the oldest batch's sends in order, marking each record, re-sending after failures. Every
   * batch before it is settled, so a failure re-sends from its first unacknowledged record on.
   */
  private void settleOldest() throws InterruptedException {
    SentBatch batch = inFlight.getFirst();
    status.sending();
    int attempt = 0;
    long firstFailureNanos = 0;
    while (true) {
      Throwable failure = batch.awaitAndMark(highWater);
      if (failure == null) {
        break;
      }
      metrics.sendError();
      attempt++;
      if (attempt == 1) {
        firstFailureNanos = System.nanoTime();
      }
      String where = describe(batch.unsettledRecord());
      boolean retriable = failure instanceof RetriableException;
      Duration failingFor = Duration.ofNanos(System.nanoTime() - firstFailureNanos);
      if (!retriable || stopping || failingFor.compareTo(retry.giveUpAfter()) >= 0) {
        String reason =
            !retriable
                ? "non-retriable error"
                : stopping ? "relay is stopping" : "Kafka failing for " + failingFor;
        throw new RelayPublishException(
            "Kafka did not acknowledge "
                + where
                + " after "
                + attempt
                + " attempt(s) ("
                + reason
                + "); no offset passes this record, it is read again from the slot on restart",
            failure);
      }
      Duration backoff = retry.backoff(attempt);
      status.transition(RelayStatus.Phase.STREAMING, RelayStatus.Phase.KAFKA_UNAVAILABLE);
      log.warn(
          "Kafka did not acknowledge {} (attempt {}, failing for {}); re-sending it and the {}"
              + " records sent after it ({} batches in flight) in {}",
          where,
          attempt,
          failingFor,
          unsettledAfterFailure(),
          inFlight.size(),
          backoff,
          failure);
      Thread.sleep(backoff.toMillis());
      metrics.sendRetry();
      resendUnacknowledged();
    }
    batch.committer.markBatchFinished();
    status.transition(RelayStatus.Phase.KAFKA_UNAVAILABLE, RelayStatus.Phase.STREAMING);
    status.batchDone(batch.published);
    metrics.published(batch.published);
    metrics.skipped(batch.skipped());
    metrics.batch(batch.size(), Duration.ofNanos(System.nanoTime() - batch.sentNanos));
  }

  /**
   * Re-sends the oldest batch from its first unacknowledged record and every batch sent after it,
   * in the original order, so no record overtakes an earlier one of its key.
   */
  private void resendUnacknowledged() {
    for (SentBatch batch : inFlight) {
      batch.sendFrom(batch.next, producer);
    }
    producer.flush();
  }

  /** Records sent after the oldest batch's failed one, which its re-send sends again. */
  private int unsettledAfterFailure() {
    int count = -1;
    for (SentBatch batch : inFlight) {
      count += batch.size() - batch.next;
    }
    return count;
  }

  private static String describe(SourceRecord record) {
    Header id = record.headers().lastWithName("id");
    return "record for topic '"
        + record.topic()
        + "'"
        + (id == null ? "" : " id " + id.value())
        + " at source offset "
        + record.sourceOffset();
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

    SourceRecord unsettledRecord() {
      return events.get(next).record();
    }

    /**
     * Sends records {@code from..}; a send that throws fails its record and every later one of the
     * batch, so settling stops there and re-sends them in order.
     */
    void sendFrom(int from, Producer<byte[], byte[]> producer) {
      for (int i = from; i < outgoing.size(); i++) {
        ProducerRecord<byte[], byte[]> record = outgoing.get(i);
        if (record == null) {
          sends[i] = null;
          continue;
        }
        try {
          sends[i] = producer.send(record);
        } catch (KafkaException e) {
          Arrays.fill(sends, i, sends.length, CompletableFuture.failedFuture(e));
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
