package io.herald.runtime.inbox;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What one service adds to the {@link InboxLoop}: how a record is decoded, how a batch is applied
 * with its inbox rows in one transaction, and what becomes of a record that never will apply. Every
 * method runs on the loop's thread.
 *
 * @param <T> what the service makes of a valid record
 * @param <R> what applying one value gave (one result per value, in order)
 */
public interface InboxHandler<T, R> {

  /** Decodes one record. Bad content is an {@link Decoded.Invalid}, never an exception. */
  Decoded<T> decode(ConsumerRecord<byte[], byte[]> record);

  /**
   * Applies {@code values} in one database transaction, each value's inbox row inserted first in
   * that transaction so a redelivered record changes nothing.
   *
   * @return one result per value, in order; only once the transaction has committed
   * @throws SQLException nothing was committed; the loop classifies it ({@link
   *     io.herald.runtime.db.SqlFailure}): a retriable failure re-reads the batch, a permanent one
   *     isolates the record that causes it
   */
  List<R> apply(List<T> values) throws SQLException;

  /**
   * Sets aside a record that will never apply (undecodable, or refused by the database). The loop
   * waits for the returned future before it commits the batch's offsets, so no offset passes a
   * record that was neither applied nor set aside.
   */
  Future<?> reject(Decoded.Invalid<T> invalid);

  /** After the batch's transaction committed, before its offsets are committed. */
  default void applied(List<T> values, List<R> results) {}

  /** A batch failed and will be read again after the failure backoff. */
  default void failed(Exception failure) {}
}
