package io.herald.relay.debezium;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Properties;
import javax.net.SocketFactory;

/**
 * The PostgreSQL driver's socket factory for Debezium's connections ({@code
 * database.socketFactory}): replication connections get an {@link IdleWaitSocket}, every other
 * connection a plain socket, as with the driver's default factory.
 *
 * <p>The driver builds one factory per connection with the connection's properties, so the factory
 * sees {@code replication=database} (set by Debezium on its streaming connection) and its argument,
 * {@code socketFactoryArg}, written by {@link #argument(Duration, Duration)}: the idle wait and the
 * quiet time before it applies, in milliseconds.
 *
 * <p>Works around and would go with {@link IdleWaitSocket}.
 */
public final class IdleWaitSocketFactory extends SocketFactory {

  /** The driver's property naming the factory. */
  public static final String FACTORY_PROPERTY = "socketFactory";

  /** The driver's property handed to the factory. */
  public static final String ARGUMENT_PROPERTY = "socketFactoryArg";

  private final boolean replication;
  private final int idleWaitMillis;
  private final long idleAfterNanos;

  /**
   * Called by the driver with the connection's properties.
   *
   * @throws IllegalArgumentException if {@code socketFactoryArg} is not {@code WAIT_MS,AFTER_MS}
   */
  public IdleWaitSocketFactory(Properties connection) {
    String argument = connection.getProperty(ARGUMENT_PROPERTY);
    String[] parts = argument == null ? new String[0] : argument.split(",", -1);
    try {
      if (parts.length != 2) {
        throw new NumberFormatException("two numbers expected");
      }
      this.idleWaitMillis = Integer.parseInt(parts[0].strip());
      this.idleAfterNanos = Duration.ofMillis(Long.parseLong(parts[1].strip())).toNanos();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          ARGUMENT_PROPERTY
              + "="
              + argument
              + " is not '<idle wait ms>,<quiet ms before it>' for "
              + IdleWaitSocketFactory.class.getName(),
          e);
    }
    if (idleWaitMillis <= IdleWaitSocket.DRIVER_PEEK_TIMEOUT_MILLIS || idleAfterNanos < 0) {
      throw new IllegalArgumentException(
          ARGUMENT_PROPERTY
              + "="
              + argument
              + ": the idle wait must be over 1 ms and the quiet time not negative");
    }
    String mode = connection.getProperty("replication");
    this.replication = mode != null && !mode.isBlank() && !mode.equalsIgnoreCase("false");
  }

  /** The {@code socketFactoryArg} value for an idle wait and the quiet time before it applies. */
  public static String argument(Duration idleWait, Duration idleAfter) {
    return idleWait.toMillis() + "," + idleAfter.toMillis();
  }

  @Override
  public Socket createSocket() {
    return replication ? new IdleWaitSocket(idleWaitMillis, idleAfterNanos) : new Socket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    return connected(
        new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(InetAddress host, int port, InetAddress localHost, int localPort)
      throws IOException {
    return connected(
        new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
  }

  private Socket connected(InetSocketAddress remote, InetSocketAddress local) throws IOException {
    Socket socket = createSocket();
    try {
      if (local != null) {
        socket.bind(local);
      }
      socket.connect(remote);
      return socket;
    } catch (IOException e) {
      try {
        socket.close();
      } catch (IOException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }
}
