package io.herald.relay.debezium;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;

/**
 * The replication connection's socket: once nothing has arrived for {@code idleAfter}, the driver's
 * one-millisecond peek waits up to {@code idleWait} for data instead.
 *
 * <p><b>Works around</b> (Debezium 3.6.1 with PgJDBC 42.7): the PostgreSQL driver's non-blocking
 * read of a replication stream ({@code PGReplicationStream.readPending}) asks whether a message is
 * pending by setting the socket timeout to 1 ms and reading; Debezium's streaming loop makes five
 * such reads, then sleeps {@code poll.interval.ms}, for as long as the stream is dry. At rest that
 * loop is nearly all of an idle relay's CPU: each peek is a timed wake-up and a {@code
 * SocketTimeoutException} built and caught inside the driver. Stretching the peek of a quiet stream
 * makes the thread wait on the socket itself, so it wakes the moment PostgreSQL sends and otherwise
 * makes a few rounds a second.
 *
 * <p>A stream that has just carried data keeps the driver's 1 ms peeks: the driver holds its
 * connection lock during a peek, and Debezium's offset commit ({@code flushLsn}, from the engine's
 * thread) needs that lock, so a trickle of events must leave it free as often as before. A commit
 * that meets a long peek waits at most until data arrives or the streaming thread sleeps; either
 * way no event waits behind it.
 *
 * <p>Only a timeout of exactly 1 ms is read as the peek; every other timeout (connect, the socket
 * timeout, the replication status interval) is passed through unchanged and reported back as set.
 * Under TLS the driver layers its {@code SSLSocket} over this one, which hands its timeouts down
 * and reads through {@link #getInputStream}, so both still pass here ({@code IdleWaitStreamIT}).
 *
 * <p><b>Would let it go</b>: a Debezium streaming loop that waits on the stream (a blocking read
 * with a timeout, or the driver's {@code read()}) instead of peeking and sleeping; with {@code
 * relay.engine.debezium-patches=false} the driver's sockets are plain and {@code
 * relay.stream.idle-wait} does not apply.
 */
final class IdleWaitSocket extends Socket {

  /** The timeout the PostgreSQL driver sets for its pending-message peek ({@code PGStream}). */
  static final int DRIVER_PEEK_TIMEOUT_MILLIS = 1;

  private final int idleWaitMillis;
  private final long idleAfterNanos;
  private volatile int requestedTimeout;
  private volatile long lastReceivedNanos = System.nanoTime();
  private InputStream input;

  IdleWaitSocket(int idleWaitMillis, long idleAfterNanos) {
    if (idleWaitMillis <= DRIVER_PEEK_TIMEOUT_MILLIS || idleAfterNanos < 0) {
      throw new IllegalArgumentException(
          "the idle wait must be over 1 ms and the quiet time not negative: "
              + idleWaitMillis
              + " ms, "
              + idleAfterNanos
              + " ns");
    }
    this.idleWaitMillis = idleWaitMillis;
    this.idleAfterNanos = idleAfterNanos;
  }

  @Override
  public void setSoTimeout(int timeout) throws SocketException {
    requestedTimeout = timeout;
    boolean quietPeek =
        timeout == DRIVER_PEEK_TIMEOUT_MILLIS
            && System.nanoTime() - lastReceivedNanos >= idleAfterNanos;
    super.setSoTimeout(quietPeek ? idleWaitMillis : timeout);
  }

  /** The timeout last asked for, so the driver restores its own value after a peek. */
  @Override
  public int getSoTimeout() {
    return requestedTimeout;
  }

  @Override
  public synchronized InputStream getInputStream() throws IOException {
    if (input == null) {
      input = new ReceiptStream(super.getInputStream());
    }
    return input;
  }

  /** Notes when bytes last arrived; everything else is the socket's own stream. */
  private final class ReceiptStream extends FilterInputStream {

    ReceiptStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        lastReceivedNanos = System.nanoTime();
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        lastReceivedNanos = System.nanoTime();
      }
      return n;
    }
  }
}
