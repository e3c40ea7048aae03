package io.herald.relay.sink;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.herald.relay.health.RelayMetrics;
import io.herald.relay.health.RelayStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's batch consumer: publishes every record of a batch to Kafka and lets the engine
 * commit an offset only for records Kafka has acknowledged.
 *
 * <p>For each batch it sends every record, flushes the producer (so the tail of the batch does not
 * wait for {@code linger.ms}), then waits on each send in order and marks each record processed
 * only after its acknowledgement; the batch is marked finished when all are acknowledged. The first
 * failed send stops the marking: a retriable failure re-sends the batch from that record on (the
 * records after it may then reach Kafka twice, which the consumer's inbox absorbs); any other
 * failure, or a retriable one outlasting {@link SendRetry#giveUpAfter()}, is thrown, which stops
 * the engine with no offset past the unacknowledged record.
 *
 * <p>The engine calls {@link #handleBatch} from one thread at a time; {@link #stop()} may be called
 * from any thread.
 */
public final class KafkaBatchSink
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

  private static final Logger log = LoggerFactory.getLogger(KafkaBatchSink.class);

  private final Producer<byte[], byte[]> producer;
  private final OutboxRecordConverter converter;
  private final SendRetry retry;
  private final RelayMetrics metrics;
  private final RelayStatus status;
  private volatile boolean stopping;

  public KafkaBatchSink(
      Producer<byte[], byte[]> producer,
      OutboxRecordConverter converter,
      SendRetry retry,
      RelayMetrics metrics,
      RelayStatus status) {
    this.producer = producer;
    this.converter = converter;
    this.retry = retry;
    this.metrics = metrics;
    this.status = status;
  }

  /** Makes a batch that is waiting out a Kafka outage give up at its next backoff. */
  public void stop() {
    stopping = true;
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> batch,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    long started = System.nanoTime();
    status.sending();
    List<ProducerRecord<byte[], byte[]>> outgoing = new ArrayList<>(batch.size());
    for (RecordChangeEvent<SourceRecord> event : batch) {
      outgoing.add(converter.convert(event.record()).orElse(null));
    }
    int next = 0;
    int published = 0;
    int attempt = 0;
    long firstFailureNanos = 0;
    while (next < batch.size()) {
      int from = next;
      List<Future<RecordMetadata>> sends = sendFrom(outgoing, from);
      Throwable failure = null;
      for (int i = from; i < batch.size(); i++) {
        if (outgoing.get(i) != null) {
          Future<RecordMetadata> send = sends.get(i - from);
          try {
            send.get();
          } catch (ExecutionException e) {
            failure = e.getCause();
            break;
          }
          published++;
        }
        committer.markProcessed(batch.get(i));
        next = i + 1;
      }
      if (failure == null) {
        break;
      }
      metrics.sendError();
      attempt++;
      if (attempt == 1) {
        firstFailureNanos = System.nanoTime();
      }
      String where = describe(batch.get(next).record());
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
          "Kafka did not acknowledge {} (attempt {}, failing for {}); re-sending the rest of the"
              + " batch ({} records) in {}",
          where,
          attempt,
          failingFor,
          batch.size() - next,
          backoff,
          failure);
      Thread.sleep(backoff.toMillis());
      metrics.sendRetry();
    }
    committer.markBatchFinished();
    status.transition(RelayStatus.Phase.KAFKA_UNAVAILABLE, RelayStatus.Phase.STREAMING);
    status.batchDone(published);
    metrics.published(published);
    metrics.skipped(batch.size() - countSent(outgoing));
    metrics.batch(batch.size(), Duration.ofNanos(System.nanoTime() - started));
  }

  /**
   * Sends {@code outgoing[from..]} and flushes. Returns one future per index from {@code from}
   * (null where there is nothing to send); stops at the first send that throws, whose future is
   * then the failed one, so the waiting loop stops there too.
   */
  private List<Future<RecordMetadata>> sendFrom(
      List<ProducerRecord<byte[], byte[]>> outgoing, int from) {
    List<Future<RecordMetadata>> sends = new ArrayList<>(outgoing.size() - from);
    for (int i = from; i < outgoing.size(); i++) {
      ProducerRecord<byte[], byte[]> record = outgoing.get(i);
      if (record == null) {
        sends.add(null);
        continue;
      }
      try {
        sends.add(producer.send(record));
      } catch (KafkaException e) {
        sends.add(CompletableFuture.failedFuture(e));
        break;
      }
    }
    producer.flush();
    return sends;
  }

  private static int countSent(List<ProducerRecord<byte[], byte[]>> outgoing) {
    int count = 0;
    for (ProducerRecord<byte[], byte[]> record : outgoing) {
      if (record != null) {
        count++;
      }
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
}
